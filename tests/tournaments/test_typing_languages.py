"""Catalan and Spanish typed as a club writes them: racks and slips sent over HTTP as plain text.

- ``QUATRES``, ``ANYSQUE``, ``[NY]ASQUE`` read one way: a one-key alias (Catalan ``Q``, ``Y``) counts only
  where the labels cannot read the text (docs/rules.md, "Typing words and racks");
- ``L.L`` and ``Ŀ`` (L·L without the middle dot) in racks and slips;
- accents the set's tiles do not have are folded (``ARRÉCHO``), a decomposed ``Ñ`` (N + U+0303) is Ñ."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from engine.tiles import load_tileset
from tournaments.models import Round, Tournament

from .api_support import bearer_client, expect

pytestmark = pytest.mark.django_db

CATALAN = load_tileset("catalan")
SPANISH = load_tileset("spanish")
CATALAN_WORDS = ["QUATRE", "QUATRES", "ANYS", "COL·LEGI", "COL·LEGIS", "ESQUENA", "ANYSQUE", "CASA", "ESTA",
                 "SEU", "TRES", "QUE", "ANY", "LLEGIR", "GUIA", "AIGUA", "ESCOLA"]
SPANISH_WORDS = ["ARRECHO", "ÑANDU", "AÑO", "PERRO", "COCHE", "CASA", "ESTA", "OSO", "ARRECHOS", "NADA"]


def _game(arbitrator_client, tmp_path, tileset: str, words: list[str]):
    name = f"CLUB{tileset.upper()[:4]}"
    path = tmp_path / f"{tileset}.txt"
    path.write_text("\n".join(words) + "\n", encoding="utf-8")
    call_command("importlexicon", str(path), "--name", name, "--tileset", tileset, stdout=None)
    t = expect(arbitrator_client.post("/api/tournaments", {
        "name": "Torneig", "lexicon": name, "tileset": tileset, "rules": {"solo_min_players": 1}},
        format="json"), 201)
    g = expect(arbitrator_client.post(f"/api/tournaments/{t['id']}/games", {"seed": 3}, format="json"), 201)
    return t, g, f"/api/games/{g['id']}"


def _draw(arbitrator_client, url: str, rack: str):
    return arbitrator_client.post(f"{url}/rounds", {"rack": rack}, format="json")


@pytest.mark.parametrize(("typed", "tiles"), [
    ("QUATRESI", ["QU", "A", "T", "R", "E", "S", "I"]),
    ("ANYSQUEIA", ["A", "NY", "S", "QU", "E", "I", "A"]),
    ("[NY]ASQUEIA", ["NY", "A", "S", "QU", "E", "I", "A"]),
    ("QATRESI", ["QU", "A", "T", "R", "E", "S", "I"]),  # Q where no label reads: the alias of QU
])
def test_a_catalan_rack_typed_as_written_reads_one_way(arbitrator_client, tmp_path, isolated_cache, typed, tiles):
    _t, g, url = _game(arbitrator_client, tmp_path, "catalan", CATALAN_WORDS)
    expect(_draw(arbitrator_client, url, typed), 201)
    rack = Round.objects.get(game_id=g["id"], number=1).rack
    assert sorted(CATALAN.labels(rack)) == sorted(tiles)


@pytest.mark.parametrize("typed", ["COL·LEGIS", "COL.LEGIS", "COĿLEGIS"])
def test_a_catalan_rack_with_l_l_is_read(arbitrator_client, tmp_path, isolated_cache, typed):
    _t, g, url = _game(arbitrator_client, tmp_path, "catalan", CATALAN_WORDS)
    expect(_draw(arbitrator_client, url, typed), 201)
    rack = Round.objects.get(game_id=g["id"], number=1).rack
    assert sorted(CATALAN.labels(rack)) == sorted(["C", "O", "L·L", "E", "G", "I", "S"])


@pytest.mark.parametrize("written", ["COL·LEGIS", "COL.LEGIS", "COĿLEGIS"])
def test_a_catalan_slip_with_l_l_is_judged(arbitrator_client, tmp_path, isolated_cache, written):
    _t, g, url = _game(arbitrator_client, tmp_path, "catalan", CATALAN_WORDS)
    expect(_draw(arbitrator_client, url, "COL.LEGIS"), 201)
    player = expect(arbitrator_client.post(f"{url}/players", {"name": "Pere", "table": 1}, format="json"), 201)
    phone = bearer_client(player["token"])
    expect(arbitrator_client.post(f"{url}/rounds/1/start", {}, format="json"), 200)
    slip = phone.post(f"{url}/rounds/1/slips", {"key": "k1", "word": written, "ref": "H4", "score": 0},
                      format="json")
    assert slip.status_code in (200, 201), slip.content.decode()


def test_a_spanish_rack_with_an_accent_and_a_decomposed_enye_is_read(arbitrator_client, tmp_path, isolated_cache):
    _t, g, url = _game(arbitrator_client, tmp_path, "spanish", SPANISH_WORDS)
    expect(_draw(arbitrator_client, url, "ARRÉCH?"), 400)  # RR and CH one tile or two: refused, naming each way
    expect(_draw(arbitrator_client, url, "A[RR]É[CH]ON\u0303S"), 201)
    rack = Round.objects.get(game_id=g["id"], number=1).rack
    assert sorted(SPANISH.labels(rack)) == sorted(["A", "RR", "E", "CH", "O", "Ñ", "S"])


@pytest.mark.parametrize("written", ["ARRÉCHO", "ARRECHO", "arrécho"])
def test_a_spanish_slip_with_an_accent_is_judged(arbitrator_client, tmp_path, isolated_cache, written):
    _t, g, url = _game(arbitrator_client, tmp_path, "spanish", SPANISH_WORDS)
    expect(_draw(arbitrator_client, url, "A3E1ONS"), 201)
    player = expect(arbitrator_client.post(f"{url}/players", {"name": "Ana", "table": 1}, format="json"), 201)
    phone = bearer_client(player["token"])
    expect(arbitrator_client.post(f"{url}/rounds/1/start", {}, format="json"), 200)
    slip = phone.post(f"{url}/rounds/1/slips", {"key": "k1", "word": written, "ref": "H4", "score": 0},
                      format="json")
    assert slip.status_code in (200, 201), slip.content.decode()


def test_a_spanish_slip_with_a_decomposed_enye_is_taken(arbitrator_client, tmp_path, isolated_cache):
    _t, g, url = _game(arbitrator_client, tmp_path, "spanish", SPANISH_WORDS)
    expect(_draw(arbitrator_client, url, "ÑANDUOS"), 201)
    player = expect(arbitrator_client.post(f"{url}/players", {"name": "Ana", "table": 1}, format="json"), 201)
    phone = bearer_client(player["token"])
    expect(arbitrator_client.post(f"{url}/rounds/1/start", {}, format="json"), 200)
    slip = phone.post(f"{url}/rounds/1/slips", {"key": "k1", "word": "N\u0303ANDU", "ref": "H4", "score": 0},
                      format="json")
    assert slip.status_code in (200, 201), slip.content.decode()


def test_a_rack_that_reads_two_ways_is_refused_with_a_hint_from_its_own_tiles(arbitrator_client, tmp_path,
                                                                               isolated_cache):
    _t, g, url = _game(arbitrator_client, tmp_path, "spanish", SPANISH_WORDS)
    answer = _draw(arbitrator_client, url, "ARRESTO")
    error = expect(answer, 400)["error"]
    assert error["code"] == "ambiguous_rack"
    assert "A RR E S T O / A R R E S T O" in error["message"]
    assert error["message"].endswith("e.g. [RR]"), error["message"]  # not [CH], which the rack does not hold
    assert not Round.objects.filter(game_id=g["id"]).exists()


def test_a_spanish_tournament_on_an_english_list_is_refused_stating_the_share(arbitrator_client, isolated_cache):
    answer = arbitrator_client.post("/api/tournaments", {"name": "Torneo", "lexicon": "TWL06", "tileset": "spanish"},
                                    format="json")
    error = expect(answer, 400)["error"]
    assert error["code"] == "tileset_mismatch", error
    share = re.search(r"^(\d+\.\d)% of the words of TWL06 \((\d+) of (\d+), e\.g\. (\w+)\)", error["message"])
    assert share, error["message"]
    unwritable, total = int(share.group(2)), int(share.group(3))
    assert float(share.group(1)) == round(100 * unwritable / total, 1) and unwritable > total / 100
    assert {"K", "W"} & set(share.group(4)), share.group(4)  # a word the Spanish set cannot write
    assert "(english)" in error["message"]
    assert not Tournament.objects.filter(name="Torneo").exists()
    # The list's own set, and a list imported with the set, are accepted.
    expect(arbitrator_client.post("/api/tournaments", {"name": "Club", "lexicon": "TWL06", "tileset": "english"},
                                  format="json"), 201)


def test_a_list_imported_with_one_set_is_refused_with_another(arbitrator_client, tmp_path, isolated_cache):
    _game(arbitrator_client, tmp_path, "catalan", CATALAN_WORDS)  # CLUBCATA, imported with the Catalan set
    error = expect(arbitrator_client.post("/api/tournaments", {
        "name": "Club", "lexicon": "CLUBCATA", "tileset": "english"}, format="json"), 400)["error"]
    assert error["code"] == "tileset_mismatch"
    assert "of the words of CLUBCATA" in error["message"] and "(catalan)" in error["message"]


def test_answers_and_refusals_speak_in_labels_never_storage_characters(arbitrator_client, tmp_path, isolated_cache):
    t, g, url = _game(arbitrator_client, tmp_path, "catalan", CATALAN_WORDS)
    table = {row["tile"]: row["label"] for row in t["tiles"]}  # the tournament's label table
    assert table["W"] == "L·L" and table["Q"] == "QU" and table["Y"] == "NY" and table["K"] == "Ç"
    drawn = expect(_draw(arbitrator_client, url, "COL.LEGIS"), 201)
    assert sorted(drawn["rack_labels"]) == sorted(["C", "O", "L·L", "E", "G", "I", "S"])
    detail = expect(arbitrator_client.get(f"{url}/rounds/1"), 200)
    assert sorted(detail["rack_labels"]) == sorted(drawn["rack_labels"])
    assert len(detail["board_labels"]) == 15 and all(row == ["."] * 15 for row in detail["board_labels"])


def test_a_rack_refused_by_the_bag_is_named_by_its_labels(arbitrator_client, tmp_path, isolated_cache):
    _t, _g, url = _game(arbitrator_client, tmp_path, "spanish", SPANISH_WORDS)
    error = expect(_draw(arbitrator_client, url, "[CH][CH]AEIOU"), 409)["error"]
    assert error["code"] == "not_in_bag"
    assert error["message"] == "[CH][CH]AEIOU: [CH] not in the bag", error["message"]
    error = expect(_draw(arbitrator_client, url, "[RR]AEIO"), 409)["error"]
    assert error["code"] == "wrong_size" and error["message"].startswith("[RR]AEIO:"), error["message"]
