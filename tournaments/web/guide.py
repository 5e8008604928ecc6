"""The club arbitrator's guide at /help/: docs/club-evening.md itself, shown as a page, and its pictures.

One source: the page is the Markdown file the repository keeps (shipped in the wheel as
``arbiter/bundle/docs/``, pyproject.toml), turned into HTML here by a small renderer of the part of Markdown
it uses: headings, paragraphs, lists (a line indented under an item continues it), blocks of code between
``` lines, pictures alone on their line, `code` and **bold** in a line. Everything is escaped first, so the
file can hold no HTML of its own; a picture may only be one of the guide's own.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from arbiter.places import assets_dir

GUIDE = "club-evening.md"
PICTURES = "img/club-evening"
PICTURE = re.compile(r"!\[([^\]]*)\]\(" + re.escape(PICTURES) + r"/([a-z0-9-]+\.png)\)$")
ITEM = re.compile(r"(- |\d+\. )(.*)")


def guide_folder() -> Path:
    return assets_dir() / "docs"


def _inline(text: str) -> str:
    """One line's text, escaped, with its `code` and **bold**."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for part in parts:
        if len(part) > 1 and part.startswith("`") and part.endswith("`"):
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            out.append(re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html.escape(part)))
    return "".join(out)


def render_guide(text: str) -> tuple[str, str]:
    """The guide's title (its first heading) and its body as HTML."""
    title, blocks = "", []
    lines = text.splitlines()
    n = 0
    paragraph: list[str] = []
    items: list[str] = []
    listing = ""

    def flush() -> None:
        nonlocal listing
        if paragraph:
            blocks.append(f"<p>{_inline(' '.join(paragraph))}</p>")
            paragraph.clear()
        if items:
            blocks.append(f"<{listing}>" + "".join(f"<li>{_inline(item)}</li>" for item in items) + f"</{listing}>")
            items.clear()

    while n < len(lines):
        line = lines[n]
        stripped = line.strip()
        n += 1
        if stripped.startswith("```"):
            flush()
            code = []
            while n < len(lines) and not lines[n].strip().startswith("```"):
                code.append(lines[n])
                n += 1
            n += 1
            blocks.append(f"<pre><code>{html.escape(chr(10).join(code))}</code></pre>")
        elif not stripped:
            flush()
        elif stripped.startswith("#"):
            flush()
            level = len(stripped) - len(stripped.lstrip("#"))
            words = stripped[level:].strip()
            if level == 1 and not title:
                title = words
            blocks.append(f"<h{level}>{_inline(words)}</h{level}>")
        elif picture := PICTURE.match(stripped):
            flush()
            alt, name = picture.groups()
            blocks.append(f'<p class="guide-picture"><img src="{PICTURES}/{name}" alt="{html.escape(alt)}"></p>')
        elif item := ITEM.match(stripped):
            kind = "ol" if item.group(1)[0].isdigit() else "ul"
            if paragraph or (items and kind != listing):
                flush()
            listing = kind
            items.append(item.group(2))
        elif items and line.startswith(" "):
            items[-1] += " " + stripped
        else:
            if items:
                flush()
            paragraph.append(stripped)
    flush()
    return title, "\n".join(blocks)


@require_GET
def guide_page(request: HttpRequest) -> HttpResponse:
    path = guide_folder() / GUIDE
    if not path.is_file():
        raise Http404("the guide is not installed")
    title, body = render_guide(path.read_text(encoding="utf-8"))
    return render(request, "help.html", {"title": title, "body": mark_safe(body)})  # noqa: S308 - escaped above


@require_GET
def guide_picture(request: HttpRequest, name: str) -> FileResponse:
    if not re.fullmatch(r"[a-z0-9-]+\.png", name):
        raise Http404("no such picture")
    path = guide_folder() / PICTURES / name
    if not path.is_file():
        raise Http404("no such picture")
    return FileResponse(path.open("rb"), content_type="image/png")
