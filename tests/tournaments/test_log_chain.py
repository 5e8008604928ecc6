"""A record nobody can quietly rewrite: the arbitration log chained by hash (tournaments/logchain.py), checked
by selectors.log_check and ``manage.py verifylog``, against the chain heads a game record printed; closed to
TRUNCATE and to the application's database role on PostgreSQL (docker/postgres/10-app-role.sql); and the
Django admin read-only for game data."""

from __future__ import annotations

import hashlib
import importlib
import json
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from django.urls import reverse

from tournaments import selectors, services
from tournaments.exports import export_record
from tournaments.logchain import GENESIS, hash_of
from tournaments.models import (
    Game,
    GameArbitrator,
    LateSlip,
    LogEntry,
    Player,
    Result,
    Round,
    Slip,
    Tournament,
)
from tournaments.services import log
from tournaments.sheets import sources
from tournaments.sheets.record import render_record

from .sheets_support import pdf_text, play_game

ROOT = Path(__file__).resolve().parents[2]
POSTGRES = connection.vendor == "postgresql"
postgres_only = pytest.mark.skipif(not POSTGRES, reason="PostgreSQL's triggers and roles")
chain_migration = importlib.import_module("tournaments.migrations.0012_log_chain")

pytestmark = pytest.mark.usefixtures("isolated_cache")


@pytest.fixture
def played(sheets_tournament, arbitrator):
    """A short game played through the services (its log written by them, not loaded back as rows)."""
    return play_game(sheets_tournament, arbitrator, rounds=2).game


def tamper(sql: str, params=()) -> None:
    """Change the log behind the services' back, as whoever holds the tables' owner role could: on PostgreSQL
    the append-only trigger is passed by a replica session (superuser), for this statement only."""
    with transaction.atomic(), connection.cursor() as cursor:
        if POSTGRES:
            cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        if POSTGRES:
            cursor.execute("SET LOCAL session_replication_role = origin")


def entries(game) -> list[LogEntry]:
    return list(LogEntry.objects.filter(game=game).order_by("seq"))


def has_float(value) -> bool:
    if isinstance(value, dict):
        return any(has_float(item) for item in value.values())
    if isinstance(value, list):
        return any(has_float(item) for item in value)
    return isinstance(value, float)


def write_record(game, tmp_path) -> Path:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(export_record(game)), encoding="utf-8")
    return path


