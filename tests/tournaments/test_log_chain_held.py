"""The chain's head held outside the database, and the rows that decide a score chained.

Every slip, result and late slip is hashed into a chained entry (the round's close, a correction, a ruling, a
late slip admitted); ``manage.py verifylog`` recomputes each digest from the row. The chain's head is carried
by each receipt (at the slip's arrival), each sheet (footer and PDF keywords), the public results and the
centre's results file; ``verifylog --held`` checks any one of them against the log: a log cut at its end,
emptied, or written again in another order is found, as is a result or slip rewritten by the application's
own database role (docker/postgres/10-app-role.sql), which may write those rows but not the log."""

from __future__ import annotations

import json
from contextlib import contextmanager
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from rest_framework.test import APIClient

from tournaments import public, selectors, services
from tournaments.logchain import GENESIS, hash_of, head_text, heads_in
from tournaments.models import LateSlip, LogEntry, Result, Round, Slip

from .sheets_support import pdf_text, play_game

ROOT = Path(__file__).resolve().parents[2]
POSTGRES = connection.vendor == "postgresql"
postgres_only = pytest.mark.skipif(not POSTGRES, reason="the application's database role")

pytestmark = pytest.mark.usefixtures("isolated_cache")


@pytest.fixture
def played(sheets_tournament, arbitrator):
    return play_game(sheets_tournament, arbitrator, rounds=2, end=False).game


def verifylog(*args) -> str:
    out = StringIO()
    call_command("verifylog", *map(str, args), stdout=out)
    return out.getvalue()


def broken(*args) -> str:
    with pytest.raises(CommandError, match="broken log chain"):
        verifylog(*args)
    out = StringIO()
    try:
        call_command("verifylog", *map(str, args), stdout=out)
    except CommandError:
        pass
    return out.getvalue()


def tamper(sql: str, params=()) -> None:
    """What the tables' owner could do past the log's triggers (a replica session, for this statement only)."""
    with transaction.atomic(), connection.cursor() as cursor:
        if POSTGRES:
            cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        if POSTGRES:
            cursor.execute("SET LOCAL session_replication_role = origin")


@contextmanager
def app_role():
    """Statements run as the application's own database role (arbiter_app), as the web server connects."""
    script = (ROOT / "docker" / "postgres" / "10-app-role.sql").read_text(encoding="utf-8")
    with connection.cursor() as cursor:
        cursor.execute(script)  # as the owner, after the migrations (rolled back with the test)
        cursor.execute("SET LOCAL ROLE arbiter_app")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")


def as_app(sql: str, params=()) -> int:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def refused_to_app(sql: str) -> str:
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(sql)
    except DatabaseError as error:
        return str(error)
    raise AssertionError(f"{sql!r} was allowed to the application's role")


def last_seq(game) -> int:
    return LogEntry.objects.filter(game=game).order_by("-seq").values_list("seq", flat=True).first()


# --------------------------------------------------------------------------------------------------
# The rows that decide a score are chained


def test_every_slip_and_result_is_chained_and_recomputed(played):
    check = selectors.log_check(game=played)
    assert check.ok
    chained = {}
    for entry in LogEntry.objects.filter(game=played).exclude(rows=None).order_by("seq"):
        assert hash_of(entry) == entry.hash  # the digests are under the entry's hash
        for kind, items in entry.rows.items():
            chained.update({(kind, int(pk)): digest for pk, digest in items.items()})
    slips = set(Slip.objects.filter(round__game=played).values_list("pk", flat=True))
    results = set(Result.objects.filter(round__game=played).values_list("pk", flat=True))
    assert slips and results
    assert {pk for kind, pk in chained if kind == "slip"} == slips
    assert {pk for kind, pk in chained if kind == "result"} == results
    assert "chain holds, rows match" in verifylog(played.pk)


