"""In real Chromium: the projector of a French tournament (on a French word list imported with ``manage.py
importlexicon``) in a hall of 5, 60 and 300 players, at 1920x1080 and 1280x720. The page is exactly the screen
(no scrollbar), the standings have their column headers in French and show the lines that fit, every line
whole, page after page; the master stays on one line; the join code and its QR code stay on screen between
rounds; no language buttons: the page speaks the tournament's language whatever the browser's."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from .support import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cleared_cache")]

# A small French list as a club would bring it (accents, one word a line); folded on import.
FRENCH_WORDS = (
    "rat", "rats", "art", "arts", "star", "tari", "taris", "rate", "ratés", "tarés", "tares", "reta", "ratine",
    "ratines", "traîne", "traînes", "entrais", "satiné", "satinée", "tanisé", "sentir", "sérient", "rient",
    "terni", "ternis", "tenir", "tenirs", "nitre", "nitres", "antre", "antres", "rein", "reins", "sein", "rien",
    "riens", "tri", "tris", "ire", "ires", "nais", "nait", "ais", "est", "et", "en", "es", "an", "ta", "sa",
    "ni", "si", "ri", "ne", "te", "se", "re", "ai", "as", "airs", "air", "rase", "ras", "saint", "saine",
    "sainte", "tain", "tains", "train", "trains", "entra", "tiens", "tien", "site", "sites", "tes", "net", "nets",
)
RACK = "AEINRST"
LONG = "Wolfeschlegelsteinhausenbergerdorffwelchevoralternwarengewis"[:60]
SIZES = {"1080": {"width": 1920, "height": 1080}, "720": {"width": 1280, "height": 720}}

# Where everything is on the page: the page against the window, the standings' visible lines against the
# section that holds them, the master's line, the join block.
MEASURE = """() => {
  const rect = (el) => el.getBoundingClientRect();
  const section = document.getElementById('standings');
  const box = rect(section);
  const shown = Array.from(document.querySelectorAll('#standings-body tr')).filter((tr) => !tr.hidden);
  const master = document.getElementById('last-master');
  const join = document.getElementById('join');
  const qr = join.querySelector('svg');
  return {
    scrollHeight: document.documentElement.scrollHeight, bodyHeight: document.body.scrollHeight,
    scrollWidth: document.documentElement.scrollWidth, innerHeight, innerWidth,
    headers: Array.from(document.querySelectorAll('#standings thead th')).map((th) => th.textContent.trim()),
    section: {top: box.top, bottom: box.bottom, hidden: section.hidden},
    rows: shown.map((tr) => ({top: rect(tr).top, bottom: rect(tr).bottom, rank: tr.cells[0].textContent,
                              name: tr.cells[1].textContent})),
    page: section.dataset.page, pages: section.dataset.pages,
    pageLabel: document.getElementById('standings-page').textContent,
    master: {scroll: master.scrollWidth, width: master.clientWidth, text: master.textContent,
             height: rect(master).height, font: parseFloat(getComputedStyle(master).fontSize)},
    join: join.hidden ? null : {qrTop: rect(qr).top, qrBottom: rect(qr).bottom, qrRight: rect(qr).right,
                                code: join.querySelector('.pj-code strong').textContent},
    languageButtons: document.querySelectorAll('.language-switch button').length,
    lang: document.documentElement.lang,
  };
}"""


def _french_lexicon(tmp_path) -> str:
    path = tmp_path / "liste.txt"
    path.write_text("\n".join(FRENCH_WORDS) + "\n", encoding="utf-8")
    call_command("importlexicon", str(path), "--name", "FRCLUB", "--tileset", "french", stdout=io.StringIO())
    return "FRCLUB"


def _hall(tmp_path, players: int):
    """A French game of ``players`` players whose first round is closed: each handed in one of the rack's
    plays (several scores, some a zero), one of them with a 60-character name."""
    from engine.movegen import generate_plays
    from engine.notation import format_ref
    from tournaments import services
    from tournaments.models import Round
    from tournaments.services import setting_of
    from tournaments.versions import notify_game_changed

    tournament = services.tournament_create(name="Soirée du club de Montpellier", lexicon=_french_lexicon(tmp_path),
                                            tileset="french", language="fr", round_seconds=180)
    game = services.game_create(tournament=tournament, seed=5)
    registered = []
    for n in range(players):
        name = LONG if n == 2 else f"Joueuse n° {n + 1} de la salle"
        registered.append(services.player_register(game=game, name=name, table=n + 1)[0])
    opened = timezone.now() - timedelta(minutes=10)
    round_ = services.round_start(round=services.round_draw(game=game, rack=RACK), now=opened)
    round_ = services.round_compute_tops(round=round_)
    round_ = Round.objects.get(pk=round_.pk)
    setting = setting_of(tournament)
    from engine.board import Board

    plays = sorted(generate_plays(Board.from_rows(round_.board), RACK, setting.lexicon, setting.tileset,
                                  setting.rules), key=lambda p: -p.score)
    by_score = list({p.score: p for p in plays}.values())
    for n, player in enumerate(registered):
        if n % 7 == 6:
            continue  # no slip: 0
        play = by_score[n % len(by_score)]
        services.slip_submit(round=round_, player=player, word=play.word,
                             ref=format_ref(play.row, play.col, play.horizontal, setting.labelling),
                             score=play.score, key=f"k{n}", now=opened + timedelta(seconds=30))
    services.round_close(round=round_, now=opened + timedelta(seconds=200))
    # Every slip is in (none on paper): the standings are final.
    Round.objects.filter(pk=round_.pk).update(slips_complete=True)
    notify_game_changed(game.pk)
    return game, Round.objects.get(pk=round_.pk)


def _check_fits(page, size: str, players: int, phase: str) -> dict:
    m = page.evaluate(MEASURE)
    where = (size, players, phase)
    # Exactly the screen: no scrollbar either way.
    assert m["scrollHeight"] == m["innerHeight"] and m["bodyHeight"] <= m["innerHeight"], (where, m)
    assert m["scrollWidth"] == m["innerWidth"], (where, m)
    assert m["languageButtons"] == 0 and m["lang"] == "fr", where
    assert m["headers"] == ["Rang", "Joueur", "Total", "Écart à la somme des tops"], (where, m["headers"])
    rows = m["rows"]
    assert rows, where
    for row in rows:  # every line shown is whole, inside the standings and the window
        assert m["section"]["top"] <= row["top"] and row["bottom"] <= m["section"]["bottom"] + 0.5, (where, row, m)
        assert row["bottom"] <= m["innerHeight"], (where, row)
    # The master on one line, whole: "TRAINES H4 · 68 points" is not cut nor wrapped.
    assert m["master"]["scroll"] <= m["master"]["width"] + 1, (where, m["master"])
    assert m["master"]["height"] < 2 * m["master"]["font"], (where, m["master"])
    assert "points" in m["master"]["text"], where
    return m


@pytest.mark.parametrize("players", [5, 60, 300])
def test_the_projector_fits_a_hall_in_french(players, tmp_path, new_page, screenshot, live_server):
    from tournaments import services

    game, round_ = _hall(tmp_path, players)
    # The browser prefers English: the projector still speaks the tournament's French.
    page = new_page(size="projector", locale="en-GB")
    page.goto(f"/projector/{game.screen_key}?page_seconds=2")
    page.wait_for_selector("#standings:not([hidden]) #standings-body tr")
    # Every line arrives (the live snapshot carries the first ten).
    wait_for(lambda: page.evaluate("document.querySelectorAll('#standings-body tr').length") == players)
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.wait_for_timeout(200)
        screenshot(page, f"projector-fr-{players}-{size}-between")
        m = _check_fits(page, size, players, "between")
        # Between rounds the join code and its QR code are on screen, whole, for latecomers.
        assert m["join"] and m["join"]["code"] == game.join_code, (size, m["join"])
        assert 0 <= m["join"]["qrTop"] and m["join"]["qrBottom"] <= m["innerHeight"], (size, m["join"])
        assert m["join"]["qrRight"] <= m["innerWidth"], (size, m["join"])
        shown = len(m["rows"])
        assert shown >= min(players, 5), (size, shown)
        if players > shown:
            # Page after page: the label counts them, the next page comes by itself, and the pages hold every
            # line once (walked through to the end for 60 players; three pages of 300).
            pages, current = int(m["pages"]), int(m["page"])
            assert pages > 1, (size, pages, shown)
            assert m["pageLabel"] == f"Page {current} sur {pages}", (size, m["pageLabel"])
            seen = {row["rank"] + row["name"] for row in m["rows"]}
            lines = len(m["rows"])
            walk = pages - 1 if pages <= 12 else 2
            for _ in range(walk):
                following = current % pages + 1
                wait_for(lambda n=following: page.evaluate(MEASURE)["page"] == str(n), timeout=5)
                later = _check_fits(page, size, players, f"page {following}")
                assert later["pageLabel"] == f"Page {following} sur {pages}", later["pageLabel"]
                assert not seen & {row["rank"] + row["name"] for row in later["rows"]}
                seen |= {row["rank"] + row["name"] for row in later["rows"]}
                lines += len(later["rows"])
                current = following
            if walk == pages - 1:
                assert lines == players == len(seen), (size, lines, len(seen))
        else:
            assert m["pages"] == "1" and m["pageLabel"] == "", (size, m)

    # A round in play: the rack and the clock; the standings keep the room left, still without scrolling.
    services.round_start(round=services.round_draw(game=game))
    page.wait_for_selector("#rack .rtile")
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.wait_for_timeout(200)
        screenshot(page, f"projector-fr-{players}-{size}-play")
        m = _check_fits(page, size, players, "play")
        assert m["join"] is None, size
    assert not page.errors


def test_the_projector_says_the_standings_are_provisional_until_the_paper_slips_are_in(
    tmp_path, new_page, screenshot, live_server
):
    from tournaments.models import Round
    from tournaments.versions import notify_game_changed

    game, round_ = _hall(tmp_path, 12)
    Round.objects.filter(pk=round_.pk).update(slips_complete=False)
    notify_game_changed(game.pk)
    page = new_page(size="projector")
    page.goto(f"/projector/{game.screen_key}")
    page.wait_for_selector("#standings-provisional:not([hidden])")
    assert "Provisoire" in page.locator("#standings-provisional").inner_text()
    _check_fits(page, "1080", 12, "provisional")
    screenshot(page, "projector-fr-provisional")

    Round.objects.filter(pk=round_.pk).update(slips_complete=True)
    notify_game_changed(game.pk)
    page.wait_for_selector("#standings-provisional", state="hidden")
    assert not page.errors


def test_a_bad_page_time_is_refused_clearly(client, make_game):
    game = make_game()
    for asked in ("0", "abc", "100000", "-3"):
        answer = client.get(f"/projector/{game.screen_key}?page_seconds={asked}")
        assert answer.status_code == 400 and b"page_seconds" in answer.content, asked
    assert client.get(f"/projector/{game.screen_key}?page_seconds=15").status_code == 200
