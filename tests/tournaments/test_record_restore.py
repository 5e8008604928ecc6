"""A game record played back whole: late slips and the arbitrator's admissions of them (after the deadline and
after an early close), players by id (two of one name stay two), roles, the log, the mark of a restored
game, and the server's seal (a record edited since it was sealed is refused, an unsigned one is marked).

Each case is a round trip: the game is played through the services with its recorded times, exported,
restored, and compared player by player, round by round. Also run on PostgreSQL (DATABASE_URL)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from tournaments import selectors, services
from tournaments.errors import ServiceError
from tournaments.exports import export_record, restore_record
from tournaments.models import Game, GameArbitrator, LateSlip, LogEntry, Player, Result, Round, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

TOP = {"word": "MELANIC", "ref": "H4", "score": 78}


def _slip(key: str, word="MELANIC", ref="H4", score=78) -> dict:
    return {"word": word, "ref": ref, "score": score, "key": key}


def _top(round: Round) -> dict:
    master = round.master
    return {"word": master["word"], "ref": master["ref"], "score": master["score"]}


def _late(round: Round, player: Player, key: str, arrived, **slip) -> None:
    with pytest.raises(ServiceError) as refused:
        services.slip_submit(round=round, player=player, **(slip or _slip(key)) | {"key": key}, now=arrived)
    assert refused.value.code == "round_closed"


def play_first_game(tournament, arbitrator, assistant):
    """Two players called Ann and Bob. Round 1: Bob's slip comes 10 s after the deadline and is admitted
    (the venue's fault); the second Ann's paper slip comes late and stays late. Round 2: the head closes
    early, the first Ann's slip comes after that close but before the deadline, and is admitted."""
    game = services.game_create(tournament=tournament, seed=11)
    ann1 = services.player_register(game=game, name="Ann", table=1)[0]
    ann2 = services.player_register(game=game, name="Ann", table=2)[0]
    bob = services.player_register(game=game, name="Bob", table=3)[0]
    services.arbitrator_set(game=game, username=assistant.username, role="assistant", actor=arbitrator)
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=30)

    first = services.round_start(round=services.round_draw(game=game, rack="ACEILMN", actor=arbitrator),
                                 actor=arbitrator, now=start)
    services.slip_submit(round=first, player=ann1, **_slip("a1"), now=start + timedelta(seconds=10))
    services.slip_submit(round=first, player=ann2, **_slip("a2", ref="H3", score=70),
                         now=start + timedelta(seconds=20))
    services.round_close(round=first, actor=arbitrator, now=first.deadline)
    _late(first, bob, "b1", first.deadline + timedelta(seconds=10))
    services.slip_enter_late(round=first, player=ann2, word="MELANIC", ref="H4", score=78, actor=assistant,
                             received_at=first.deadline + timedelta(seconds=30))
    services.late_slip_admit(late=LateSlip.objects.get(round=first, player=bob), reason="the venue's Wi-Fi dropped",
                             actor=arbitrator)

    second_start = start + timedelta(seconds=120)
    closed_at = second_start + timedelta(seconds=30)  # the head closes early: the deadline is 60 s later
    # Started and closed in one transaction: the clock's close, scheduled when the start commits, then finds the
    # round closed (a real worker, tests/tournaments/test_record_import_job.py, could otherwise close it first:
    # its deadline is long past).
    with transaction.atomic():
        second = services.round_start(round=services.round_draw(game=game, actor=arbitrator), actor=arbitrator,
                                      now=second_start)
        services.round_close(round=second, actor=arbitrator, now=closed_at)
    second.refresh_from_db()
    assert second.closed_at < second.deadline
    _late(second, ann1, "a1-2", closed_at + timedelta(seconds=5), **_top(second))
    services.late_slip_admit(late=LateSlip.objects.get(round=second, player=ann1),
                             reason="the close came before the announced time", actor=arbitrator)
    services.game_end(game=game, actor=arbitrator)
    return game