def verifylog(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command("verifylog", *map(str, args), stdout=out)
    return out.getvalue()


# --------------------------------------------------------------------------------------------------
# The chain


def test_every_entry_holds_the_hash_of_the_one_before(played):
    rows = entries(played)
    assert len(rows) >= 10
    assert [row.seq for row in rows] == list(range(1, len(rows) + 1))
    assert rows[0].prev_hash == GENESIS
    assert all(later.prev_hash == earlier.hash for earlier, later in zip(rows, rows[1:], strict=False))
    # Each hash is the SHA-256 of the documented canonical form, computed here by hand for one entry.
    # (an entry without floats: those are written as they read back from jsonb, see the next test)
    entry = next(row for row in rows if row.actor_id and row.round_id and row.after
                 and not has_float([row.before, row.after]))
    content = {
        "v": 1, "game": played.pk, "seq": entry.seq, "round": entry.round_id, "slip": entry.slip_id,
        "player": entry.player_id, "actor": entry.actor_id,
        "at": entry.at.astimezone(__import__("datetime").UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "action": entry.action, "before": entry.before, "after": entry.after, "reason": entry.reason,
        "prev": entry.prev_hash,
    }
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert entry.hash == hashlib.sha256(canonical.encode()).hexdigest()
    check = selectors.log_check(game=played)
    assert check.ok and check.entries == len(rows) and check.head == {"seq": rows[-1].seq, "hash": rows[-1].hash}
    assert f"game {played.pk}: {len(rows)} entries, chain holds" in verifylog(played.pk)


@pytest.mark.parametrize("value", [1e20, 5.0, -0.0, 1e300, 0.1 + 0.2, 1e-7, 2**63, 10**20 + 1, "é\u202e", [1, {"a": None}]])
def test_a_number_reads_back_to_the_same_hash(make_game, value):
    """PostgreSQL's jsonb gives 1e20 back as 100000000000000000000, -0.0 as 0 and 1e300 as 10**300: the
    entry's hash must not change with it."""
    game = make_game()
    written = log(game=game, action="round_extend", after={"value": value, "other": [value]})
    stored = LogEntry.objects.get(pk=written.pk)
    assert stored.hash == written.hash == hash_of(stored)
    assert selectors.log_check(game=game).ok


def test_chains_of_two_games_are_apart(played, make_game):
    other = make_game()
    services.player_register(game=other, name="Eve", table=1)
    first = entries(other)[0]
    assert (first.seq, first.prev_hash) == (1, GENESIS)
    assert selectors.log_check(game=other).ok and selectors.log_check(game=played).ok


@pytest.mark.parametrize(
    ("change", "problem", "at"),
    [
        ("reason", "altered", 0),  # an entry's content changed: its hash no longer matches
        ("rehashed", "link", 1),  # changed and its own hash recomputed: the next entry's link breaks
        ("deleted", "missing", 0),  # removed: a gap in the numbering
    ],
)
def test_an_entry_changed_or_removed_is_found(played, change, problem, at):
    rows = entries(played)
    victim = rows[len(rows) // 2]
    if change == "reason":
        tamper("UPDATE tournaments_logentry SET reason = %s WHERE id = %s", ["edited", victim.pk])
    elif change == "rehashed":
        victim.reason = "edited"
        tamper("UPDATE tournaments_logentry SET reason = %s, hash = %s WHERE id = %s",
               ["edited", hash_of(victim), victim.pk])
    else:
        tamper("DELETE FROM tournaments_logentry WHERE id = %s", [victim.pk])
    check = selectors.log_check(game=played)
    assert not check.ok
    assert (check.broken.seq, check.broken.problem) == (victim.seq + at, problem)
    with pytest.raises(CommandError, match="broken log chain"):
        verifylog(played.pk)


def test_a_log_cut_short_is_found_against_the_record(played, tmp_path):
    record = write_record(played, tmp_path)
    assert "3 printed heads found" in verifylog(played.pk, "--record", record)  # rounds 1, 2 and the game's last
    heads = json.loads(record.read_text())["log_chain"]
    first_round_head = heads["rounds"][0]["seq"]
    # The entries after round 1's head are deleted: what is left is a chain that holds on its own.
    tamper("DELETE FROM tournaments_logentry WHERE game_id = %s AND seq > %s", [played.pk, first_round_head])
    assert selectors.log_check(game=played, rows=False).ok  # the chain left holds on its own...
    assert selectors.log_check(game=played).broken.problem == "unchained"  # ...but round 2's rows are on none
    check = selectors.log_check(game=played, heads=selectors.record_heads(json.loads(record.read_text())))
    assert (check.broken.seq, check.broken.problem) == (heads["rounds"][1]["seq"], "missing")
    with pytest.raises(CommandError):
        verifylog(played.pk, "--record", record)


def test_a_log_written_again_with_fresh_hashes_is_found_against_the_record(played, tmp_path):
    record = write_record(played, tmp_path)
    count = len(entries(played))
    tamper("DELETE FROM tournaments_logentry WHERE game_id = %s", [played.pk])
    for _ in range(count):  # as many entries, chained properly, by someone who can write the table
        log(game=played, action="round_close", reason="nothing happened")
    assert selectors.log_check(game=played, rows=False).ok  # the chain holds on its own...
    assert selectors.log_check(game=played).broken.problem == "unchained"  # ...the rows it chained are gone
    check = selectors.log_check(game=played, heads=selectors.record_heads(json.loads(record.read_text())))
    assert check.broken.problem == "rewritten"
    assert check.broken.seq == json.loads(record.read_text())["log_chain"]["rounds"][0]["seq"]


def test_the_migration_chains_existing_entries_as_the_service_does(make_game):
    first, second = make_game(), make_game()
    for number in range(3):  # interleaved: each game's chain follows its own entries, by id
        services.player_register(game=first, name=f"A{number}")
        services.player_register(game=second, name=f"B{number}")
    written = {row.pk: (row.seq, row.prev_hash, row.hash) for row in LogEntry.objects.all()}
    tamper("UPDATE tournaments_logentry SET seq = seq + 1000, prev_hash = '', hash = ''")
    chain_migration.chain_existing(
        django_apps, SimpleNamespace(connection=connection, execute=lambda sql: connection.cursor().execute(sql))
    )
    assert {row.pk: (row.seq, row.prev_hash, row.hash) for row in LogEntry.objects.all()} == written
    assert selectors.log_check(game=first).ok and selectors.log_check(game=second).ok


# --------------------------------------------------------------------------------------------------
# The heads printed on the record


def test_the_record_prints_each_round_s_chain_head(played, tmp_path):
    record = export_record(played)
    chain = record["log_chain"]
    rows = entries(played)
    by_seq = {row.seq: row for row in rows}
    assert [head["round"] for head in chain["rounds"]] == [1, 2]
    for head in chain["rounds"]:
        entry = by_seq[head["seq"]]
        assert entry.hash == head["hash"] and entry.round.number == head["round"]
        assert not any(row.round_id == entry.round_id for row in rows if row.seq > entry.seq)
    assert chain["head"] == {"seq": rows[-1].seq, "hash": rows[-1].hash}
    text = pdf_text(render_record(sources.game_record_sheet(played)), tmp_path)
    for head in [*chain["rounds"], chain["head"]]:
        assert head["hash"] in text


def test_the_console_shows_whether_the_chain_holds(played, client, arbitrator):
    client.force_login(arbitrator)
    page = client.get(f"/console/games/{played.pk}/log/")
    assert page.status_code == 200
    assert b'data-chain="holds"' in page.content and b"round_close" in page.content
    victim = entries(played)[3]
    tamper("UPDATE tournaments_logentry SET reason = %s WHERE id = %s", ["edited", victim.pk])
    page = client.get(f"/console/games/{played.pk}/log/")
    assert b'data-chain="broken"' in page.content and f'data-seq="{victim.seq}"'.encode() in page.content


# --------------------------------------------------------------------------------------------------
# PostgreSQL: TRUNCATE, the application's role, concurrent appends


def _refused(sql: str) -> str:
    """The database's refusal of ``sql`` (its transaction rolled back to a savepoint), or fail. The foreign key
    checks the test's writes left deferred run first: PostgreSQL refuses TRUNCATE and ALTER TABLE while
    they are queued, which would hide the refusal looked for."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(sql)
    except DatabaseError as error:
        return str(error)
    raise AssertionError(f"{sql!r} was allowed")


@postgres_only
def test_truncate_is_refused_and_a_truncate_past_the_trigger_is_found(played, tmp_path):
    record = write_record(played, tmp_path)
    assert "append-only" in _refused("TRUNCATE tournaments_logentry")
    assert LogEntry.objects.filter(game=played).count() > 0
    # Whoever owns the tables drops the trigger and truncates; the game goes on with a fresh chain.
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("DROP TRIGGER tournaments_logentry_no_truncate ON tournaments_logentry")
        cursor.execute("TRUNCATE tournaments_logentry")
    log(game=played, action="round_draw")
    assert selectors.log_check(game=played, rows=False).ok  # the chain left holds on its own...
    assert selectors.log_check(game=played).broken.problem == "unchained"  # (the rows it chained are on none)
    heads = selectors.record_heads(json.loads(record.read_text()))
    check = selectors.log_check(game=played, heads=heads)  # ...but not through the record's heads
    assert not check.ok and check.broken.seq == heads[0]["seq"] and check.broken.problem in ("missing", "rewritten")
    with pytest.raises(CommandError, match="broken log chain"):
        verifylog(played.pk, "--record", record)


@postgres_only
def test_the_application_role_can_neither_truncate_nor_delete_the_log(played, make_game):
    game = make_game()
    script = (ROOT / "docker" / "postgres" / "10-app-role.sql").read_text(encoding="utf-8")
    with connection.cursor() as cursor:
        cursor.execute(script)  # as the owner, after the migrations (the role is rolled back with the test)
        cursor.execute("SET LOCAL ROLE arbiter_app")
    try:
        assert "permission denied" in _refused("TRUNCATE tournaments_logentry")
        assert "permission denied" in _refused("DELETE FROM tournaments_logentry")
        assert "permission denied" in _refused("UPDATE tournaments_logentry SET reason = 'x'")
        assert "must be owner" in _refused(
            "ALTER TABLE tournaments_logentry DISABLE TRIGGER tournaments_logentry_append_only")
        assert "must be owner" in _refused("DROP TRIGGER tournaments_logentry_no_truncate ON tournaments_logentry")
        assert "must be owner" in _refused("ALTER TABLE tournaments_logentry OWNER TO arbiter_app")
        # The role does its work: the services write rows and append to the log.
        before = LogEntry.objects.filter(game=game).count()
        services.player_register(game=game, name="Late Comer", table=9)
        services.round_draw(game=game, rack="AEINRST")
        assert LogEntry.objects.filter(game=game).count() == before + 2
        assert selectors.log_check(game=game).ok and selectors.log_check(game=played).ok
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")


@postgres_only
def test_the_migration_takes_update_delete_truncate_on_the_log_from_other_roles(played):
    with connection.cursor() as cursor:
        cursor.execute("CREATE ROLE arbiter_test_other NOLOGIN")
        cursor.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO arbiter_test_other")
        cursor.execute(chain_migration.REVOKE_FROM_OTHERS)
        cursor.execute("SET LOCAL ROLE arbiter_test_other")
    try:
        assert "permission denied" in _refused("TRUNCATE tournaments_logentry")
        assert "permission denied" in _refused("DELETE FROM tournaments_logentry")
        assert LogEntry.objects.filter(game=played).exists()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_entries_appended_at_once_never_fork_the_chain(make_game):
    game = make_game()
    players = [services.player_register(game=game, name=f"Player {n}", table=n + 1)[0] for n in range(8)]
    start = threading.Barrier(len(players))
    failures = []

    def append(player):
        try:
            start.wait()
            for number in range(15):
                with transaction.atomic():
                    log(game=game, action="player_table", player=player, after={"n": number})
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=append, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    rows = entries(game)
    assert len(rows) == 8 + 8 * 15
    assert [row.seq for row in rows] == list(range(1, len(rows) + 1))
    assert selectors.log_check(game=game).ok


# --------------------------------------------------------------------------------------------------
# The admin


READ_ONLY = [Tournament, Game, Player, Round, Slip, LateSlip, Result, GameArbitrator, LogEntry]


@pytest.fixture
def superuser_client(client, django_user_model):
    user = django_user_model.objects.create_superuser(username="root", password="root-password-0123")
    client.force_login(user)
    return client


def test_the_admin_changes_no_result(played, superuser_client):
    result = Result.objects.filter(round__game=played).order_by("pk").first()
    url = reverse("admin:tournaments_result_change", args=[result.pk])
    assert superuser_client.get(url).status_code == 200  # it can be looked at
    answer = superuser_client.post(url, {
        "round": result.round_id, "player": result.player_id, "paid": 609, "outcome": result.outcome,
        "reason": result.reason, "corrected": "on",
    })
    assert answer.status_code == 403
    result.refresh_from_db()
    assert result.paid != 609
    assert selectors.log_check(game=played).ok


@pytest.mark.parametrize("model", READ_ONLY, ids=lambda model: model.__name__)
def test_the_admin_adds_changes_and_deletes_no_game_data(played, superuser_client, arbitrator, model):
    services.arbitrator_set(game=played, username=arbitrator.get_username(), role="head", actor=arbitrator)
    name = model._meta.model_name
    assert superuser_client.get(reverse(f"admin:tournaments_{name}_changelist")).status_code == 200
    assert superuser_client.get(reverse(f"admin:tournaments_{name}_add")).status_code == 403
    assert superuser_client.post(reverse(f"admin:tournaments_{name}_add"), {}).status_code == 403
    count = model.objects.count()
    row = model.objects.order_by("pk").first()
    if row is not None:
        assert superuser_client.post(reverse(f"admin:tournaments_{name}_change", args=[row.pk]), {}).status_code == 403
        assert superuser_client.post(reverse(f"admin:tournaments_{name}_delete", args=[row.pk]),
                                     {"post": "yes"}).status_code == 403
        answer = superuser_client.post(reverse(f"admin:tournaments_{name}_changelist"),
                                       {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"})
        assert answer.status_code in (200, 302, 403)
    assert model.objects.count() == count


def test_the_admin_shows_no_game_secret(played, superuser_client):
    page = superuser_client.get(reverse("admin:tournaments_game_change", args=[played.pk])).content.decode()
    assert played.join_code not in page and played.screen_key not in page
