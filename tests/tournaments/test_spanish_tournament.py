"""A Spanish tournament end to end: a word list imported with the Spanish tile set (CH, LL, RR and Ñ are
single tiles), racks typed at the console with the keyboard aliases (``3`` for RR, ``1`` or ``[CH]`` for CH),
a typed rack that reads two ways refused with both readings, slips written as players spell (``PERRO`` on
the RR tile), a C and an H on the rack never making CH (``not_in_rack`` naming CH), close, standings and
sheets that print the tiles' labels (never the storage characters ``Δ Θ Λ Ξ``).

Two lists: the committed sample ``tests/fixtures/spanish_words.txt`` (always), and Debian's ``wspanish``
(``/usr/share/dict/spanish``) imported whole when it is installed (skipped, saying why, when it is not)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from engine.board import Board
from engine.movegen import generate_plays
from engine.notation import format_ref
from engine.tiles import EXTRA_CHARS, load_tileset
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, Lexicon, Result, Round

from .api_support import assert_error, bearer_client, expect
from .sheets_support import pdf_text, screenshot

pytestmark = pytest.mark.django_db

SPANISH_WORDS = Path(__file__).resolve().parents[1] / "fixtures" / "spanish_words.txt"
WSPANISH = Path("/usr/share/dict/spanish")
SPANISH = load_tileset("spanish")
STORAGE = set(EXTRA_CHARS) | set(EXTRA_CHARS.lower())


def _plays(game: Game, number: int):
    round = Round.objects.get(game=game, number=number)
    tournament = game.tournament
    plays = generate_plays(Board.from_rows(round.board), round.rack, get_lexicon(tournament.lexicon),
                           tournament.tiles, tournament.rules)
    return sorted(plays, key=lambda p: (-p.score, p.word, p.row, p.col, p.horizontal))


def _ref(play) -> str:
    return format_ref(play.row, play.col, play.horizontal, "rows-letters")


def _best(plays, written: str):
    """The best play whose word reads ``written`` (labels, as a player writes it)."""
    return next(play for play in plays if SPANISH.show(play.word) == written)


def _import(path: Path, name: str) -> set[str]:
    call_command("importlexicon", str(path), "--name", name, "--tileset", "spanish", stdout=None)
    return set(Lexicon.objects.get(name=name).words.split())


def test_the_sample_list_is_spelled_into_spanish_tiles(isolated_cache):
    words = _import(SPANISH_WORDS, "ESMUESTRA")
    shown = {SPANISH.show(word) for word in words}
    # PERRO is P, E, RR, O; COCHE is C, O, CH, E; CALLE is C, A, LL, E; AÑO keeps its Ñ tile.
    assert {"PEΞO", "COΘE", "CAΛE", "AΔO"} <= words
    assert {"PERRO", "COCHE", "CALLE", "AÑO", "CHORRO", "CACHORRO"} <= shown
    assert not {"KILO", "WHISKY"} & shown  # the Spanish set has no K and no W tile: refused at import


def _spanish_game(arbitrator_client, lexicon: str, language: str = "en"):
    t = expect(arbitrator_client.post("/api/tournaments", {
        "name": "Torneo del club", "lexicon": lexicon, "tileset": "spanish", "language": language,
        "rules": {"solo_min_players": 3}}, format="json"), 201)
    assert (t["lexicon"], t["tileset"]) == (lexicon, "spanish")
    g = expect(arbitrator_client.post(f"/api/tournaments/{t['id']}/games", {"seed": 5}, format="json"), 201)
    url = f"/api/games/{g['id']}"
    seats = {}
    for name, table in (("Ana", 1), ("Bruno", 2), ("Carmen", 3)):
        p = expect(arbitrator_client.post(f"{url}/players", {"name": name, "table": table}, format="json"), 201)
        seats[name] = bearer_client(p["token"])
    return t, Game.objects.get(pk=g["id"]), url, seats


def _play_through(arbitrator_client, lexicon: str, tmp_path, shots: str):
    t, game, url, seats = _spanish_game(arbitrator_client, lexicon)

    # A typed rack that reads two ways (CH one tile, or C and H) is refused with both readings; nothing drawn.
    error = assert_error(arbitrator_client.post(f"{url}/rounds", {"rack": "PERCHAO"}, format="json"), 400)
    assert error["code"] == "ambiguous_rack"
    assert "P E R C H A O" in error["message"] and "P E R CH A O" in error["message"], error
    assert not Round.objects.filter(game=game).exists()

    # Round 1: 3 is the RR tile; H before C reads one way only. No CH tile on this rack.
    r1 = expect(arbitrator_client.post(f"{url}/rounds", {"rack": "3PEOHCA"}, format="json"), 201)
    assert sorted(SPANISH.labels(r1["rack"])) == sorted(["RR", "P", "E", "O", "H", "C", "A"])
    expect(arbitrator_client.post(f"{url}/rounds/1/start", {}, format="json"), 200)
    plays = _plays(game, 1)
    perro = _best(plays, "PERRO")
    # Ana's phone: PERRO written as spelled, read as P, E, RR, O.
    expect(seats["Ana"].post(f"{url}/rounds/1/slips", {"word": "PERRO", "ref": _ref(perro), "score": perro.score,
                                                       "key": "a1"}, format="json"), 201)
    # Bruno's paper slip, entered by table: PERRO too.
    expect(arbitrator_client.post(f"{url}/rounds/1/slips", {"table": 2, "word": "perro".upper(), "ref": _ref(perro),
                                                            "score": perro.score}, format="json"), 201)
    # Carmen writes PECHO from a C and an H: they never make the CH tile.
    expect(seats["Carmen"].post(f"{url}/rounds/1/slips", {"word": "PECHO", "ref": "H4", "score": 20, "key": "c1"},
                                format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/1/close", {}, format="json"), 200)
    detail = expect(arbitrator_client.get(f"{url}/rounds/1"), 200)
    masters = [SPANISH.show(detail["master"]["word"])]
    results = {row["name"]: row for row in detail["results"]}
    assert (results["Ana"]["outcome"], results["Ana"]["paid"]) == ("ok", perro.score)
    assert results["Bruno"]["paid"] == perro.score
    assert (results["Carmen"]["paid"], results["Carmen"]["reason"]) == (0, "not_in_rack")
    carmen = Result.objects.get(round__game=game, round__number=1, player__name="Carmen")
    assert re.search(r"\bCH\b", carmen.message) and not STORAGE & set(carmen.message), carmen.message

    # Round 2: the kept tiles and new ones typed with [CH]; Bruno hands in a word on the CH tile.
    stored_kept = Game.objects.get(pk=game.pk).kept
    new = "".join(["[CH]", "E", "O", "A", "N", "S", "T"][: 7 - len(stored_kept)])
    kept = SPANISH.typed(stored_kept)
    r2 = expect(arbitrator_client.post(f"{url}/rounds", {"rack": kept + new}, format="json"), 201)
    assert "CH" in SPANISH.labels(r2["rack"])
    expect(arbitrator_client.post(f"{url}/rounds/2/start", {}, format="json"), 200)
    with_ch = [play for play in _plays(game, 2) if "Θ" in play.word]
    assert with_ch, "the sample list has a word on the CH tile for this rack"
    ch_play = with_ch[0]
    ch_word = SPANISH.show(ch_play.word)
    assert "CH" in ch_word
    expect(seats["Bruno"].post(f"{url}/rounds/2/slips", {"word": ch_word, "ref": _ref(ch_play),
                                                         "score": ch_play.score, "key": "b2"}, format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/2/close", {}, format="json"), 200)
    detail = expect(arbitrator_client.get(f"{url}/rounds/2"), 200)
    masters.append(SPANISH.show(detail["master"]["word"]))
    results = {row["name"]: row for row in detail["results"]}
    assert (results["Bruno"]["outcome"], results["Bruno"]["paid"]) == ("ok", ch_play.score)

    for number in (1, 2):
        expect(arbitrator_client.post(f"{url}/rounds/{number}/complete", {}, format="json"), 200)
    expect(arbitrator_client.post(f"{url}/end", {}, format="json"), 200)
    standings = expect(arbitrator_client.get(f"{url}/standings"), 200)
    assert standings

    texts = {}
    for name in ("standings", "scoresheets", "record", "solutions"):
        answer = arbitrator_client.get(f"{url}/sheets/{name}.pdf")
        assert answer.status_code == 200 and answer.content.startswith(b"%PDF"), name
        texts[name] = pdf_text(answer.content, tmp_path, name)
        screenshot(answer.content, f"{shots}-{name}")
        assert not STORAGE & set(texts[name]), (name, STORAGE & set(texts[name]))
        assert name == "solutions" or "Spanish tiles" in texts[name], name
    assert all(master in texts["solutions"] for master in masters) and "[CH]" in texts["solutions"]
    ana = next(page for page in texts["scoresheets"].split("\f") if "Ana" in page)
    assert "PERRO" in ana and re.search(r"\bRR\b|\[RR\]", ana), ana
    bruno = next(page for page in texts["scoresheets"].split("\f") if "Bruno" in page)
    assert ch_word in bruno and "CH" in bruno
    exported = arbitrator_client.get(f"/api/games/{game.pk}/exports/record.json")
    assert exported.status_code == 200, exported.status_code
    labels = json.loads(exported.content)["tournament"]["tile_labels"]
    assert (labels["Θ"], labels["Λ"], labels["Ξ"], labels["Δ"]) == ("CH", "LL", "RR", "Ñ")
    record = texts["record"]
    assert all(master in record for master in masters), (masters, record)
    assert re.search(r"\+?\[?RR\]?", record) and "[CH]" in record, record  # the racks, a digraph in brackets
    return game


def test_a_spanish_tournament_on_the_sample_list_through_the_api(arbitrator_client, isolated_cache, tmp_path):
    _import(SPANISH_WORDS, "ESMUESTRA")
    _play_through(arbitrator_client, "ESMUESTRA", tmp_path, "sheet-es-sample")


@pytest.mark.skipif(not WSPANISH.exists(), reason="Debian's wspanish list (/usr/share/dict/spanish) is not "
                                                   "installed: apt-get install wspanish")
def test_a_spanish_tournament_on_the_wspanish_list_through_the_api(arbitrator_client, isolated_cache, tmp_path):
    words = _import(WSPANISH, "WSPANISH")
    assert len(words) > 50_000 and "PEΞO" in words and "COΘE" in words
    _play_through(arbitrator_client, "WSPANISH", tmp_path, "sheet-es-wspanish")


def test_every_shipped_tile_set_can_be_chosen_and_its_name_gives_its_count():
    from engine.tiles import load_tileset as load
    from tournaments.wording import TILESETS

    shipped = {path.stem for path in (Path(__file__).resolve().parents[2] / "engine" / "data" / "tilesets").glob("*.csv")}
    assert set(TILESETS) == shipped
    for name, label in TILESETS.items():
        assert f"({len(load(name).full_bag())} tiles" in str(label), (name, label)


# --------------------------------------------------------------------------------------------------
# The console: a rack typed with the aliases, and one that reads two ways refused on the page


def _console_messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_the_console_reads_a_rack_typed_with_the_aliases(client, arbitrator, make_game, isolated_cache):
    from django.urls import reverse

    client.force_login(arbitrator)
    _import(SPANISH_WORDS, "ESMUESTRA")  # a Spanish list: TWL06 is refused with the Spanish set
    game = make_game(tileset="spanish", lexicon="ESMUESTRA", created_by=arbitrator)
    answer = client.post(reverse("console-draw", args=[game.pk]), {"rack": "[CH][LL][RR]AEIO"}, follow=True)
    assert answer.status_code == 200
    round = Round.objects.get(game=game, number=1)
    assert sorted(SPANISH.labels(round.rack)) == sorted(["CH", "LL", "RR", "A", "E", "I", "O"])


@pytest.mark.parametrize(("language", "said"), [
    ("en", "CHAEIOU can be read more than one way: CH A E I O U / C H A E I O U; write a tile of several letters in "
           "brackets, e.g. [CH]"),
    ("fr", "CHAEIOU se lit de plusieurs façons : CH A E I O U / C H A E I O U ; écrivez un jeton de plusieurs "
           "lettres entre crochets, par exemple [CH]"),
])
def test_the_console_refuses_a_rack_that_reads_two_ways_showing_both(client, arbitrator, make_game, language, said,
                                                                      isolated_cache):
    from django.urls import reverse

    client.force_login(arbitrator)
    client.cookies["django_language"] = language
    _import(SPANISH_WORDS, "ESMUESTRA")  # a Spanish list: TWL06 is refused with the Spanish set
    game = make_game(tileset="spanish", lexicon="ESMUESTRA", created_by=arbitrator)
    answer = client.post(reverse("console-draw", args=[game.pk]), {"rack": "CHAEIOU"}, follow=True)
    assert not Round.objects.filter(game=game).exists()
    shown = " ".join(_console_messages(answer)).replace("\u00a0", " ")
    assert said in shown, shown  # both readings, the tiles by their labels
    assert "CH A E I O U / C H A E I O U" in answer.content.decode()  # on the page


@pytest.mark.parametrize("tileset", ["spanish", "catalan", "romanian", "dutch", "german", "italian"])
def test_a_tournament_in_every_shipped_set_draws_and_its_console_shows_labels(arbitrator_client, client, arbitrator,
                                                                               tileset, isolated_cache, tmp_path):
    # A list imported with the set (a set is refused with a list it cannot write: TWL06 has K and W words).
    (tmp_path / "words.txt").write_text("CASA\nNADA\nTRES\nORO\nSEDE\n", encoding="utf-8")
    call_command("importlexicon", str(tmp_path / "words.txt"), "--name", f"CLUB{tileset.upper()[:6]}", "--tileset",
                 tileset, stdout=None)
    t = expect(arbitrator_client.post("/api/tournaments", {"name": "Club", "tileset": tileset,
                                                           "lexicon": f"CLUB{tileset.upper()[:6]}"}, format="json"), 201)
    assert t["tileset"] == tileset
    g = expect(arbitrator_client.post(f"/api/tournaments/{t['id']}/games", {"seed": 2}, format="json"), 201)
    drawn = expect(arbitrator_client.post(f"/api/games/{g['id']}/rounds", {}, format="json"), 201)
    tiles = load_tileset(tileset)
    assert len(drawn["rack"]) == 7 and all(tiles.has_letter(ch) or ch == "?" for ch in drawn["rack"])
    client.force_login(arbitrator)
    page = client.get(f"/console/games/{g['id']}/").content.decode()
    assert not STORAGE & set(page.split("<main", 1)[-1].split("</main>", 1)[0])
    for label in tiles.labels(drawn["rack"]):
        assert label in page



def test_a_slip_written_longer_than_the_board_in_labels_is_kept_and_judged(arbitrator_client, isolated_cache):
    """A word written with brackets or digraph labels can take more characters than it has tiles (``[ch]`` is
    four characters for one tile): such a slip, from a phone or on paper, is stored as written and judged,
    never a server error."""
    _import(SPANISH_WORDS, "ESMUESTRA")
    t, game, url, seats = _spanish_game(arbitrator_client, "ESMUESTRA")
    expect(arbitrator_client.post(f"{url}/rounds", {"rack": "3PEOHCA"}, format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/1/start", {}, format="json"), 200)
    written = "[ch][ch][ch][ch][ch]"  # 20 characters, 5 tiles: not a word of the list
    assert len(written) > 15
    expect(seats["Ana"].post(f"{url}/rounds/1/slips", {"word": written, "ref": "H8", "score": 10, "key": "a1"},
                             format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/1/slips", {"table": 2, "word": written, "ref": "H8", "score": 10},
                                  format="json"), 201)
    expect(arbitrator_client.post(f"{url}/rounds/1/close", {}, format="json"), 200)
    for name in ("Ana", "Bruno"):
        result = Result.objects.get(round__game=game, round__number=1, player__name=name)
        assert result.paid == 0 and result.reason not in ("no_slip", "absent"), (name, result.reason)
        assert result.slip.word == written
