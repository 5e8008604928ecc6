"""The standings CSV and the federation's results file carry the log chain's head in their name.

Their formats are read by other software line by line (a header and one row per player; one line per player,
no header, CR LF, Latin-1), so their content stays as it was: the head at the download is in the file's name
(``...-chain-GAME-SEQ-HASH.csv``) and in the ``Arbiter-Chain`` header. Each file is downloaded here as the
console (its session) and a script (an API token) do, kept under the name the server gave it, and handed to
``manage.py verifylog --held``: a log cut at its end, emptied, reordered and hashed again, or a result or slip
rewritten is found; an untouched log passes."""

from __future__ import annotations

import csv
import io
import re
import shutil

import pytest
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from tournaments import selectors, services
from tournaments.exports import results_file, standings_csv
from tournaments.exports.standings import COLUMNS
from tournaments.logchain import GENESIS, hash_of, head_text, heads_in_name
from tournaments.models import LogEntry, Result, Slip

from .test_log_chain_held import POSTGRES, app_role, as_app, broken, last_seq, played, tamper, verifylog

pytestmark = pytest.mark.usefixtures("isolated_cache")

__all__ = ["played"]  # the fixture, shared with test_log_chain_held

FILES = {"standings.csv": ".csv", "results.txt": ".txt"}


def download(game, name: str, arbitrator, client, tmp_path, *, by: str):
    """GET the file as the console's link does (session) or as a script does (token); write it under the name
    the server gave it (Content-Disposition), as a browser or ``curl -OJ`` would."""
    url = f"/api/games/{game.pk}/exports/{name}"
    if by == "console":
        client.force_login(arbitrator)
        answer = client.get(url)
    else:
        api = APIClient()
        token = api.post("/api/auth/token", {"username": arbitrator.username, "password": "secret-password"},
                         format="json").json()["token"]
        answer = APIClient().get(url, HTTP_AUTHORIZATION=f"Token {token}")
    assert answer.status_code == 200, answer.content
    filename = re.fullmatch(r'attachment; filename="([^"/\\]+)"', answer["Content-Disposition"]).group(1)
    path = tmp_path / filename
    path.write_bytes(answer.content)
    return path, answer


def assert_format_unchanged(game, name: str, body: bytes) -> None:
    """The content is the format its readers know, byte for byte what it was: no head inside."""
    rows = selectors.game_standings(game=game)
    if name == "standings.csv":
        born = selectors.birth_dates(game)
        assert body == standings_csv([{**row, "birth_date": born.get(row["player"], "")} for row in rows]).encode()
        table = list(csv.reader(io.StringIO(body.decode("utf-8"))))
        assert tuple(table[0]) == COLUMNS and len(table) == 1 + len(rows)
    else:
        assert body == results_file(rows)
        lines = body.decode("latin-1").split("\r\n")
        assert lines[-1] == "" and len(lines) == 1 + len(rows)
        assert all(len(next(csv.reader([line]))) == 3 for line in lines[:-1])
    assert b"chain" not in body


@pytest.mark.parametrize("by", ["console", "token"])
@pytest.mark.parametrize("name", FILES)
def test_the_file_carries_the_head_in_its_name_and_header(played, arbitrator, client, tmp_path, name, by):
    path, answer = download(played, name, arbitrator, client, tmp_path, by=by)
    head = (played.pk, last_seq(played), LogEntry.objects.get(game=played, seq=last_seq(played)).hash)
    assert heads_in_name(path.name) == [head] and path.suffix == FILES[name]
    assert answer["Arbiter-Chain"] == head_text(*head)
    assert_format_unchanged(played, name, answer.content)
    assert "1 printed heads found" in verifylog("--held", path)
    # Downloaded twice, a browser names it "... (1).csv": the head is read all the same.
    again = path.with_name(f"{path.stem} (1){path.suffix}")
    shutil.copy(path, again)
    assert "1 printed heads found" in verifylog("--held", again)


