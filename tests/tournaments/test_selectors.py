"""What the read side shows, and above all what it hides before a round closes."""

from __future__ import annotations

import json

import pytest

from tournaments import selectors, services
from tournaments.live import snapshot as live_snapshot
from tournaments.versions import game_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(game, make_player):
    ann, _ = make_player(game, "Ann", table=1)
    bob, _ = make_player(game, "Bob", table=2)
    cleo, _ = make_player(game, "Cleo", table=3)
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"))
    services.slip_submit(round=rnd, player=ann, word="MELANIC", ref="H4", score=78, key="a")
    services.slip_submit(round=rnd, player=bob, word="CLIMANE", ref="H4", score=12, key="b")
    game.refresh_from_db()
    return game, rnd, ann, bob, cleo


def test_before_the_close_nobody_sees_tops_or_other_slips(table):
    game, rnd, ann, bob, cleo = table
    services.round_compute_tops(round=rnd)
    rnd.refresh_from_db()
    for view in (
        selectors.round_detail(round=rnd, arbitrator=True),
        selectors.round_detail(round=rnd, player=ann),
        selectors.round_detail(round=rnd),
    ):
        assert view["top_score"] is None and view["tops"] is None and view["master"] is None
        assert view["results"] is None
    mine = selectors.round_detail(round=rnd, player=bob)
    assert mine["slip"]["word"] == "CLIMANE"
    assert "MELANIC" not in json.dumps(mine)
    assert "MELANIC" not in json.dumps(selectors.game_state(game=game))
    assert selectors.round_detail(round=rnd, player=cleo)["slip"] is None
    arbitrator_view = selectors.round_detail(round=rnd, arbitrator=True)
    assert arbitrator_view["tops_ready"] and not arbitrator_view["no_play"]
    assert "MELANIC" not in json.dumps(arbitrator_view) and "CLIMANE" not in json.dumps(arbitrator_view)


def test_progress_counts_slips_and_names_who_is_missing(table):
    game, rnd, ann, bob, cleo = table
    progress = selectors.round_progress(round=rnd)
    assert progress == {"received": 2, "players": 3, "missing": [{"id": cleo.pk, "name": "Cleo", "table": 3}]}


def test_after_the_close_the_round_shows_tops_master_and_results(table):
    game, rnd, ann, bob, cleo = table
    services.round_close(round=rnd)
    rnd.refresh_from_db()
    view = selectors.round_detail(round=rnd, player=bob)
    assert view["top_score"] == 78
    assert sorted(t["ref"] for t in view["tops"]) == ["H4", "H6"]
    assert view["master"]["word"] == "MELANIC" and view["master"]["ref"] in ("H4", "H6")
    rows = {row["name"]: row for row in view["results"]}
    assert (rows["Ann"]["paid"], rows["Ann"]["outcome"], rows["Ann"]["top"]) == (78, "ok", True)
    assert (rows["Bob"]["paid"], rows["Bob"]["outcome"], rows["Bob"]["reason"]) == (0, "zero", "invalid_word")
    assert (rows["Cleo"]["word"], rows["Cleo"]["reason"]) == (None, "no_slip")


def test_game_state_and_live_follow_each_change(table, django_capture_on_commit_callbacks):
    game, rnd, ann, bob, cleo = table
    state = selectors.game_state(game=game)
    assert state["round"] == 1 and state["round_status"] == "open" and state["rack"] == "ACEILMN"
    assert len(state["board"]) == 15 and all(row == "." * 15 for row in state["board"])
    assert state["bag_count"] == 93 and state["players"] == 3 and state["coordinates"] == "rows-letters"
    before = game_version(game.pk)
    live = live_snapshot.live_body(game.pk)
    assert (live["version"], live["status"], live["round"], live["round_status"]) == (before, "playing", 1, "open")
    assert live["deadline"] == rnd.deadline.isoformat() and live["server_time"]
    with django_capture_on_commit_callbacks(execute=True):
        services.round_close(round=rnd)
    assert game_version(game.pk) > before
    live = live_snapshot.live_body(game.pk)
    assert live["round_status"] == "closed" and live["version"] == game_version(game.pk)
    game.refresh_from_db()
    state = selectors.game_state(game=game)
    assert "MELANIC" in state["board"][7]
    assert live_snapshot.live_body(10**9) is None