@pytest.mark.parametrize("kind", ["result", "slip"])
def test_a_row_rewritten_is_found(played, kind):
    """Whoever writes the tables (here the owner; below, the application's role) rewrites a paid score or a
    slip's word: verifylog finds it with no record to compare against."""
    if kind == "result":
        row = Result.objects.filter(round__game=played, paid__gt=0).order_by("pk").first()
        tamper("UPDATE tournaments_result SET paid = paid + 50 WHERE id = %s", [row.pk])
    else:
        row = Slip.objects.filter(round__game=played).order_by("pk").first()
        tamper("UPDATE tournaments_slip SET word = 'ZZZ' WHERE id = %s", [row.pk])
    check = selectors.log_check(game=played)
    assert check.broken.problem == "row_rewritten" and f"{kind} {row.pk} " in check.broken.message
    assert "row_rewritten" in broken(played.pk)


def test_a_row_inserted_or_deleted_behind_the_log_is_found(played):
    result = Result.objects.filter(round__game=played).order_by("pk").first()
    tamper("DELETE FROM tournaments_result WHERE id = %s", [result.pk])
    assert selectors.log_check(game=played).broken.problem == "row_missing"
    tamper("INSERT INTO tournaments_result (round_id, player_id, slip_id, paid, outcome, reason, message, placement,"
           " corrected) VALUES (%s, %s, NULL, 99, 'ok', 'ok', '', '', false)", [result.round_id, result.player_id])
    check = selectors.log_check(game=played)
    assert check.broken.problem == "unchained" and "is on no log entry" in check.broken.message


def test_corrections_rulings_and_late_slips_chain_the_rows_they_write(played, arbitrator):
    rnd = Round.objects.filter(game=played, status=Round.Status.CLOSED).order_by("number").last()
    result = Result.objects.filter(round=rnd).order_by("pk").first()
    services.result_override(result=result, paid=7, outcome="penalty", reason="tile misplaced", actor=arbitrator)
    player = next(p for p in played.tournament.players.all()
                  if not Slip.objects.filter(round=rnd, player=p, current=True).exists())
    late = services.slip_enter_late(round=rnd, player=player, word="ZO", ref="H8", score=22, actor=arbitrator)
    services.late_slip_admit(late=LateSlip.objects.get(pk=late.pk), reason="the venue's clock", actor=arbitrator)
    assert selectors.log_check(game=played).ok
    admitted = Slip.objects.get(round=rnd, player=player, current=True)
    tamper("UPDATE tournaments_slip SET claimed = 99 WHERE id = %s", [admitted.pk])
    assert selectors.log_check(game=played).broken.problem == "row_rewritten"
    tamper("UPDATE tournaments_slip SET claimed = 22 WHERE id = %s", [admitted.pk])
    tamper("UPDATE tournaments_lateslip SET late_by = 0 WHERE id = %s", [late.pk])
    assert "late slip" in selectors.log_check(game=played).broken.message


# --------------------------------------------------------------------------------------------------
# The head held outside: receipt, sheet, public results, results file


def phone_receipt(game, arbitrator, settings, tmp_path) -> Path:
    """A phone's receipt of a slip of a new round, written where the player keeps it. (The fast path gives the
    same receipt, tests/tournaments/test_receipts.py; it answers on another connection, which would not see
    this test's transaction.)"""
    settings.ALLOWED_HOSTS = ["localhost", "testserver"]
    player, token = services.player_register(game=game, name="Phone Player", table=8)
    rnd = services.round_start(round=services.round_draw(game=game, actor=arbitrator), actor=arbitrator)
    top = services.round_compute_tops(round=rnd).master
    answer = APIClient().post(f"/api/games/{game.pk}/rounds/{rnd.number}/slips",
                              {"word": top["word"], "ref": top["ref"], "score": top["score"], "key": "k1"},
                              format="json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert answer.status_code == 201, answer.content
    receipt = answer.json()["receipt"]
    assert (receipt["v"], receipt["log_seq"]) == (2, last_seq(game))
    assert receipt["log_hash"] == LogEntry.objects.get(game=game, seq=receipt["log_seq"]).hash
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(receipt), encoding="utf-8")
    return path