def play_second_game(tournament, arbitrator):
    """The tournament's next game: the first Ann finds the top, the second Ann hands in the same play at
    another reference, Bob nothing."""
    game = services.game_create(tournament=tournament, seed=12)
    players = {p.table: p for p in Player.objects.in_game(game)}
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=10)
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN", actor=arbitrator),
                               actor=arbitrator, now=start)
    services.slip_submit(round=rnd, player=players[1], **_slip("x1"), now=start + timedelta(seconds=5))
    services.slip_submit(round=rnd, player=players[2], **_slip("x2", ref="H3", score=70),
                         now=start + timedelta(seconds=6))
    services.round_close(round=rnd, actor=arbitrator, now=rnd.deadline)
    services.game_end(game=game, actor=arbitrator)
    return game


@pytest.fixture
def assistant(django_user_model):
    return django_user_model.objects.create_user(username="assistant-restore", password="x" * 12, is_staff=True)


def _by_table(game: Game) -> dict:
    """What a comparison needs, players named by their table (ids differ between the two games)."""
    tables = {p.pk: p.table for p in Player.objects.in_game(game)}
    rounds = {r.pk: r.number for r in game.rounds.all()}
    return {
        "totals": sorted((tables[row["player"]], row["name"], row["total"], row["rank"])
                         for row in selectors.game_standings(game=game)),
        "results": sorted((rounds[r.round_id], tables[r.player_id], r.paid, r.outcome, r.reason, r.corrected)
                          for r in Result.objects.filter(round__game=game)),
        "late": sorted((rounds[late.round_id], tables[late.player_id], late.word, late.ref, late.claimed,
                        late.received_at, late.late_by, late.entered_by_id is not None,
                        None if late.admitted is None else (late.admitted.word, late.admitted.received_at))
                       for late in LateSlip.objects.filter(round__game=game).select_related("admitted")),
        "admissions": sorted((rounds[e.round_id], tables[e.player_id], e.reason)
                             for e in LogEntry.objects.filter(game=game, action="late_admit")),
        "rounds": sorted((r.number, r.rack, r.closed_at, r.deadline, r.top_score)
                         for r in game.rounds.filter(status="closed")),
    }


def test_late_slips_and_admissions_are_restored_with_the_same_results(make_tournament, arbitrator, assistant):
    original = play_first_game(make_tournament(name="Late night"), arbitrator, assistant)
    before = _by_table(original)
    assert len(before["late"]) == 3 and len(before["admissions"]) == 2
    record = json.loads(json.dumps(export_record(original)))

    restored = restore_record(record=record, actor=arbitrator)

    after = _by_table(restored)
    assert after == before
    # Ann's admitted slip after the early close is still a late slip admitted, not an ordinary one.
    second = restored.rounds.get(number=2)
    late = LateSlip.objects.get(round=second)
    assert late.late_by == 5.0 and late.admitted is not None and late.admitted.key.startswith("admitted:")
    # Same totals: 176/68 would have become 122/20 had the two Anns been merged.
    assert [row[2] for row in after["totals"]] == [row[2] for row in before["totals"]]
    assert Player.objects.in_game(restored).filter(name="Ann").count() == 2


def test_the_restored_game_is_marked_keeps_its_roles_and_its_log(make_tournament, arbitrator, assistant,
                                                                 django_user_model):
    original = play_first_game(make_tournament(name="Roles"), arbitrator, assistant)
    record = json.loads(json.dumps(export_record(original)))
    importer = django_user_model.objects.create_user(username="importer", password="x" * 12, is_staff=True)

    restored = restore_record(record=record, actor=importer)

    assert restored.restored_at is not None and restored.record_seal == "this_server"
    roles = {(row.user.username, row.role) for row in GameArbitrator.objects.filter(game=restored)}
    assert roles == {(arbitrator.username, "head"), (assistant.username, "assistant"), ("importer", "head")}
    entry = LogEntry.objects.get(game=restored, action="game_restore")
    assert entry.actor == importer and entry.after["seal"] == "this_server"
    assert entry.after["log"] == record["log"]
    assert [e["action"] for e in entry.after["log"]] == list(
        LogEntry.objects.filter(game=original).order_by("id").values_list("action", flat=True))
    assert {"late_admit", "late_enter", "arbitrator_role", "round_close"} <= {e["action"] for e in record["log"]}
    again = export_record(restored)
    assert again["game"]["record_seal"] == "this_server" and again["game"]["restored_at"]


