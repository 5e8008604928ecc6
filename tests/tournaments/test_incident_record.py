"""The game record (JSON and PDF) shows paused, extended and cancelled rounds and a replaced rack; a restore
plays them back into the same rounds."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.exports import export_record, restore_record
from tournaments.models import Result, Round
from tournaments.sheets import sources
from tournaments.sheets.record import render_record

from .sheets_support import pdf_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]


def incident_game(make_game, make_player, arbitrator):
    """Round 1: EIRST?A typed, replaced by EIRSTSA, paused across its deadline, extended, resumed, closed.
    Round 2: drawn, started, a slip, cancelled; drawn again under number 2 and closed."""
    game = make_game(round_seconds=60)
    ann, _ = make_player(game, "Ann", table=1)
    bob, _ = make_player(game, "Bob", table=2)
    t0 = timezone.now() - timedelta(hours=1)
    first = services.round_draw(game=game, rack="EIRST?A", actor=arbitrator)
    first = services.round_fix_rack(round=first, rack="EIRSTSA", reason="a S was typed as a blank",
                                    actor=arbitrator, now=t0 - timedelta(seconds=5))
    first = services.round_start(round=first, actor=arbitrator, now=t0)
    services.slip_submit(round=first, player=ann, word="SATIRES", ref="H2", score=70, key="a",
                         now=t0 + timedelta(seconds=5))
    services.round_pause(round=first, reason="a player was taken ill", actor=arbitrator, now=t0 + timedelta(seconds=10))
    services.round_extend(round=first, seconds=30, reason="time lost to the illness", actor=arbitrator,
                          now=t0 + timedelta(seconds=20))
    first = services.round_resume(round=first, reason="play on", actor=arbitrator, now=t0 + timedelta(seconds=100))
    assert first.deadline == t0 + timedelta(seconds=180)  # 50 s left + 30 s from the resume
    # Past the original deadline (t0 + 60 s): still in time.
    services.slip_submit(round=first, player=bob, word="SATIRES", ref="H8", score=77, key="b",
                         now=t0 + timedelta(seconds=110))
    assert services.round_close(round=first, now=first.deadline) is True

    second = services.round_start(round=services.round_draw(game=game, actor=arbitrator), actor=arbitrator,
                                  now=t0 + timedelta(seconds=300))
    services.slip_submit(round=second, player=ann, word="ZZZ", ref="A1", score=1, key="c",
                         now=t0 + timedelta(seconds=310))
    services.round_cancel(round=second, reason="the bag was mishandled", actor=arbitrator,
                          now=t0 + timedelta(seconds=320))
    again = services.round_start(round=services.round_draw(game=game, actor=arbitrator), actor=arbitrator,
                                 now=t0 + timedelta(seconds=400))
    services.round_close(round=again, now=t0 + timedelta(seconds=460))
    return game


def shape(record: dict) -> list:
    """What a restore must give back, round by round."""
    names = {player["key"]: player["name"] for player in record["players"]}
    kept = ("number", "status", "rack", "typed", "started_at", "deadline", "closed_at", "extended_seconds",
            "cancel_reason", "paused_at", "time_left", "top_score")
    return [
        ({key: entry[key] for key in kept},
         [{k: v for k, v in incident.items() if k != "by"} for incident in entry["incidents"]],
         [(names[s["player"]], s["word"], s["ref"], s["claimed"], s["received_at"]) for s in entry["slips"]],
         [(r["paid"], r["outcome"], r["reason"]) for r in entry["results"]])
        for entry in record["rounds"]
    ]


def test_the_record_shows_the_incidents_and_a_restore_rebuilds_them(make_game, make_player, arbitrator, tmp_path):
    game = incident_game(make_game, make_player, arbitrator)
    # Over: the record carries the seed that draws the random racks again (a game in play withholds it).
    game = services.game_end(game=game, actor=arbitrator)
    record = json.loads(json.dumps(export_record(game)))
    rounds = record["rounds"]
    assert [(r["number"], r["status"]) for r in rounds] == [(1, "closed"), (2, "cancelled"), (2, "closed")]
    first, cancelled, redrawn = rounds
    assert [i["action"] for i in first["incidents"]] == ["rack_fix", "pause", "extend", "resume"]
    assert first["extended_seconds"] == 30 and first["incidents"][1]["time_left"] == 50.0
    assert first["incidents"][0]["before"] == "AEIRST?" and first["incidents"][0]["after"] == first["rack"]
    assert all(i["by"] == arbitrator.username for i in first["incidents"])
    # Bob's slip, handed in after the original deadline while the clock ran again, was judged and paid.
    assert len(first["results"]) == 2 and all(r["paid"] > 0 and r["reason"] != "late" for r in first["results"])
    assert cancelled["cancel_reason"] == "the bag was mishandled"
    assert [i["action"] for i in cancelled["incidents"]] == ["cancel"]
    assert [s["word"] for s in cancelled["slips"]] == ["ZZZ"] and cancelled["results"] == []
    assert redrawn["number"] == 2 and redrawn["kept"] == cancelled["kept"]

    from django.utils import translation

    with translation.override("fr"):  # asked from a French page: the sheet is in the tournament's English
        sheet = sources.game_record_sheet(game)
    text = " ".join(pdf_text(render_record(sheet), tmp_path, "incidents").split())
    assert "Incidents" in text
    assert "clock paused by" in text and "0:50 left" in text and "a player was taken ill" in text
    assert "extended by 30 s" in text and "time lost to the illness" in text
    assert "clock resumed by" in text and "1:30" in text  # the pause lasted 90 s
    assert "replaced by" in text and "a S was typed as a blank" in text
    assert "round cancelled by" in text and "the bag was mishandled" in text
    assert "(cancelled)" in text

    restored = restore_record(record=record, actor=arbitrator)
    again = json.loads(json.dumps(export_record(restored)))
    assert shape(again) == shape(record)
    assert [{**row, "player": None} for row in again["standings"]] == [
        {**row, "player": None} for row in record["standings"]]
    assert Round.objects.filter(game=restored, status=Round.Status.CANCELLED).get().cancel_reason == \
        "the bag was mishandled"
    paid = {r.player.name: r.paid for r in Result.objects.filter(round__game=restored, round__number=1)}
    assert paid["Bob"] == max(paid.values()) > 0


def test_the_record_counts_the_rounds_that_count_not_the_cancelled_draw(make_game, make_player, arbitrator,
                                                                          tmp_path):
    """Two rounds played and a cancelled draw between them: the record lists the three and says "2 rounds"."""
    game = services.game_end(game=incident_game(make_game, make_player, arbitrator), actor=arbitrator)
    assert game.rounds.count() == 3 and game.rounds.counting().count() == 2
    sheet = sources.game_record_sheet(game)
    assert [line.cancelled for line in sheet.rounds] == [False, True, False]
    text = " ".join(pdf_text(render_record(sheet), tmp_path, "counted").split())
    assert "2 rounds · sum of the tops" in text and "3 rounds" not in text
    assert "(cancelled)" in text
