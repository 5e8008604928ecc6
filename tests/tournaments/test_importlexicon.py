"""``manage.py importlexicon``: a club's word list imported from the command line as the console imports it,
then played in a French tournament."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from tournaments import services
from tournaments.models import Lexicon, Result

pytestmark = pytest.mark.django_db

# A few lines as Debian's wfrench writes them (UTF-8, accents, apostrophes, capitals), and Latin-1 too.
FRENCH = "éléphant\nzèbre\nÉTÉ\nl'eau\naujourd'hui\nrat\nrats\nraté\ntra\nart\narts\nstar\ntrias\ntarés\n" \
         "x1\n\nÎLE\nsec\ncase\nsacre\nacres\ncarte\nacter\nrace\ncreas\n"


def _run(*args) -> str:
    out = io.StringIO()
    call_command("importlexicon", *args, stdout=out)
    return out.getvalue()


def test_the_command_imports_as_the_console_does(tmp_path, client, arbitrator):
    path = tmp_path / "wfrench.txt"
    path.write_text(FRENCH, encoding="utf-8")
    rejected_file = tmp_path / "refused.txt"
    printed = _run(str(path), "--name", "ODSTEST", "--tileset", "french", "--rejected", str(rejected_file))
    by_command = Lexicon.objects.get(name="ODSTEST")
    assert by_command.imported and by_command.tileset == "french"
    assert f"sha256 {by_command.sha256}" in printed
    words = by_command.words.split("\n")
    assert {"ELEPHANT", "ZEBRE", "ETE", "ILE", "RATE"} <= set(words)  # accents folded
    refused = rejected_file.read_text(encoding="utf-8").splitlines()
    assert set(refused) == {"l'eau", "aujourd'hui", "x1"}
    assert "refused: 3 entries" in printed

    client.force_login(arbitrator)
    answer = client.post(reverse("console-lexicon-import"), {
        "name": "ODSCONSOLE", "tileset": "french",
        "file": SimpleUploadedFile("wfrench.txt", FRENCH.encode("latin-1", "replace"), "text/plain"),
    })
    assert answer.status_code == 200
    by_console = Lexicon.objects.get(name="ODSCONSOLE")
    assert (by_console.sha256, by_console.word_count) == (by_command.sha256, by_command.word_count)
    assert set(answer.context["result"]["rejected"]) == set(refused)


def test_the_command_reads_latin_1_and_standard_input(tmp_path, monkeypatch):
    path = tmp_path / "latin1.txt"
    path.write_bytes("zèbre\nrat\n".encode("latin-1"))
    _run(str(path), "--name", "LAT1", "--tileset", "french")
    assert Lexicon.objects.get(name="LAT1").words.split("\n") == ["RAT", "ZEBRE"]

    class Stdin:
        buffer = io.BytesIO(b"chat\nchien\n")

    monkeypatch.setattr("sys.stdin", Stdin)
    _run("-", "--name", "STDIN", "--tileset", "french")
    assert Lexicon.objects.get(name="STDIN").word_count == 2


def test_the_command_refuses_clearly_and_changes_nothing(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text("chat\n", encoding="utf-8")
    with pytest.raises(CommandError, match="lexicon_builtin"):
        _run(str(path), "--name", "TWL06")
    with pytest.raises(CommandError, match="unknown_tileset"):
        _run(str(path), "--name", "X1", "--tileset", "klingon")
    with pytest.raises(CommandError, match="cannot read"):
        _run(str(tmp_path / "missing.txt"), "--name", "X2")
    assert not Lexicon.objects.filter(name__in=["X1", "X2"]).exists()


def test_a_french_tournament_plays_on_the_imported_list(tmp_path, make_player):
    path = tmp_path / "wfrench.txt"
    path.write_text(FRENCH, encoding="utf-8")
    _run(str(path), "--name", "ODSTEST", "--tileset", "french")
    tournament = services.tournament_create(name="Soirée du club", lexicon="ODSTEST", tileset="french")
    game = services.game_create(tournament=tournament, seed=3)
    ada, _ = make_player(game, name="Ada", table=1)
    bea, _ = make_player(game, name="Béa", table=2)
    round_ = services.round_start(round=services.round_draw(game=game, rack="ACERST?"))
    round_.refresh_from_db()
    services.round_compute_tops(round=round_)
    round_.refresh_from_db()
    assert round_.tops_ready and round_.top_score and round_.tops
    top = round_.tops[0]
    services.slip_submit(round=round_, player=ada, word=top["word"], ref=top["ref"], score=top["score"], key="a")
    services.slip_submit(round=round_, player=bea, word="STAR", ref="H8", score=None, key="b")
    services.round_close(round=round_)
    paid = {r.player_id: r for r in Result.objects.filter(round=round_)}
    assert paid[ada.pk].paid == round_.top_score
    assert paid[bea.pk].paid > 0 and paid[bea.pk].outcome != "zero"  # STAR is in the imported list
