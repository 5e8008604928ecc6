"""A simultaneous event's results files and merged standings (tournaments/results_files.py, engine/merge.py):
three centres play one pre-drawn game; their signed files are verified against the pack and merged, and the merged
standings equal a computation made here from the raw slips with event-wide solos; a forged, altered, replayed or
wrong-event file is refused; a verdict the organiser's judge gives otherwise is listed, never changed; several
games add up by licence; a centre that has not reported is listed and the standings are provisional."""

from __future__ import annotations

import copy
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.utils import translation

from engine.board import Board
from engine.judging import Slip, judge_slip
from engine.notation import format_ref
from engine.search import best_plays
from engine.tiles import load_tileset
from tournaments import packs
from tournaments.errors import ServiceError
from tournaments.lexicons import get_lexicon
from tournaments.refusals import error_text
from tournaments.results_files import ResultsInbox, make_results_file, player_results, results_sha256

EVENT = "Simultané de printemps 2026"
CENTRES = ("A", "B", "C")
PLAYERS = 6  # 18 players in all: solos count over the event (16 or more), never within one centre's 6
ROUNDS = 6
SOLOIST = "B2"  # writes the top every round; nobody else does


@pytest.fixture(scope="module")
def games():
    """Two pre-drawn games, each with its pack's SHA-256 and a few plays per round to write on slips."""
    made = {}
    for game_id, seed in (("G1", 20260314), ("G2", 20260315)):
        game_file = packs.draw_game_file(seed=seed, max_rounds=ROUNDS)
        pack, _ = packs.seal_pack(game_file, event=EVENT, game_id=game_id)
        lexicon, tileset = get_lexicon(game_file.lexicon), load_tileset(game_file.tileset)
        plays = {r.number: best_plays(Board.from_rows(r.board), r.rack, lexicon, tileset, game_file.rules, n=8)
                 for r in game_file.game.rounds}
        made[game_id] = {"file": game_file, "sha": packs.pack_sha256(pack), "plays": plays, "lexicon": lexicon,
                         "tileset": tileset}
    return made


@pytest.fixture(scope="module")
def keys():
    return {centre: Ed25519PrivateKey.generate() for centre in CENTRES}


def _slip(game, number: int, player_seed: str):
    """A slip as players write them: another legal play than the top, a legal play with a wrong score (a
    warning), a word not in the list, or none; the soloist writes the top."""
    pick = random.Random(f"{player_seed}:{number}")
    kind = "top" if player_seed == SOLOIST else pick.choice(("other", "other", "other", "wrong_score", "invalid",
                                                                 "none"))
    if kind == "none":
        return None
    labelling = game["file"].labelling
    plays = game["plays"][number]
    play = plays[0] if kind == "top" else pick.choice(plays[1:] or plays)
    ref = format_ref(play.row, play.col, play.horizontal, labelling)
    if kind == "invalid":
        return {"word": "QXZV", "ref": ref, "claimed": 30}
    word = "".join(letter.lower() if blank else letter for _, _, letter, blank in play.tiles) \
        if len(play.tiles) == len(play.word) else play.word
    return {"word": word, "ref": ref, "claimed": play.score + (3 if kind == "wrong_score" else 0)}


def _judge(game, number: int, slip):
    """The engine's verdict of a raw slip, computed here (the centre's judge)."""
    if slip is None:
        return {"paid": 0, "outcome": "zero", "reason": "no_slip"}
    game_round = game["file"].game.rounds[number - 1]
    found = judge_slip(Board.from_rows(game_round.board), game_round.rack, number,
                       Slip(slip["word"], slip["ref"], slip["claimed"]), game["lexicon"], game["tileset"],
                       game["file"].rules, labelling=game["file"].labelling)
    return {"paid": found.paid, "outcome": found.outcome, "reason": found.reason}


def _raw(game, centre: str, count: int = PLAYERS, wrong_scorer: bool = True):
    """Each player's raw slips: {(centre, i): {name, licence, series, category, slips}}. Player 0 of centre A
    writes a wrong score every round, so that their warnings cost points."""
    raw = {}
    for i in range(count):
        slips = []
        for number in range(1, ROUNDS + 1):
            slip = _slip(game, number, f"{centre}{i}")
            if wrong_scorer and centre == "A" and i == 0:
                play = game["plays"][number][-1]
                slip = {"word": play.word if all(not b for *_, b in play.tiles) else slip and slip["word"],
                        "ref": format_ref(play.row, play.col, play.horizontal, game["file"].labelling),
                        "claimed": play.score + 1}
            slips.append(slip)
        raw[(centre, i)] = {"name": f"Player {centre}{i}", "licence": f"L{centre}{i}", "club": f"Club {centre}",
                            "series": f"S{1 + i % 3}", "category": ("Senior", "Junior")[i % 2], "slips": slips}
    return raw


