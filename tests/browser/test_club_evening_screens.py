"""In real Chromium, the screens of a club evening left open for hours: the projector and a phone mark the
last master move and only it, live, after a change of master and after a reload alike; at the end the
projector's headline is the final standings and its words say what they measure, the phone shows the
player's percentage of the top with links to the review and to training; a tile's two-digit value never
covers its letter. Screenshots in /tmp/h/shots/hc/."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

SHOTS = Path("/tmp/h/shots/hc")

# The squares marked as new on a board, in reading order.
MARKED = """(id) => Array.from(document.querySelectorAll(`#${id} td.sq.fresh`))
  .map((td) => [Number(td.dataset.r), Number(td.dataset.c)])
  .sort((a, b) => a[0] - b[0] || a[1] - b[1])"""


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def _new_squares(before: list[str], after: list[str]) -> list[list[int]]:
    """The squares empty on ``before`` that hold a tile on ``after``: the move between the two boards."""
    return [[r, c] for r in range(15) for c in range(15) if before[r][c] == "." and after[r][c] != "."]


def _play_round(game):
    """A round drawn, opened and closed at once (no slip needed); None when it had no play (cancelled)."""
    from tournaments import services
    from tournaments.models import Round

    round_ = services.round_draw(game=game)
    round_ = services.round_start(round=round_)
    services.round_compute_tops(round=round_)
    services.round_close(round=round_)
    round_ = Round.objects.get(pk=round_.pk)
    return round_ if round_.status == Round.Status.CLOSED else None


def _marked(page) -> list[list[int]]:
    return page.evaluate(MARKED, "board")


def _wait_marked(pages, expected, what: str) -> None:
    for name, page in pages.items():
        try:
            wait_for(lambda page=page: _marked(page) == expected, timeout=10)
        except AssertionError:
            raise AssertionError(f"{name}, {what}: marked {_marked(page)}, expected {expected}") from None


def test_only_the_last_master_move_is_marked_live_after_a_master_change_and_a_reload(
        new_page, make_game, make_player):
    from tournaments import services
    from tournaments.models import Game

    game = make_game(seed=11)
    _player, token = make_player(game, "Ann", table=1)
    projector = new_page("projector")
    projector.goto(f"/projector/{game.screen_key}")
    phone = new_page("phone")
    phone.goto(f"/games/{game.pk}/play#token={token}")
    pages = {"projector": projector, "phone": phone}
    for page in pages.values():
        page.wait_for_selector("#board td.sq")
        assert _marked(page) == []

    # Round 1: its master alone is marked.
    first = _play_round(game)
    assert first is not None
    game.refresh_from_db()
    expected = _new_squares(first.board, game.board)
    assert expected
    _wait_marked(pages, expected, "round 1")

    # The arbitrator makes the other direction's top the master (a first move is always tied across and down):
    # the new master's squares are marked, the old one's not, the square both cover included.
    other = next(t for t in first.tops if (t["row"], t["col"], t["horizontal"]) != (
        first.master["row"], first.master["col"], first.master["horizontal"]))
    services.round_choose_master(round=first, word=other["word"], ref=other["ref"])
    game.refresh_from_db()
    changed = _new_squares(first.board, game.board)
    assert changed != expected
    _wait_marked(pages, changed, "after the master change")

    # Rounds 2 and 3 on the same pages: each time the last master alone, never the moves before it.
    closed = 1
    for _ in range(6):
        if closed == 3:
            break
        round_ = _play_round(game)
        game.refresh_from_db()
        if round_ is None:
            continue
        closed += 1
        expected = _new_squares(round_.board, game.board)
        _wait_marked(pages, expected, f"round {round_.number}")
    assert closed == 3
    # The next rack drawn: the board still shows the last master as the last move.
    if game.status != Game.Status.OVER:
        services.round_draw(game=game)
        for page in pages.values():
            page.wait_for_selector("#rack .rtile")
        _wait_marked(pages, expected, "next rack drawn")
    _shot(projector, "marks-projector-live")
    _shot(phone, "marks-phone-live")
    live = {name: _marked(page) for name, page in pages.items()}

    # A reload shows exactly what the page left open shows, from the server's first rendering on.
    for name, page in pages.items():
        page.reload()
        page.wait_for_selector("#board td.sq")
        rendered = page.evaluate("""() => Array.from(document.querySelectorAll('#board td.sq.fresh'))
          .map((td) => [Number(td.dataset.r), Number(td.dataset.c)])""")
        assert sorted(rendered) == expected, (name, rendered)
        _wait_marked({name: page}, live[name], "after a reload")
        assert not page.errors, page.errors
    _shot(projector, "marks-projector-reloaded")
    _shot(phone, "marks-phone-reloaded")
