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
            wait_for(lambda page=page: _marked(page) == expected, timeout=20)
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


def test_the_end_of_the_game_on_the_projector_and_the_phone(new_page, make_game, make_player):
    from tournaments import services
    from tournaments.models import Round
    from tournaments.versions import notify_game_changed

    game = make_game(seed=5)
    ann, token = make_player(game, "Ann", table=1)
    make_player(game, "Bob", table=2)
    # Ann hands in the master of round 1 and nothing in round 2: her total is the first top alone.
    tops = []
    for number in (1, 2):
        for _ in range(4):
            round_ = services.round_start(round=services.round_draw(game=game))
            round_ = services.round_compute_tops(round=round_)
            round_ = Round.objects.get(pk=round_.pk)
            if round_.top_score is None:
                services.round_close(round=round_)
                continue
            if number == 1:
                master = round_.master
                services.slip_submit(round=round_, player=ann, word=master["word"], ref=master["ref"],
                                     score=master["score"], key="ann-1")
            services.round_close(round=round_)
            tops.append(round_.top_score)
            break
    assert len(tops) == 2
    total, sum_tops = tops[0], sum(tops)

    projector = new_page("projector")
    projector.goto(f"/projector/{game.screen_key}")
    phone = new_page("phone")
    phone.set_viewport_size({"width": 360, "height": 780})
    phone.goto(f"/games/{game.pk}/play#token={token}")
    projector.wait_for_selector("#last:not([hidden])")
    # The round's top beside its master says what it is; the standings' column what it measures.
    assert projector.locator("#last-top").inner_text() == f"Top: {tops[1]} points"
    headers = projector.locator("#standings thead th").all_inner_texts()
    assert [h.replace("\n", " ") for h in headers] == ["Rank", "Player", "Total", "Behind the sum of tops"]
    assert projector.locator("#call").inner_text() == "Round closed"

    # The arbitrator ends the game; Bob's paper slips may still come: the game is over, not yet final.
    services.game_end(game=game)
    wait_for(lambda: projector.locator("#call").inner_text() == "The game is over")
    assert projector.locator("#rejected").inner_text() == ""
    # Every slip entered: the headline is the final standings.
    Round.objects.filter(game=game).update(slips_complete=True)
    notify_game_changed(game.pk)
    wait_for(lambda: projector.locator("#call").inner_text() == "Final standings")
    _shot(projector, "end-projector")
    m = projector.evaluate("""() => ({
      call: parseFloat(getComputedStyle(document.getElementById('call')).fontSize),
      scroll: document.documentElement.scrollHeight, inner: innerHeight})""")
    assert m["scroll"] == m["inner"], m  # the end still fits the screen
    assert not projector.errors, projector.errors

    # The phone: the player's whole game against the sum of the tops, the review linked, training not yet.
    percent = f"{100 * total / sum_tops:.1f}%"
    final = phone.locator("#final-result")
    final.wait_for(state="visible")
    wait_for(lambda: final.inner_text() == f"Your game: {total} points of {sum_tops}, {percent} of the top")
    review = phone.locator("#review-link a")
    assert review.is_visible() and review.get_attribute("href") == f"/games/{game.pk}/review"
    assert phone.locator("#training-link").is_hidden()
    # The arbitrator opens the game to the club's players: the link to train on it appears, live.
    services.training_set(game=game, value="members")
    phone.locator("#training-link").wait_for(state="visible", timeout=10000)
    assert phone.locator("#training-link a").get_attribute("href") == f"/games/{game.pk}/train"
    phone.locator("#results").scroll_into_view_if_needed()
    _shot(phone, "end-phone")
    phone.locator("#training-link a").click()
    phone.wait_for_url(f"**/games/{game.pk}/train")
    assert phone.locator("#board").count() == 1
    assert not phone.errors, phone.errors


# Each rack tile with a value: the ink of its letter and of its value (the glyphs' own bounds, from the
# canvas's text metrics at the element's font, placed on the element's text box), and the tile's box.
TILE_INK = """() => {
  const ctx = document.createElement('canvas').getContext('2d');
  function ink(node) {
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    const cs = getComputedStyle(node.parentElement);
    ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const m = ctx.measureText(node.textContent);
    const baseline = box.top + m.fontBoundingBoxAscent;
    return {left: box.left - m.actualBoundingBoxLeft, right: box.left + m.actualBoundingBoxRight,
            top: baseline - m.actualBoundingBoxAscent, bottom: baseline + m.actualBoundingBoxDescent};
  }
  return Array.from(document.querySelectorAll('#rack li.rtile')).filter((li) => li.querySelector('sub')).map((li) => {
    const sub = li.querySelector('sub');
    const tile = li.getBoundingClientRect();
    return {letter: li.firstChild.textContent, value: sub.textContent, ink: ink(li.firstChild),
            valueInk: ink(sub.firstChild),
            tile: {left: tile.left, right: tile.right, top: tile.top, bottom: tile.bottom}};
  });
}"""


def _apart(a: dict, b: dict) -> bool:
    """Two boxes that share no point (touching edges allowed)."""
    return a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"]


def _inside(inner: dict, outer: dict) -> bool:
    return (outer["left"] <= inner["left"] and inner["right"] <= outer["right"]
            and outer["top"] <= inner["top"] and inner["bottom"] <= outer["bottom"])


@pytest.mark.parametrize("screen, viewport", [
    ("phone", {"width": 360, "height": 740}),
    ("projector", {"width": 1920, "height": 1080}),
    ("projector", {"width": 1280, "height": 720}),
])
def test_a_two_digit_tile_value_never_covers_its_letter(screen, viewport, new_page, make_game, make_player):
    from tournaments import services

    # French tiles: K, W, X, Y and Z are worth 10 (W the widest letter), A and E 1.
    game = make_game(seed=3, tileset="french", language="fr")
    _player, token = make_player(game, "Zoé", table=1)
    services.round_draw(game=game, rack="AEKWXYZ")
    page = new_page(screen)
    page.set_viewport_size(viewport)
    page.goto(f"/projector/{game.screen_key}" if screen == "projector" else f"/games/{game.pk}/play#token={token}")
    page.wait_for_selector("#rack li.rtile sub")
    tiles = page.evaluate(TILE_INK)
    assert sorted((t["letter"], t["value"]) for t in tiles) == [
        ("A", "1"), ("E", "1"), ("K", "10"), ("W", "10"), ("X", "10"), ("Y", "10"), ("Z", "10")]
    for tile in tiles:
        where = (screen, viewport["width"], tile)
        assert _apart(tile["ink"], tile["valueInk"]), where
        assert _inside(tile["ink"], tile["tile"]) and _inside(tile["valueInk"], tile["tile"]), where
    _shot(page, f"tile-values-{screen}-{viewport['width']}")
    page.locator("#rack").screenshot(path=str(SHOTS / f"tile-values-rack-{screen}-{viewport['width']}.png"))
    assert not page.errors, page.errors