def test_a_later_game_finds_its_players_by_id_never_by_name(make_tournament, arbitrator, assistant):
    tournament = make_tournament(name="Two Anns")
    first = play_first_game(tournament, arbitrator, assistant)
    second = play_second_game(tournament, arbitrator)
    copy = restore_record(record=export_record(first), actor=arbitrator)
    later = restore_record(record=export_record(second), tournament=copy.tournament, actor=arbitrator)

    assert copy.tournament.players.count() == tournament.players.count() == 3
    assert _by_table(later) == _by_table(second)

    def totals(t: Tournament) -> list[tuple]:
        return sorted((row["name"], row["total"]) for row in selectors.tournament_standings(tournament=t))

    assert totals(copy.tournament) == totals(tournament)


def play_plain_game(tournament, arbitrator):
    """Two Anns and Bob, one round, no late slip: the second Ann finds the top."""
    first = services.game_create(tournament=tournament, seed=21)
    for table, name in ((1, "Ann"), (2, "Ann"), (3, "Bob")):
        services.player_register(game=first, name=name, table=table)
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=20)
    rnd = services.round_start(round=services.round_draw(game=first, rack="ACEILMN", actor=arbitrator),
                               actor=arbitrator, now=start)
    players = {p.table: p for p in Player.objects.in_game(first)}
    services.slip_submit(round=rnd, player=players[2], **_slip("y2"), now=start + timedelta(seconds=5))
    services.round_close(round=rnd, actor=arbitrator, now=rnd.deadline)
    services.game_end(game=first, actor=arbitrator)
    first.refresh_from_db()
    return first


def test_two_players_of_one_name_stay_two_in_a_later_game(make_tournament, arbitrator):
    """No late slip here: only the names are at stake (restored by name, the two Anns' totals merged)."""
    tournament = make_tournament(name="Namesakes")
    first = play_plain_game(tournament, arbitrator)
    second = play_second_game(tournament, arbitrator)

    copy = restore_record(record=export_record(first), actor=arbitrator)
    later = restore_record(record=export_record(second), tournament=copy.tournament, actor=arbitrator)

    assert _by_table(later)["totals"] == _by_table(second)["totals"]
    assert sorted(row["total"] for row in selectors.tournament_standings(tournament=copy.tournament)) == sorted(
        row["total"] for row in selectors.tournament_standings(tournament=tournament))


def test_a_record_restored_into_its_own_tournament_keeps_two_players_of_one_name(make_tournament, arbitrator,
                                                                                 assistant):
    tournament = make_tournament(name="Same place")
    first = play_first_game(tournament, arbitrator, assistant)
    record = export_record(first)
    restored = restore_record(record=record, tournament=tournament, actor=arbitrator)
    assert _by_table(restored)["totals"] == _by_table(first)["totals"]


# --------------------------------------------------------------------------------------------------
# The seal


