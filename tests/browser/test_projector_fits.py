"""In real Chromium: the projector fits every screen a club plugs in, from an old 1024x768 projector to a 4K
television. At 1024x768, 1280x720, 1366x768, 1920x1080 and 3840x2160, before the first rack (the join code
and its QR code), between rounds (the same, beside the standings) and during a round (the rack, the clock,
the standings' first lines), each part lies wholly inside the window: its box inside the window and inside
every box that cuts what overflows it, and its text not cut (a text wider than its box, or the code's last
letter past the window's edge, fails). The French column headers never take more than two lines."""

from __future__ import annotations

import pytest

from .test_projector_hall import _french_lexicon, _hall

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

SCREENS = [(1024, 768), (1280, 720), (1366, 768), (1920, 1080), (3840, 2160)]

# For each selector: the element's box, that box cut by every ancestor whose overflow is not visible (what is
# really drawn), its text's own box (a Range over its contents) and whether its text overflows its box.
# The headers: how many lines each one's text takes (the distinct tops of its line boxes).
MEASURE = """(selectors) => {
  const box = (r) => ({left: r.left, top: r.top, right: r.right, bottom: r.bottom});
  function clipped(el, r) {
    const out = box(r);
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      const c = a.getBoundingClientRect();
      out.left = Math.max(out.left, c.left); out.top = Math.max(out.top, c.top);
      out.right = Math.min(out.right, c.right); out.bottom = Math.min(out.bottom, c.bottom);
    }
    return out;
  }
  function part(el) {
    if (!el || el.hidden || !el.getClientRects().length) return null;
    const r = el.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(el);
    const t = range.getBoundingClientRect();
    return {box: box(r), drawn: clipped(el, r), text: t.width ? box(t) : null, textDrawn: t.width ? clipped(el, t) : null,
            overflows: el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible',
            content: el.textContent.trim()};
  }
  const parts = {};
  for (const [name, selector] of Object.entries(selectors)) {
    parts[name] = Array.from(document.querySelectorAll(selector)).filter((el) => !el.hidden).map(part);
  }
  const headers = Array.from(document.querySelectorAll('#standings thead th')).map((th) => {
    const range = document.createRange();
    range.selectNodeContents(th);
    const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    return {text: th.textContent.trim(), lines: tops.size};
  });
  return {parts, headers, width: innerWidth, height: innerHeight,
          scrollWidth: document.documentElement.scrollWidth, scrollHeight: document.documentElement.scrollHeight};
}"""

JOIN = {"code": "#join .pj-code strong", "code line": "#join .pj-code", "QR code": "#join .pj-qr svg"}
PLAY = {"rack": "#rack", "clock": "#countdown"}
# The standings' first three lines, each cell (a long name is cut on purpose after two lines: its cell's box
# is what must fit).
FIRST_ROWS = {f"standings line {n}": f"#standings-body tr:not([hidden]):nth-child({n}) td" for n in (1, 2, 3)}


def _inside(inner: dict, outer: dict, slack: float = 0.5) -> bool:
    return (outer["left"] - slack <= inner["left"] and inner["right"] <= outer["right"] + slack
            and outer["top"] - slack <= inner["top"] and inner["bottom"] <= outer["bottom"] + slack)


def _check(page, selectors: dict, where, faults: list) -> dict:
    """Measure the parts named by ``selectors``; what does not fit is added to ``faults`` (every screen is
    measured before the test fails, so that its failure lists them all)."""
    m = page.evaluate(MEASURE, selectors)
    window = {"left": 0, "top": 0, "right": m["width"], "bottom": m["height"]}
    found = []
    if m["scrollWidth"] > m["width"] or m["scrollHeight"] > m["height"]:
        found.append(f"the page scrolls: {m['scrollWidth']}x{m['scrollHeight']}")
    for name, parts in m["parts"].items():
        if not parts or None in parts:
            found.append(f"{name}: not shown")
            continue
        for part in parts:
            if not _inside(part["box"], window):
                found.append(f"{name} {part['content']!r}: {part['box']} is not inside the window {window}")
            elif not _inside(part["box"], part["drawn"]):
                found.append(f"{name} {part['content']!r}: cut, only {part['drawn']} of {part['box']} is drawn")
            if part["text"] and not (_inside(part["text"], window) and _inside(part["text"], part["textDrawn"])):
                found.append(f"{name} {part['content']!r}: its text {part['text']} is cut ({part['textDrawn']})")
            if part["overflows"]:
                found.append(f"{name} {part['content']!r}: its text is wider than its box")
    faults.extend(f"{where}: {fault}" for fault in found)
    # The boxes measured, one line a screen (shown with pytest -s): left, top, right, bottom in CSS pixels.
    print(f"{where}: " + "; ".join(
        f"{name} " + ",".join(f"{part['box'][side]:.0f}" for side in ("left", "top", "right", "bottom"))
        for name, parts in m["parts"].items() for part in parts[:1] if part))
    return m


def _check_headers(m: dict, where, faults: list) -> None:
    assert [h["text"] for h in m["headers"]] == ["Rang", "Joueur", "Total", "Écart à la somme des tops"], where
    faults.extend(f"{where}: the header {h['text']!r} takes {h['lines']} lines" for h in m["headers"]
                  if h["lines"] > 2)


def test_before_the_first_rack_the_join_code_and_its_qr_code_fit_every_screen(tmp_path, new_page, screenshot):
    from tournaments import services

    tournament = services.tournament_create(name="Soirée du club de Montpellier", lexicon=_french_lexicon(tmp_path),
                                            tileset="french", language="fr")
    game = services.game_create(tournament=tournament, seed=5)
    page = new_page(size="projector")
    page.goto(f"/projector/{game.screen_key}")
    page.wait_for_selector("#join .pj-qr svg")
    faults: list[str] = []
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h", arg=[width, height])
        screenshot(page, f"projector-fits-before-{width}x{height}")
        m = _check(page, JOIN, (width, height, "before the first rack"), faults)
        assert m["parts"]["code"][0]["content"] == game.join_code
    assert not faults, "\n".join(faults)
    assert not page.errors, page.errors


def test_between_rounds_and_during_a_round_every_part_fits_every_screen_in_french(tmp_path, new_page, screenshot):
    from tournaments import services

    game, _round = _hall(tmp_path, 30)
    page = new_page(size="projector")
    # One page of the standings for two minutes: the first lines are those measured.
    page.goto(f"/projector/{game.screen_key}?page_seconds=120")
    page.wait_for_selector("#standings:not([hidden]) #standings-body tr")
    page.wait_for_function("document.querySelectorAll('#standings-body tr').length === 30")
    faults: list[str] = []
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h", arg=[width, height])
        # The standings cut their pages anew for the new room: their first line is the first again.
        page.wait_for_function("document.getElementById('standings').dataset.page === '1'")
        screenshot(page, f"projector-fits-between-{width}x{height}")
        m = _check(page, {**JOIN, **FIRST_ROWS}, (width, height, "between rounds"), faults)
        _check_headers(m, (width, height, "between rounds"), faults)

    services.round_start(round=services.round_draw(game=game))
    page.wait_for_selector("#rack .rtile")
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h", arg=[width, height])
        page.wait_for_function("document.getElementById('standings').dataset.page === '1'")
        screenshot(page, f"projector-fits-play-{width}x{height}")
        m = _check(page, {**PLAY, **FIRST_ROWS}, (width, height, "during a round"), faults)
        _check_headers(m, (width, height, "during a round"), faults)
    assert not faults, "\n".join(faults)
    assert not page.errors, page.errors
