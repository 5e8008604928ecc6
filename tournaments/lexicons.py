"""Word lists for the games: loaded once per process, kept in memory.

Built-in lists (TWL06, SOWPODS) come with the engine. An imported list is stored in the database with its
words, so that a process on another machine (a worker) can compile it again when its disk cache lacks it.
"""

from __future__ import annotations

import threading

from django.conf import settings

BUILTIN_LEXICONS = ("TWL06", "SOWPODS")

_lock = threading.Lock()
_cache: dict[str, object] = {}


def word_list_lines(raw: bytes) -> list[str]:
    """A word list file's lines, read as UTF-8 (Latin-1 when that fails), blank lines dropped: how the
    console's upload and ``manage.py importlexicon`` both read a club's file."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return [line.strip() for line in text.splitlines() if line.strip()]


def cache_dir() -> str:
    return str(settings.LEXICON_CACHE_DIR)


def get_lexicon(name: str):
    """The engine Lexicon named ``name``; LookupError when the name is neither built in nor imported."""
    lexicon = _cache.get(name)
    if lexicon is not None:
        return lexicon
    with _lock:
        lexicon = _cache.get(name)
        if lexicon is None:
            lexicon = _cache[name] = _load(name)
    return lexicon


def _load(name: str):
    from engine.lexicon import import_lexicon, load_lexicon
    from engine.tiles import load_tileset

    try:
        return load_lexicon(name, cache_dir=cache_dir())
    except LookupError:
        if name in BUILTIN_LEXICONS:
            raise
    from tournaments.models import Lexicon

    row = Lexicon.objects.filter(name=name, imported=True).first()
    if row is None:
        raise LookupError(f"unknown lexicon {name!r}")
    # The words were stored as the engine spells them (one character per tile: COCHE is COΘE in Spanish).
    return import_lexicon(name, row.words.split(), load_tileset(row.tileset), cache_dir=cache_dir(),
                          stored=True).lexicon


def remember(lexicon) -> None:
    """Keep a lexicon just compiled (an import) so later games use it without loading it again."""
    with _lock:
        _cache[lexicon.name] = lexicon


def forget(name: str) -> None:
    with _lock:
        _cache.pop(name, None)