@pytest.mark.parametrize("name", FILES)
def test_a_log_cut_at_its_end_is_found_from_the_file(played, arbitrator, client, tmp_path, name):
    services.round_draw(game=played, actor=arbitrator)  # the head: an entry that chains no row
    path, _ = download(played, name, arbitrator, client, tmp_path, by="console")
    cut_from = last_seq(played)
    tamper("DELETE FROM tournaments_logentry WHERE game_id = %s AND seq >= %s", [played.pk, cut_from])
    assert "chain holds" in verifylog(played.pk)  # the tail cut chained no row: only the file tells
    out = broken("--held", path)
    assert f"BROKEN at entry {cut_from} (missing)" in out and "cut at its end" in out


@pytest.mark.parametrize("name", FILES)
def test_an_emptied_log_is_found_from_the_file(played, arbitrator, client, tmp_path, name):
    path, _ = download(played, name, arbitrator, client, tmp_path, by="token")
    tamper("DELETE FROM tournaments_logentry WHERE game_id = %s", [played.pk])
    assert "(emptied)" in broken("--held", path)


@pytest.mark.parametrize("name", FILES)
def test_a_log_reordered_and_hashed_again_is_found_from_the_file(played, arbitrator, client, tmp_path, name):
    path, _ = download(played, name, arbitrator, client, tmp_path, by="console")
    rows = list(LogEntry.objects.filter(game=played).order_by("seq"))
    first, second = rows[2], rows[3]
    tamper("UPDATE tournaments_logentry SET seq = 1000000 WHERE id = %s", [first.pk])
    tamper("UPDATE tournaments_logentry SET seq = %s WHERE id = %s", [first.seq, second.pk])
    tamper("UPDATE tournaments_logentry SET seq = %s WHERE id = %s", [second.seq, first.pk])
    previous = GENESIS
    for entry in LogEntry.objects.filter(game=played).order_by("seq"):
        entry.prev_hash = previous
        previous = hash_of(entry)
        tamper("UPDATE tournaments_logentry SET prev_hash = %s, hash = %s WHERE id = %s",
               [entry.prev_hash, previous, entry.pk])
    assert "chain holds" in verifylog(played.pk)  # it holds on its own...
    assert "(rewritten)" in broken("--held", path)  # ...not through the file's head


@pytest.mark.parametrize("kind", ["result", "slip"])
@pytest.mark.parametrize("name", FILES)
def test_a_result_or_slip_rewritten_is_found_from_the_file(played, arbitrator, client, tmp_path, name, kind):
    """Rewritten by the application's own database role on PostgreSQL (as the web server connects), by the
    tables' owner on the embedded default."""
    path, _ = download(played, name, arbitrator, client, tmp_path, by="token")
    assert "1 printed heads found" in verifylog("--held", path)
    if kind == "result":
        row = Result.objects.filter(round__game=played, paid__gt=0).order_by("pk").first()
        sql = "UPDATE tournaments_result SET paid = paid + 50 WHERE id = %s"
    else:
        row = Slip.objects.filter(round__game=played, round__status="closed").order_by("pk").first()
        sql = "UPDATE tournaments_slip SET word = 'ZZZ' WHERE id = %s"
    if POSTGRES:
        with app_role():
            assert as_app(sql, [row.pk]) == 1
            out = broken("--held", path)
    else:
        tamper(sql, [row.pk])
        out = broken("--held", path)
    assert "(row_rewritten)" in out and f"{kind} {row.pk} " in out


def test_a_file_renamed_without_its_head_is_refused(played, arbitrator, client, tmp_path):
    path, _ = download(played, "results.txt", arbitrator, client, tmp_path, by="console")
    bare = path.rename(tmp_path / f"results-game-{played.pk}.txt")
    with pytest.raises(CommandError, match="prints no chain head"):
        verifylog("--held", bare)
