"""A centre's results files pushed over real HTTP to the organiser's endpoint (POST /api/events/{id}/results,
docs/packs.md section 8, served by uvicorn on 127.0.0.1 with the production guard and body reader):

- an earlier version sent again after a later one is refused 409 ``results_replayed`` and changes nothing, while
  the version counted sent again is 200 "already received";
- a 2,000-player, 20-round centre's file (made with the project's own writer, realistic identities and slips)
  is carried whole: pushed by the centre's own pusher (tournaments/centre_results.py) and accepted 201."""

from __future__ import annotations

import http.client
import json
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.test import override_settings

from engine.board import Board
from engine.notation import format_ref
from engine.search import best_plays
from engine.tiles import load_tileset
from tournaments import centre_results, events, packs, results_files, seal
from tournaments.event_models import ResultsFile
from tournaments.lexicons import get_lexicon
from tournaments.limits import RESULTS_FILE_MAX_BYTES
from tournaments.models import CentreResults

from .test_centre_results import unlocked_game

pytestmark = pytest.mark.django_db(transaction=True)

EVENT = "Simultané national de la Fédération 2026"
BIG_PLAYERS, BIG_ROUNDS = 2000, 20
FIRST = ("Marie-Christine", "Jean-François", "Anne-Sophie", "Pierre-Emmanuel", "Éloïse", "Benoît", "Geneviève",
         "Maximilien", "Bérangère", "Thibault")
LAST = ("de La Rochefoucauld", "Lefèvre-Dumoulin", "Vanderhaeghen", "Bouchard-Lévesque", "N'Diaye", "Kowalczyk",
        "Martin", "Dubois", "Fontaine-Beaumarchais", "Nguyen")
CLUBS = ("Scrabble Club de Vichy-Bellerive", "Les Amis du Scrabble de Clermont-Ferrand", "Club de Montluçon",
         "Scrabble Duplicate de Moulins-sur-Allier")
CATEGORIES = ("Poussin", "Benjamin", "Minime", "Cadet", "Junior", "Espoir", "Senior", "Vermeil", "Diamant")