def test_player_rounds_and_game_record(table):
    game, rnd, ann, bob, cleo = table
    services.round_close(round=rnd)
    second = services.round_start(round=services.round_draw(game=game))
    services.round_close(round=second)
    second.refresh_from_db()
    rows = selectors.player_rounds(game=game, player=ann)
    assert [r["number"] for r in rows] == [1, 2]
    assert (rows[0]["word"], rows[0]["paid"], rows[0]["total"], rows[0]["top_total"]) == ("MELANIC", 78, 78, 78)
    assert (rows[1]["reason"], rows[1]["total"], rows[1]["top_total"]) == ("no_slip", 78, 78 + second.top_score)
    game.refresh_from_db()
    record = selectors.game_record(game=game)
    assert [r["number"] for r in record["rounds"]] == [1, 2]
    assert record["rounds"][0]["master"]["score"] == 78 and record["rounds"][0]["tops"] == 2
    assert record["top_total"] == 78 + second.top_score
    assert record["board"] == game.board and "MELANIC" in game.board[7]


@pytest.mark.usefixtures("isolated_cache")  # the review caches the round's plays: keys of this test's own
def test_found_the_top_is_counted_once_for_the_review_and_the_solutions_sheet(make_game, make_player, arbitrator,
                                                                            monkeypatch, tmp_path):
    """A round's players are every player of the game at that round, with a slip or without one (none, a late
    one, a zero), not one who joined later: the review and the solutions sheet both say "N of M players found
    the top" from selectors.found_top."""
    from datetime import timedelta

    from django.utils import timezone

    from tournaments import review_selectors
    from tournaments.errors import ServiceError
    from tournaments.sheets.solutions import render_solutions
    from tournaments.sheets.solutions_source import solutions_sheet

    from .sheets_support import pdf_text

    game = make_game(round_seconds=60)
    ann, bob, cid, dee, eve = (make_player(game, name, table=n)[0]
                               for n, name in enumerate(("Ann", "Bob", "Cid", "Dee", "Eve"), 1))
    rnd = services.round_start(round=services.round_draw(game=game, rack="ACEILMN"),
                               now=timezone.now() - timedelta(seconds=61))
    rnd = services.round_compute_tops(round=rnd)
    top = rnd.master
    sent = rnd.deadline - timedelta(seconds=10)
    services.slip_submit(round=rnd, player=ann, word=top["word"], ref=top["ref"], score=top["score"], key="a",
                         now=sent)
    services.slip_submit(round=rnd, player=bob, word=top["word"], ref=top["ref"], score=top["score"], key="b",
                         now=sent)
    services.slip_submit(round=rnd, player=eve, word="CLIMANE", ref="H4", score=12, key="e", now=sent)
    with pytest.raises(ServiceError):  # Dee's top arrives after the end call: kept, read late, paid 0
        services.slip_submit(round=rnd, player=dee, word=top["word"], ref=top["ref"], score=top["score"], key="d",
                             now=rnd.deadline + timedelta(seconds=3))
    rnd.refresh_from_db()
    assert rnd.status == "closed"
    make_player(game, "Fay", table=6)  # joins after the round: her result of it reads absent
    services.game_end(game=game)
    game.refresh_from_db()
    reasons = dict(rnd.results.values_list("player__name", "reason"))
    assert (reasons["Cid"], reasons["Dee"], reasons["Fay"]) == ("no_slip", "late", "absent")

    calls = []
    counted = selectors.found_top

    def spy(*, rounds):
        calls.append([r.pk for r in rounds])
        return counted(rounds=rounds)

    monkeypatch.setattr(selectors, "found_top", spy)
    assert counted(rounds=[rnd]) == {rnd.pk: {"found": 2, "players": 5}}  # Ann, Bob of the five but Fay

    review = review_selectors.player_review(game, cid, 1)["round"]["found_top"]
    line = solutions_sheet(game).rounds[0]
    assert review == {"found": 2, "players": 5} and (line.found_top, line.players) == (2, 5)
    assert calls == [[rnd.pk], [rnd.pk]]  # each from the one function

    from django.test import Client

    client = Client()
    client.force_login(arbitrator)
    body = client.get(f"/games/{game.pk}/review.json", {"player": cid.pk, "round": 1}).json()
    assert body["round"]["found_top"]["text"] == "2 of 5 players found the top"
    flat = " ".join(pdf_text(render_solutions(solutions_sheet(game)), tmp_path).split())
    assert "2 of 5 players found the top" in flat
