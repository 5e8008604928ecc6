"""The club arbitrator's guide at /help/: docs/club-evening.md shown as a page (one source), its pictures
served from beside it, nothing of the file taken as HTML, no other file reachable through the pictures' path."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "club-evening.md"


@pytest.mark.django_db
def test_help_shows_the_guide_file_with_every_section_and_picture(client):
    answer = client.get("/help/")
    assert answer.status_code == 200
    page = answer.content.decode()
    text = GUIDE.read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", text, re.M)
    assert re.findall(r"<h2>(.+?)</h2>", page) == sections
    assert sections == ["Install", "Start", "The phones join", "A round", "Paper slips", "An incident", "The end",
                        "Printing", "Backing up"]
    pictures = re.findall(r"\]\((img/club-evening/[a-z0-9-]+\.png)\)", text)
    assert pictures and re.findall(r'<img src="([^"]+)"', page) == pictures
    for picture in pictures:
        served = client.get(f"/help/{picture}")
        assert served.status_code == 200 and served["Content-Type"] == "image/png", picture
        assert b"".join(served.streaming_content) == (ROOT / "docs" / picture).read_bytes()
    assert "<code>arbiter run --lan</code>" in page and "<strong>Start the clock</strong>" in page


def test_the_guide_renderer_escapes_what_the_file_holds():
    from tournaments.web.guide import render_guide

    title, body = render_guide('# T <b>\n\nA <script>alert(1)</script> **bold** `x<y`\n\n'
                               '![x](img/club-evening/a.png)\n\n![x](http://example.com/a.png)\n\n- one\n  two\n')
    assert title == "T <b>"
    assert "<script>" not in body and "&lt;script&gt;" in body
    assert "<strong>bold</strong>" in body and "<code>x&lt;y</code>" in body
    assert body.count("<img") == 1 and 'src="img/club-evening/a.png"' in body
    assert "<ul><li>one two</li></ul>" in body


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["..%2F..%2Fpyproject.toml", "nothing.png", "a.svg", "..", "%2E%2E"])
def test_no_other_file_is_served_as_a_picture(client, name):
    assert client.get(f"/help/img/club-evening/{name}").status_code == 404
