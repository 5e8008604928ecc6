"""The scoresheet prints each round's reason whole (wrapped in its column, never cut with "…"), and marks a
slip the arbitrator corrected (*) or a late slip admitted (†), with a legend under the rounds."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone, translation

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import LateSlip
from tournaments.sheets import sources
from tournaments.sheets.data import Header, Scoresheet, ScoresheetRound
from tournaments.sheets.labels import REASONS, reason_label
from tournaments.sheets.scoresheet import render_scoresheet

from .sheets_support import pdf_stream_text, pdf_text, squeezed

HEADER = Header(tournament="Club", game="Game 1", date="2026-11-21", lexicon="TWL06", ruleset="fisf")


def _sheet(reasons, marks=None, header=HEADER) -> Scoresheet:
    marks = marks or {}
    lines = tuple(
        ScoresheetRound(number=n, rack="AEINRST", word="RETAINS", ref="H2", claimed=70, paid=0, outcome="zero",
                        reason=reason, top_word="RETAINS", top_ref="H2", top_score=70, total=0, top_total=70 * n,
                        mark=marks.get(n, ""))
        for n, reason in enumerate(reasons, start=1)
    )
    return Scoresheet(header=header, name="Ann", table=1, rounds=lines, players=2)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_reason_is_printed_whole(language, tmp_path):
    codes = [code for code in REASONS if code != "ok"]
    with translation.override(language):
        header = Header(tournament="Club", game="Game 1", lexicon="TWL06", ruleset="fisf", language=language)
        pdf = render_scoresheet(_sheet(codes, header=header))
        text = pdf_text(pdf, tmp_path, f"reasons-{language}")
        labels = [reason_label(code) for code in codes]
    assert "…" not in text
    whole = squeezed(pdf_stream_text(pdf))
    for label in labels:  # a long one wraps onto a second line of its cell: its letters all there, in order
        assert squeezed(label) in whole, label
    assert "blank not marked" in text or language == "fr"


def test_a_corrected_slip_and_an_admitted_late_one_are_marked_with_a_legend(tmp_path):
    text = pdf_text(render_scoresheet(_sheet(["wrong_score", "ok", "late"], marks={1: "corrected", 2: "late"})),
                    tmp_path, "marks")
    assert re.search(r"wrong score \*", text)
    assert "\u2020" in text
    assert "* corrected by the arbitrator" in text and "\u2020 late slip admitted (the venue's fault)" in text
    plain = pdf_text(render_scoresheet(_sheet(["wrong_score"])), tmp_path, "no-marks")
    assert "corrected by the arbitrator" not in plain and "\u2020" not in plain


@pytest.mark.django_db
def test_the_marks_come_from_the_game(make_game, make_player, arbitrator):
    game = make_game(round_seconds=60)
    ann, bob, cy = (make_player(game, name)[0] for name in ("Ann", "Bob", "Cy"))
    round = services.round_start(round=services.round_draw(game=game, rack="AEINRST"),
                                 now=timezone.now() - timedelta(seconds=61))
    services.round_compute_tops(round=round)
    round.refresh_from_db()
    top = round.tops[0]
    slip, _ = services.slip_submit(round=round, player=ann, word=top["word"], ref=top["ref"], score=top["score"],
                                   key="a", now=round.deadline - timedelta(seconds=5))
    with pytest.raises(ServiceError):  # Bob's slip came late
        services.slip_submit(round=round, player=bob, word=top["word"], ref=top["ref"], score=top["score"],
                             key="b", now=round.deadline + timedelta(seconds=3))
    round.refresh_from_db()
    services.slip_correct(slip=slip, reason="misread score", actor=arbitrator, score=top["score"] + 1)
    services.late_slip_admit(late=LateSlip.objects.get(player=bob), reason="the Wi-Fi dropped", actor=arbitrator)
    sheets = {sheet.name: sheet for sheet in sources.scoresheets_for(game)}
    assert [line.mark for line in sheets["Ann"].rounds] == ["corrected"]
    assert [line.mark for line in sheets["Bob"].rounds] == ["late"]
    assert [line.mark for line in sheets["Cy"].rounds] == [""]
    assert sources.scoresheet_for(game, bob).rounds[0].mark == "late"