def test_a_record_edited_after_it_was_sealed_is_refused_and_nothing_is_imported(make_tournament, arbitrator,
                                                                               assistant, arbitrator_client):
    original = play_first_game(make_tournament(name="Sealed"), arbitrator, assistant)
    record = json.loads(json.dumps(export_record(original)))
    record["rounds"][0]["results"][0]["paid"] = 609
    record["rounds"][0]["slips"][1]["claimed"] = 78  # the second Ann's 70 made a top
    counts = Tournament.objects.count(), Game.objects.count(), Player.objects.count()
    response = arbitrator_client.post(f"/api/tournaments/{original.tournament_id}/imports/record", record,
                                      format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "bad_seal" and "seal" in error["fields"]
    assert (Tournament.objects.count(), Game.objects.count(), Player.objects.count()) == counts


def test_an_unsigned_record_is_imported_and_marked(make_tournament, arbitrator, assistant, arbitrator_client):
    original = play_first_game(make_tournament(name="Unsigned"), arbitrator, assistant)
    record = json.loads(json.dumps(export_record(original)))
    del record["seal"]
    response = arbitrator_client.post(f"/api/tournaments/{original.tournament_id}/imports/record", record,
                                      format="json")
    assert response.status_code == 201, response.content
    game = Game.objects.get(pk=response.json()["game"])
    assert (game.record_seal, game.record_signer) == ("unsigned", "") and game.restored_at is not None
    assert response.json()["record_seal"] == "unsigned"
    state = arbitrator_client.get(f"/api/games/{game.pk}").json()
    assert state["restored"]["seal"] == "unsigned" and state["restored"]["at"]


def test_a_record_sealed_by_another_server_is_imported_as_unknown_or_trusted(make_tournament, arbitrator,
                                                                             assistant, settings):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tournaments import seal
    from tournaments.exports.record import seal_record

    original = play_first_game(make_tournament(name="Elsewhere"), arbitrator, assistant)
    record = json.loads(json.dumps(export_record(original)))
    other = Ed25519PrivateKey.generate()
    seed = other.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                               serialization.NoEncryption())
    mine = settings.ARBITER_SIGNING_KEY if hasattr(settings, "ARBITER_SIGNING_KEY") else ""
    settings.ARBITER_SIGNING_KEY = seal._b64(seed)
    foreign = seal_record(record)
    other_key = seal.public_key()
    settings.ARBITER_SIGNING_KEY = mine
    assert foreign["seal"]["key"] == other_key != seal.public_key()

    game = restore_record(record=json.loads(json.dumps(foreign)), actor=arbitrator)
    assert (game.record_seal, game.record_signer) == ("unknown_key", other_key)
    settings.ARBITER_TRUSTED_SIGNING_KEYS = [other_key]
    game = restore_record(record=json.loads(json.dumps(foreign)), actor=arbitrator)
    assert game.record_seal == "trusted"


# --------------------------------------------------------------------------------------------------
# What would stop the database or the clock halfway: a clear 400, nothing imported


def _set_name(record: dict, name: str) -> None:
    record["players"][0]["name"] = name


@pytest.mark.parametrize(("change", "code", "field"), [
    (lambda r: r["players"][0].update({"name\x00": "x"}), "bad_record", "players"),
    (lambda r: _set_name(r, "Ann\x00Lee"), "bad_record", "players"),
    (lambda r: r["rounds"][0]["slips"][0].update(key="k\x00"), "bad_record", "rounds"),
    (lambda r: r["rounds"][0]["slips"][0].update(key="a\ud800"), "bad_record", "rounds"),
    (lambda r: r["rounds"][0].update(started_at="9999-12-31T23:59:00+00:00"), "bad_record", "rounds"),
    (lambda r: r["rounds"][0]["incidents"].append({"action": "pause", "at": "9999-12-31T23:59:59"}), "bad_record",
     "record"),
    (lambda r: r["players"][0].update(key=[1]), "bad_record", "players"),
    (lambda r: r["game"].update(seed=-1), "bad_seed", "seed"),
    (lambda r: r["game"].update(seed=2**63), "bad_seed", "seed"),
    (lambda r: _set_name(r, "\u0301\u0308\u0301"), "name_required", "name"),
], ids=["nul-in-key", "nul-in-name", "nul-in-slip-key", "lone-surrogate", "year-9999", "incident-in-9999", "key-a-list", "seed-minus-one", "seed-too-large",
        "only-combining-marks"])
def test_a_record_the_database_could_not_hold_is_refused_with_a_clear_400(make_tournament, arbitrator,
                                                                          arbitrator_client, change, code, field):
    original = play_plain_game(make_tournament(name="Probe"), arbitrator)
    record = json.loads(json.dumps(export_record(original)))
    change(record)
    record.pop("seal", None)  # edited: what is refused is the content
    counts = Tournament.objects.count(), Game.objects.count(), Player.objects.count(), Round.objects.count()
    body = json.dumps(record, ensure_ascii=True)  # \u0000 and \ud800 escaped, as a client sends them
    response = arbitrator_client.post(f"/api/tournaments/{original.tournament_id}/imports/record", body,
                                      content_type="application/json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == code and field in error["fields"], error
    assert (Tournament.objects.count(), Game.objects.count(), Player.objects.count(),
            Round.objects.count()) == counts