def held_items(game, kind, arbitrator, client, settings, tmp_path) -> str:
    """What a player or a centre holds, made now: a path, or a printed head."""
    if kind == "receipt":
        return str(phone_receipt(game, arbitrator, settings, tmp_path))
    if kind in ("sheet", "sheet_text"):
        services.round_draw(game=game, actor=arbitrator)  # the head: an entry that chains no row
        client.force_login(arbitrator)
        answer = client.get(f"/api/games/{game.pk}/sheets/standings.pdf")
        assert answer.status_code == 200
        pdf = b"".join(answer.streaming_content) if answer.streaming else answer.content
        printed = heads_in(pdf_text(pdf, tmp_path).replace("\n", " "))
        assert printed == [(game.pk, last_seq(game), LogEntry.objects.get(game=game, seq=last_seq(game)).hash)]
        if kind == "sheet_text":
            return head_text(*printed[0])
        (tmp_path / "standings.pdf").write_bytes(pdf)
        return str(tmp_path / "standings.pdf")
    if kind == "public":
        link = public.link_set(tournament=game.tournament, on=True, actor=arbitrator)
        answer = client.get(f"/api/public/{link.key}")
        assert answer.status_code == 200
        (tmp_path / "public.json").write_bytes(answer.content)
        assert heads_in(answer.content.decode())
        return str(tmp_path / "public.json")
    raise AssertionError(kind)


HELD = ["receipt", "sheet", "sheet_text", "public"]


@pytest.mark.parametrize("kind", HELD)
def test_a_log_cut_at_its_end_is_found_from_one_held_item(played, arbitrator, client, settings, tmp_path, kind):
    held = held_items(played, kind, arbitrator, client, settings, tmp_path)
    if kind == "public":  # the public results' head: the last entry about a closed round (here a correction)
        cut_from = heads_in(Path(held).read_text())[0][1]
    else:
        cut_from = last_seq(played)
    assert "1 printed heads found" in verifylog("--held", held)
    tamper("DELETE FROM tournaments_logentry WHERE game_id = %s AND seq >= %s", [played.pk, cut_from])
    if kind != "public":
        # The tail cut chained no row (a round drawn or started): the chain left holds and every row still
        # matches. Only the held head tells.
        assert "chain holds" in verifylog(played.pk)
    out = broken("--held", held)
    assert f"BROKEN at entry {cut_from} (missing)" in out and "cut at its end" in out


@pytest.mark.parametrize("kind", HELD)
def test_an_emptied_log_is_found_from_one_held_item(played, arbitrator, client, settings, tmp_path, kind):
    held = held_items(played, kind, arbitrator, client, settings, tmp_path)
    tamper("DELETE FROM tournaments_logentry WHERE game_id = %s", [played.pk])
    assert "(emptied)" in broken("--held", held)
    # Without it, the closed rounds' slips and results on no entry still tell.
    assert "(unchained)" in broken(played.pk)


def test_an_entry_moved_and_the_chain_hashed_again_is_found_from_a_sheet(played, arbitrator, client, settings,
                                                                         tmp_path):
    held = held_items(played, "sheet", arbitrator, client, settings, tmp_path)
    rows = list(LogEntry.objects.filter(game=played).order_by("seq"))
    # Two entries swap places: the links break.
    first, second = rows[2], rows[3]
    tamper("UPDATE tournaments_logentry SET seq = 1000000 WHERE id = %s", [first.pk])
    tamper("UPDATE tournaments_logentry SET seq = %s WHERE id = %s", [first.seq, second.pk])
    tamper("UPDATE tournaments_logentry SET seq = %s WHERE id = %s", [second.seq, first.pk])
    assert "(link)" in broken(played.pk)
    # ...and the whole chain hashed again in the new order: it holds on its own, not through the sheet's head.
    previous = GENESIS
    for entry in LogEntry.objects.filter(game=played).order_by("seq"):
        entry.prev_hash = previous
        previous = hash_of(entry)
        tamper("UPDATE tournaments_logentry SET prev_hash = %s, hash = %s WHERE id = %s",
               [entry.prev_hash, previous, entry.pk])
    assert "chain holds" in verifylog(played.pk)
    assert "(rewritten)" in broken("--held", held)