def _post(host, port, event_id, token, data: bytes):
    conn = http.client.HTTPConnection(host, port, timeout=120)
    try:
        conn.request("POST", f"/api/events/{event_id}/results", body=data, headers={
            "Host": f"{host}:{port}", "Content-Type": "application/json", "Accept": "application/json",
            "Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def _game(seed, rounds, signer):
    game_file = packs.draw_game_file(seed=seed, max_rounds=rounds)
    pack, key = packs.seal_pack(game_file, event=EVENT, game_id="G1", signer=signer)
    return game_file, pack, key


def _results(game_file, pack, *, players, seed, sequence, final, signer=None, centre="centre-vichy") -> dict:
    """A centre's results file made with the project's writer (results_files.player_results, make_results_file):
    each player's slips drawn among the engine's best plays of each round, a wrong score or an invalid word now
    and then, a missing slip now and then; each verdict the judge's (results_files.JudgeCache)."""
    pick = random.Random(seed)
    lexicon, tileset = get_lexicon(game_file.lexicon), load_tileset(game_file.tileset)
    judge = results_files.JudgeCache(game_file)
    plays = {r.number: best_plays(Board.from_rows(r.board), r.rack, lexicon, tileset, game_file.rules, n=12)
             for r in game_file.game.rounds}
    out = []
    for i in range(players):
        rounds = []
        for number, best in plays.items():
            play = pick.choice(best)
            slip = {"word": play.word, "ref": format_ref(play.row, play.col, play.horizontal, game_file.labelling),
                    "claimed": play.score + (2 if pick.random() < 0.05 else 0), "several": False}
            if pick.random() < 0.05:
                slip = None
            paid, outcome, reason = judge.verdict(number, slip)
            rounds.append({"round": number, "slip": slip, "verdict": {"paid": paid, "outcome": outcome,
                                                                      "reason": reason}})
        person = {"id": str(10000 + i), "name": f"{pick.choice(FIRST)} {pick.choice(LAST)}",
                  "licence": f"FR-{pick.randint(10, 99)}{i:04d}", "club": pick.choice(CLUBS),
                  "series": f"S{pick.randint(1, 7)}", "category": pick.choice(CATEGORIES)}
        out.append(results_files.player_results(person, rounds))
    corrections = [{"action": "slip_correct", "round": 3, "player": "10001", "by": "arbitre-principal",
                    "why": "word misread on the paper slip", "at": "2026-03-14T20:31:00+01:00",
                    "before": {"word": "X"}, "after": {"word": "Y"}}]
    return results_files.make_results_file(
        event=EVENT, game_id="G1", pack_sha256=packs.pack_sha256(pack), centre={"id": centre, "name": "Club de Vichy"},
        players=out, corrections=corrections, sequence=sequence, final=final, signer=signer)


def test_an_earlier_version_sent_after_a_later_one_is_refused_as_a_replay(uvicorn_server, arbitrator):
    host, port = uvicorn_server
    organiser, centre_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    game_file, pack, key = _game(20260314, 4, organiser)
    event = events.event_create(name=EVENT, actor=arbitrator)
    with override_settings(ARBITER_TRUSTED_ORGANISER_KEYS=[packs.public_text(organiser)]):
        game = events.event_game_add(event=event, raw=packs.pack_bytes(pack))
        events.event_game_unlock(game=game, key=packs.key_text(key), actor=arbitrator)
    _, token = events.centre_register(event=event, code="centre-vichy", name="Club de Vichy",
                                      public_key=packs.public_text(centre_key))
    early = results_files.results_bytes(_results(game_file, pack, players=6, seed=1, sequence=1, final=False,
                                                 signer=centre_key))
    late = results_files.results_bytes(_results(game_file, pack, players=6, seed=2, sequence=2, final=True,
                                                signer=centre_key))

    assert _post(host, port, event.pk, token, early)[0] == 201
    assert _post(host, port, event.pk, token, late)[0] == 201
    stored = list(ResultsFile.objects.order_by("pk").values_list("sequence", "current"))
    assert stored == [(1, False), (2, True)]

    status, body = _post(host, port, event.pk, token, early)
    assert (status, body["error"]["code"]) == (409, "results_replayed"), body
    assert list(ResultsFile.objects.order_by("pk").values_list("sequence", "current")) == stored
    # The version counted, sent again (a retry after a lost answer): acknowledged, nothing changed.
    status, body = _post(host, port, event.pk, token, late)
    assert (status, body["status"], body["sequence"]) == (200, "already_received", 2), body
    assert list(ResultsFile.objects.order_by("pk").values_list("sequence", "current")) == stored


def test_a_2000_player_20_round_centres_file_is_pushed_whole_and_accepted(
        uvicorn_server, settings, arbitrator, make_tournament, capsys):
    host, port = uvicorn_server
    organiser = Ed25519PrivateKey.generate()
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(organiser)]
    settings.ARBITER_CENTRE_ID, settings.ARBITER_CENTRE_NAME = "centre-vichy", "Club de Vichy"
    game_file, pack, key = _game(20260315, BIG_ROUNDS, organiser)
    assert len(game_file.game.rounds) == BIG_ROUNDS

    # The organiser: the event, its game unlocked, this centre registered with its key and a push token.
    event = events.event_create(name=EVENT, actor=arbitrator)
    event_game = events.event_game_add(event=event, raw=packs.pack_bytes(pack))
    events.event_game_unlock(game=event_game, key=packs.key_text(key), actor=arbitrator)
    _, token = events.centre_register(event=event, code="centre-vichy", name="Club de Vichy",
                                      public_key=packs.public_text(seal.server_key()[0]))
    settings.ARBITER_ORGANISER_URL = f"http://{host}:{port}"
    settings.ARBITER_ORGANISER_EVENT, settings.ARBITER_ORGANISER_TOKEN = str(event.pk), token

    # The centre: the pack's game, and its final results file for 2,000 players, signed with its key.
    game = unlocked_game(make_tournament, arbitrator, (pack, key))
    results = _results(game_file, pack, players=BIG_PLAYERS, seed=3, sequence=1, final=True)
    text = results_files.results_bytes(results).decode()
    size = len(text.encode())
    with capsys.disabled():
        print(f"\n{BIG_PLAYERS} players x {BIG_ROUNDS} rounds: results file {size} bytes "
              f"({size / BIG_PLAYERS / BIG_ROUNDS:.0f} bytes per player per round); limit {RESULTS_FILE_MAX_BYTES}")
    assert 2621440 < size <= RESULTS_FILE_MAX_BYTES  # above the 2.5 MB it was refused at, within the limit
    version = CentreResults.objects.create(game=game, sequence=1, final=True, sha256=results_files.results_sha256(
        results), text=text, push_state=CentreResults.Push.PENDING)

    pushed = centre_results.push_results(version.pk)
    assert pushed.outcome == "sent" and pushed.answer["status"] == 201, pushed
    received = ResultsFile.objects.get(event=event)
    assert (received.sha256, received.current, received.final) == (version.sha256, True, True)
    assert len(json.loads(received.content)["players"]) == BIG_PLAYERS
    assert events.differences(event) == []
    assert len(events.standings(event)["rows"]) == BIG_PLAYERS


def test_a_file_above_the_limit_is_refused_at_the_centre_and_never_retried(
        uvicorn_server, settings, arbitrator, make_tournament):
    """Above the limit the organiser answers 413 before reading the file, which the centre's sender mostly sees
    as a reset connection: it would be tried again in vain. It is refused at the centre, nothing sent."""
    host, port = uvicorn_server
    organiser = Ed25519PrivateKey.generate()
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(organiser)]
    settings.ARBITER_CENTRE_ID = "centre-vichy"
    game_file, pack, key = _game(20260316, 2, organiser)
    event = events.event_create(name=EVENT, actor=arbitrator)
    event_game = events.event_game_add(event=event, raw=packs.pack_bytes(pack))
    events.event_game_unlock(game=event_game, key=packs.key_text(key), actor=arbitrator)
    _, token = events.centre_register(event=event, code="centre-vichy", public_key=packs.public_text(
        seal.server_key()[0]))
    settings.ARBITER_ORGANISER_URL = f"http://{host}:{port}"
    settings.ARBITER_ORGANISER_EVENT, settings.ARBITER_ORGANISER_TOKEN = str(event.pk), token
    game = unlocked_game(make_tournament, arbitrator, (pack, key))
    # A 2-round game's file with a correction whose reason is far too long: a file above the limit.
    results = _results(game_file, pack, players=20, seed=4, sequence=1, final=True)
    body = {name: value for name, value in results.items() if name != results_files.SEAL_KEY}
    body["corrections"][0]["why"] = "x" * RESULTS_FILE_MAX_BYTES
    results = results_files.make_results_file(**{name: body[name] for name in (
        "event", "game_id", "pack_sha256", "centre", "players", "corrections", "sequence", "final")})
    text = results_files.results_bytes(results).decode()
    assert len(text) > RESULTS_FILE_MAX_BYTES
    version = CentreResults.objects.create(game=game, sequence=1, final=True, sha256=results_files.results_sha256(
        results), text=text, push_state=CentreResults.Push.PENDING)

    pushed = centre_results.push_results(version.pk)
    assert pushed.outcome == "refused" and pushed.answer["status"] == 413, pushed
    assert pushed.answer["code"] == "results_too_large" and str(RESULTS_FILE_MAX_BYTES) in pushed.answer["message"]
    kept = CentreResults.objects.get(pk=version.pk)
    assert (kept.push_state, kept.push_attempts) == (CentreResults.Push.REFUSED, 1)
    assert not ResultsFile.objects.filter(event=event).exists()