def _file(game_id, game, centre, raw, key, *, event=EVENT, sequence=1, final=True, tamper=None):
    players = []
    for (c, i), person in raw.items():
        if c != centre:
            continue
        rounds = [{"round": n, "slip": slip, "verdict": _judge(game, n, slip)}
                  for n, slip in enumerate(person["slips"], start=1)]
        if tamper:
            tamper(i, rounds)
        players.append(player_results({**person, "id": str(i)}, rounds))
    corrections = [{"round": 2, "player": "1", "by": f"arbitrator {centre}", "why": "word misread on the paper slip",
                    "at": "2026-03-14T20:31:00+01:00", "before": {"word": "X"}, "after": {"word": "Y"}}]
    return make_results_file(event=event, game_id=game_id, pack_sha256=game["sha"], centre={"id": centre,
                             "name": f"Club {centre}"}, players=players, corrections=corrections,
                             sequence=sequence, final=final, signer=key)


def _inbox(games, keys, game_ids=("G1",)):
    inbox = ResultsInbox(EVENT)
    for centre, key in keys.items():
        inbox.register_centre(centre, packs.public_text(key))
    for game_id in game_ids:
        inbox.add_game(game_id, games[game_id]["file"], games[game_id]["sha"])
    return inbox


def _refused(code, call, *args, **kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as refused:
        call(*args, **kwargs)
    assert refused.value.code == code, refused.value.message
    return refused.value


def _ranks(totals: dict) -> dict:
    ordered = sorted(totals.values(), reverse=True)
    return {who: 1 + ordered.index(total) for who, total in totals.items()}


def test_merged_standings_equal_a_computation_from_the_raw_slips_with_event_wide_solos(games, keys):
    game = games["G1"]
    raw = {}
    for centre in CENTRES:
        raw.update(_raw(game, centre))
    inbox = _inbox(games, keys)
    for centre in CENTRES:
        verified = inbox.accept(packs.pack_bytes(_file("G1", game, centre, raw, keys[centre])))
        assert verified.differences == ()
    standings = inbox.standings()

    # Computed here from the raw slips: paid by the engine's judge, solos over all 18 players of the event.
    rules = game["file"].rules
    paid = {who: [_judge(game, n, slip) for n, slip in enumerate(p["slips"], start=1)] for who, p in raw.items()}
    solos = dict.fromkeys(raw, 0)
    for r in range(ROUNDS):
        scores = sorted(((v[r]["paid"], who) for who, v in paid.items()), reverse=True)
        if scores[0][0] > scores[1][0]:
            solos[scores[0][1]] += 1
    played = sum(1 for v in paid.values() if any(x["reason"] != "no_slip" for x in v))
    assert played >= rules.solo_min_players > PLAYERS
    assert sum(solos.values()) >= 1, "the game gives no solo: choose another seed"
    totals = {}
    for who, verdicts in paid.items():
        warnings = sum(1 for v in verdicts if v["outcome"] == "warning")
        totals[who] = (sum(v["paid"] for v in verdicts) + solos[who] * rules.solo_bonus
                       - max(0, warnings - rules.free_warnings) * rules.warning_cost)
    assert sum(1 for v in paid[("A", 0)] if v["outcome"] == "warning") > rules.free_warnings
    sum_tops = sum(r.master.score for r in game["file"].game.rounds)
    ranks = _ranks(totals)

    rows = {(row["centre"], row["name"]): row for row in standings["rows"]}
    assert len(rows) == len(raw) == len(standings["rows"])
    assert standings["sum_tops"] == sum_tops and not standings["provisional"] and standings["missing"] == []
    for (centre, i), person in raw.items():
        row = rows[(centre, person["name"])]
        assert (row["total"], row["rank"], row["solos"]) == (totals[(centre, i)], ranks[(centre, i)],
                                                            solos[(centre, i)])
        assert row["diff"] == totals[(centre, i)] - sum_tops
        assert row["percent"] == round(100 * totals[(centre, i)] / sum_tops, 2)
        assert (row["series"], row["category"], row["licence"]) == (person["series"], person["category"],
                                                                    person["licence"])
    assert [row["rank"] for row in standings["rows"]] == sorted(ranks.values())
    for group, name_of in (("centre", lambda who: who[0]), ("series", lambda who: raw[who]["series"]),
                           ("category", lambda who: raw[who]["category"])):
        for name, ranking in standings[f"by_{group}"].items():
            members = {who: total for who, total in totals.items() if name_of(who) == name}
            expected = _ranks(members)
            assert {(row["centre"], row["name"]): row[f"rank_{group}"] for row in ranking} == {
                (who[0], raw[who]["name"]): rank for who, rank in expected.items()}
            assert [row["total"] for row in ranking] == sorted(members.values(), reverse=True)

    # The same files with solos per centre: 6 players a room, below the threshold, so nobody has a solo.
    per_centre = inbox.standings(event_solos=False)
    assert all(row["solos"] == 0 for row in per_centre["rows"])


def test_forged_altered_replayed_and_wrong_event_files_are_refused(games, keys):
    game = games["G1"]
    raw = _raw(game, "A", count=2)
    inbox = _inbox(games, keys)
    good = _file("G1", game, "A", raw, keys["A"])

    forged = _file("G1", game, "A", raw, Ed25519PrivateKey.generate())  # centre A's name, another key
    refused = _refused("results_forged", inbox.accept, forged)
    assert packs.fingerprint(forged["seal"]["key"]) in refused.message
    _refused("results_forged", inbox.accept, _file("G1", game, "A", raw, keys["B"]))  # another centre's key

    altered = copy.deepcopy(good)
    altered["players"][1]["rounds"][0]["verdict"]["paid"] += 10
    altered["players"][1]["total"] += 10
    _refused("results_altered", inbox.accept, altered)

    _refused("results_wrong_event", inbox.accept, _file("G1", game, "A", raw, keys["A"], event="Another event"))
    other_pack = _file("G1", {**game, "sha": games["G2"]["sha"]}, "A", raw, keys["A"])
    _refused("results_wrong_event", inbox.accept, other_pack)
    _refused("results_unknown_centre", _inbox(games, {"B": keys["B"]}).accept, good)

    _refused("bad_results", inbox.accept, b"not json")
    for damage in (lambda f: f["players"][0]["rounds"].__setitem__(0, "H8 WORD 30"),
                   lambda f: f["players"][0]["rounds"][0].__setitem__("slip", {"word": 7, "ref": "H8"}),
                   lambda f: f["players"][0]["rounds"][0].__setitem__("round", ROUNDS + 1)):
        broken = copy.deepcopy(good)
        damage(broken)
        resigned = make_results_file(event=EVENT, game_id="G1", pack_sha256=game["sha"], centre={"id": "A"},
                                     players=broken["players"], signer=keys["A"])
        _refused("bad_results", inbox.accept, resigned)  # signed by the centre, and still not results
    inbox.accept(packs.pack_bytes(good))
    refused = _refused("results_replayed", inbox.accept, packs.pack_bytes(good))
    assert results_sha256(good)[:16] in refused.message
    with translation.override("fr"):
        assert error_text(refused).startswith("ce fichier de résultats a déjà été accepté")
    assert len(inbox.history) == 1 and inbox.current[("A", "G1")].sha256 == results_sha256(good)


def test_a_later_version_replaces_the_earlier_and_keeps_it_in_history(games, keys):
    game = games["G1"]
    raw = _raw(game, "B", count=2)
    inbox = _inbox(games, keys)
    first = inbox.accept(_file("G1", game, "B", raw, keys["B"], sequence=1, final=False))
    assert inbox.standings()["unfinished"] == [{"game": "G1", "centre": "B"}]
    second = inbox.accept(_file("G1", game, "B", raw, keys["B"], sequence=2, final=True))
    assert inbox.current[("B", "G1")] is second and inbox.history == [first, second]
    _refused("results_outdated", inbox.accept, _file("G1", game, "B", raw, keys["B"], sequence=1, final=True))


def test_totals_that_do_not_add_up_are_refused(games, keys):
    game = games["G1"]
    raw = _raw(game, "A", count=2)
    players = []
    for person in raw.values():
        rounds = [{"round": n, "slip": s, "verdict": _judge(game, n, s)} for n, s in enumerate(person["slips"], 1)]
        players.append({**player_results(person, rounds), "total": 999})
    bad = make_results_file(event=EVENT, game_id="G1", pack_sha256=game["sha"], centre={"id": "A"},
                            players=players, signer=keys["A"])
    refused = _refused("results_totals", _inbox(games, keys).accept, bad)
    assert "999" in refused.message


def test_a_verdict_differing_from_the_organisers_is_listed_not_changed(games, keys):
    game = games["G1"]
    raw = _raw(game, "C", count=3)

    def generous(i, rounds):  # centre C paid player 1's third slip as the top, whatever was written
        if i == 1:
            rounds[2]["slip"] = {"word": "QXZV", "ref": "H8", "claimed": 40}
            rounds[2]["verdict"] = {"paid": 40, "outcome": "ok", "reason": "ok"}

    reason = _judge(game, 3, {"word": "QXZV", "ref": "H8", "claimed": 40})["reason"]
    assert reason != "ok"
    inbox = _inbox(games, keys)
    verified = inbox.accept(_file("G1", game, "C", raw, keys["C"], tamper=generous))
    assert [(d["name"], d["round"], d["centre_verdict"]["paid"], d["judged"]["paid"], d["judged"]["reason"])
            for d in verified.differences] == [("Player C1", 3, 40, 0, reason)]
    assert inbox.differences()[0]["centre"] == "C"
    row = next(row for row in inbox.standings()["rows"] if row["name"] == "Player C1")
    assert row["paid"] == sum(_judge(game, n, s)["paid"] for n, s in enumerate(raw[("C", 1)]["slips"], 1)
                              if n != 3) + 40  # the centre's verdict stands until reviewed


def test_each_distinct_slip_is_judged_once_across_files(games, keys):
    game = games["G1"]
    raw = _raw(game, "A", wrong_scorer=False)
    copied = {("B", i): person for (_, i), person in raw.items()}  # centre B's players wrote the same slips
    inbox = _inbox(games, keys)
    inbox.accept(_file("G1", game, "A", raw, keys["A"]))
    cache = inbox.games["G1"].cache
    judged = cache.judged
    distinct = {(n, s["word"], s["ref"], s["claimed"]) for p in raw.values()
                for n, s in enumerate(p["slips"], 1) if s is not None}
    assert judged == len(distinct)
    inbox.accept(_file("G1", game, "B", copied, keys["B"]))
    assert cache.judged == judged and cache.asked == 2 * PLAYERS * ROUNDS


def test_several_games_add_up_by_licence_and_missing_centres_are_listed(games, keys):
    one, two = games["G1"], games["G2"]
    g1 = _raw(one, "A", count=2, wrong_scorer=False)
    g2 = {("B", 0): {**_raw(two, "B", count=1)[("B", 0)], "name": "P. A0", "licence": g1[("A", 0)]["licence"]},
          ("A", 1): _raw(two, "A", count=2, wrong_scorer=False)[("A", 1)]}
    g2[("A", 1)] = {**g2[("A", 1)], "name": g1[("A", 1)]["name"], "licence": ""}
    g1[("A", 1)] = {**g1[("A", 1)], "licence": ""}
    inbox = _inbox(games, keys, game_ids=("G1", "G2"))
    inbox.accept(_file("G1", one, "A", g1, keys["A"]))
    inbox.accept(_file("G2", two, "A", {k: v for k, v in g2.items() if k[0] == "A"}, keys["A"]))
    inbox.accept(_file("G2", two, "B", {k: v for k, v in g2.items() if k[0] == "B"}, keys["B"]))
    standings = inbox.standings()

    def paid(game, person):
        return sum(_judge(game, n, s)["paid"] for n, s in enumerate(person["slips"], 1))

    rows = standings["rows"]
    assert len(rows) == 2  # A0 (licence, two centres) and A1 (no licence, same name and centre)
    licensed = next(row for row in rows if row["licence"] == g1[("A", 0)]["licence"])
    assert licensed["total"] == paid(one, g1[("A", 0)]) + paid(two, g2[("B", 0)])
    assert licensed["centres"] == ["A", "B"] and [g["game"] for g in licensed["games"]] == ["G1", "G2"]
    unlicensed = next(row for row in rows if row["licence"] == "")
    assert unlicensed["total"] == paid(one, g1[("A", 1)]) + paid(two, g2[("A", 1)])
    assert standings["sum_tops"] == sum(r.master.score for g in (one, two) for r in g["file"].game.rounds)
    assert standings["provisional"]
    assert standings["missing"] == [{"game": "G1", "centre": "B"}, {"game": "G1", "centre": "C"},
                                    {"game": "G2", "centre": "C"}]
    assert standings["missing_centres"] == ["B", "C"]