def test_a_receipt_not_sealed_here_proves_nothing(played, arbitrator, settings, tmp_path):
    path = phone_receipt(played, arbitrator, settings, tmp_path)
    receipt = json.loads(path.read_text())
    receipt["log_seq"] += 1
    path.write_text(json.dumps(receipt), encoding="utf-8")
    with pytest.raises(CommandError, match="not sealed by this server"):
        verifylog("--held", path)


def test_the_centre_results_file_carries_the_head(played):
    from tournaments import results_files

    made = results_files.make_results_file(event="e", game_id="g1", pack_sha256="0" * 64, centre={"id": "c"},
                                           players=[], chain=selectors.chain_heads_text([played]))
    assert heads_in(results_files.results_bytes(made).decode()) == [
        (played.pk, *selectors.log_head(played.pk))]


# --------------------------------------------------------------------------------------------------
# PostgreSQL: through the application's own role


@postgres_only
@pytest.mark.parametrize("kind", ["result", "slip"])
def test_the_application_role_rewriting_a_row_is_found(played, arbitrator, settings, tmp_path, kind):
    receipt = phone_receipt(played, arbitrator, settings, tmp_path)
    with app_role():
        if kind == "result":
            row = Result.objects.filter(round__game=played, paid__gt=0).order_by("pk").first()
            assert as_app("UPDATE tournaments_result SET paid = paid + 50 WHERE id = %s", [row.pk]) == 1
        else:
            row = Slip.objects.filter(round__game=played, round__status="closed").order_by("pk").first()
            assert as_app("UPDATE tournaments_slip SET word = 'ZZZ' WHERE id = %s", [row.pk]) == 1
        out = broken("--held", receipt)
        assert "(row_rewritten)" in out and f"{kind} {row.pk} " in out
        assert "(row_rewritten)" in broken(played.pk)


@postgres_only
def test_the_application_role_can_neither_cut_nor_empty_nor_reorder_the_log(played, arbitrator, settings, tmp_path):
    receipt = phone_receipt(played, arbitrator, settings, tmp_path)
    with app_role():
        assert "permission denied" in refused_to_app(f"DELETE FROM tournaments_logentry WHERE game_id = {played.pk}")
        assert "permission denied" in refused_to_app(
            f"UPDATE tournaments_logentry SET seq = seq + 1000 WHERE game_id = {played.pk}")
        assert "permission denied" in refused_to_app("TRUNCATE tournaments_logentry")
        assert "1 printed heads found" in verifylog("--held", receipt)
    # The owner can, past the triggers; the receipt the player kept tells.
    tamper("DELETE FROM tournaments_logentry WHERE game_id = %s AND seq >= %s",
           [played.pk, json.loads(receipt.read_text())["log_seq"]])
    assert "cut at its end" in broken("--held", receipt)


def test_a_receipt_without_a_head_still_checks(played, arbitrator, settings, tmp_path):
    """A slip kept before heads were has its version 1 receipt, checked as before; a version 2 receipt whose
    slip lost its head on record is told apart."""
    from tournaments.receipts import receipt_check, receipt_for

    path = phone_receipt(played, arbitrator, settings, tmp_path)
    sent = json.loads(path.read_text())
    assert receipt_check(game=played, receipt=sent)["on_record"] is True
    tamper("UPDATE tournaments_slip SET chain_seq = NULL, chain_hash = '' WHERE id = %s", [sent["slip"]])
    assert receipt_check(game=played, receipt=sent)["differences"] == ["v", "log_seq", "log_hash"]
    old = receipt_for(Slip.objects.get(pk=sent["slip"]))
    assert old["v"] == 1 and "log_seq" not in old
    verdict = receipt_check(game=played, receipt=old)
    assert (verdict["valid"], verdict["on_record"]) == (True, True)
