"""The brute-force oracle: every word of a small list tried at every square and in both directions, checked
and scored by the rules with nothing of the engine's search, checking or scoring, and compared with the
engine's searches (``find_tops``, ``best_plays``, ``count_plays``, ``score_spread``, ``generate_plays``)
and with ``judge_slip`` on random positions of each language, by the compiled search and by the pure-Python
one.

What the oracle takes from the engine is data only: the tile set's tiles (code, storage character, label,
count, value) and what a blank may stand for, the premium squares (``engine.layout``), the most tiles a
play places and the bingo bonuses (``engine.rules``), and the word list, which it reads as tiles itself
(the longest label first) and checks against the engine's import tile for tile.  The positions are seeded:
boards made by playing random moves the oracle found, racks drawn at random from what the board leaves in
the bag, half of them with one or two blanks put in (while the bag has them).  English and French, one
letter a tile; Spanish (CH, LL, RR, Ñ), Catalan (L·L, NY, QU, Ç), Romanian, Dutch, German (Ä, Ö, Ü) and
Italian, on small lists of a few real words and words made up of the set's tiles.
"""
from __future__ import annotations

import random
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache, partial
from itertools import combinations
from pathlib import Path

import pytest

from engine import search as engine_search
from engine.board import Board
from engine.judging import Slip, judge_slip
from engine.layout import CENTRE, LETTER_MULTIPLIER, SIZE, WORD_MULTIPLIER
from engine.lexicon import builtin_words, import_lexicon, normalise
from engine.notation import format_ref
from engine.rules import rules_preset, variant_rules
from engine.tiles import load_tileset

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
POSITIONS = 300  # per language
SEED = 27
GAME_MOVES = (3, 14)  # a game is played this many moves (drawn in the range), then a new one starts
SEARCHES = ("compiled", "python")


# ---------------------------------------------------------------------------------------------------
# A language as the oracle sees it: tile codes, their values and counts, the word list in codes.


@dataclass(frozen=True)
class Language:
    name: str
    tileset: object
    values: dict  # tile code -> points of the real tile
    counts: dict  # tile code -> tiles in the bag
    stored: dict  # tile code -> its storage character (boards, racks, plays: engine.tiles)
    labels: dict  # tile code -> its label, as a player writes it on a slip
    blank_value: int
    blanks: int
    blank_may_be: frozenset  # the codes a blank may stand for
    words: frozenset  # the list, each word a tuple of tile codes
    lexicon: object  # the engine's compiled lexicon of the same list
    by_length: dict = None  # n -> the words of n tiles
    by_place: dict = None  # (n, k, code) -> the words of n tiles with that tile k-th

    def __post_init__(self):
        by_length, by_place = {}, {}
        for word in self.words:
            by_length.setdefault(len(word), set()).add(word)
            for k, code in enumerate(word):
                by_place.setdefault((len(word), k, code), set()).add(word)
        object.__setattr__(self, "by_length", {n: frozenset(w) for n, w in by_length.items()})
        object.__setattr__(self, "by_place", {key: frozenset(w) for key, w in by_place.items()})
        object.__setattr__(self, "_codes", {ch: code for code, ch in self.stored.items()})

    def code(self, stored: str) -> int:
        """The code of a storage character, either case."""
        return self._codes[stored.upper()]


def _english_words() -> list[str]:
    """Every two-letter word of TWL06, and a seeded sample of its three- to eight-letter words."""
    words = builtin_words("TWL06")
    words = [w.strip().upper() for w in words if w.strip()]
    rng = random.Random(SEED)
    by_length = {n: sorted(w for w in words if len(w) == n) for n in range(2, 9)}
    chosen = list(by_length[2])
    for n, k in ((3, 160), (4, 120), (5, 80), (6, 60), (7, 40), (8, 20)):
        chosen += rng.sample(by_length[n], k)
    return chosen


def _french_words() -> list[str]:
    return (FIXTURES / "french_words.txt").read_text(encoding="utf-8").splitlines()


# A few words as written in each language, digraph tiles among them (as the federations' lists spell them).
WRITTEN = {
    "spanish": "CHICO COCHE CALLE PERRO LLAVE NIÑO AÑO CARRO MUCHO OLLA CERRO NOCHE LECHE TORRE ARROZ LLENO ÑU "
               "CHE CHA",
    "catalan": "ANY ANYS QUE QUI COL·LEGI PLAÇA BRAÇ CASA PANY NYAP CEL SOL LLUNA BALL CAÇA",
    "romanian": "CASA APA MUNTE PAINE FATA OM EU TU NOI ARC URS",
    "dutch": "HUIS BOOM WATER FIETS KAAS IJS ZEE VIS",
    "german": "HAUS BAUM WASSER KÄSE ÖL ÜBER MÄDCHEN GRÜN",
    "italian": "CASA ALBERO ACQUA PANE GATTO CANE SOLE MARE",
}
# Words made up of a language's tiles, drawn with the bag's frequencies: (tiles, how many), seeded.
MADE_UP = ((2, 120), (3, 160), (4, 120), (5, 80), (6, 50), (7, 30), (8, 15))


def _read_longest(text: str, labels: dict):
    """A word written in labels as tile codes, the longest label first at each letter (the rule of the
    lists of these languages: a CH is the CH tile); None when some letter is no label."""
    tiles, at = [], 0
    longest = max(len(label) for label in labels)
    while at < len(text):
        for size in range(min(longest, len(text) - at), 0, -1):
            code = labels.get(text[at:at + size])
            if code is not None:
                tiles.append(code)
                at += size
                break
        else:
            return None
    return tuple(tiles)


def _made_up_words(name: str) -> list[str]:
    """WRITTEN's words and words made up of the tile set's tiles, as written in labels: every word reads
    back as the tiles it was made of (a C followed by an H is not made up where CH is a tile)."""
    tileset = load_tileset(name)
    letters = list(tileset.letters)
    labels = {letter.shown: letter.code for letter in letters}
    rng = random.Random(f"{SEED}-{name}-words")
    words = set(WRITTEN[name].split())
    for n, k in MADE_UP:
        made = 0
        for _ in range(50 * k):  # bounded: most draws are kept
            if made == k:
                break
            tiles = rng.choices(letters, weights=[x.count for x in letters], k=n)
            text = "".join(x.shown for x in tiles)
            if text not in words and _read_longest(text, labels) == tuple(x.code for x in tiles):
                words.add(text)
                made += 1
    return sorted(words)


WORD_SOURCES = {"english": _english_words, "french": _french_words, "spanish": partial(_made_up_words, "spanish"),
                **{name: partial(_made_up_words, name) for name in ("catalan", "romanian", "dutch", "german", "italian")}}


@cache
def language(name: str, cache_dir: str) -> Language:
    """A language: its tile set read as data (the tile codes are the engine's, ``Letter.code``), and its
    small word list, imported by the engine (the lexicon the searches walk) and kept as tile codes."""
    tileset = load_tileset(name)
    stored = {letter.code: letter.letter for letter in tileset.letters}
    codes = {ch: code for code, ch in stored.items()}
    written = WORD_SOURCES[name]()
    if tileset.plain:
        accepted, _ = normalise(written, lambda w: all(ch in codes for ch in w))
        words = frozenset(tuple(codes[ch] for ch in word) for word in accepted)
    else:  # the words read as labels, by the oracle itself
        accepted = written
        labels = {letter.shown: letter.code for letter in tileset.letters}
        words = frozenset(_read_longest(unicodedata.normalize("NFC", w), labels) for w in written)
        assert None not in words
    imported = import_lexicon(f"oracle-{name}", accepted, tileset, cache_dir=cache_dir)
    assert not imported.rejected or tileset.plain, imported.rejected
    lexicon = imported.lexicon
    # The engine's list is the oracle's, tile for tile.
    assert {tuple(codes[ch] for ch in word) for word in lexicon.words()} == words
    return Language(
        name, tileset,
        values={letter.code: letter.value for letter in tileset.letters},
        counts={letter.code: letter.count for letter in tileset.letters},
        stored=stored,
        labels={letter.code: letter.shown for letter in tileset.letters},
        blank_value=tileset.blank_value, blanks=tileset.blanks,
        blank_may_be=frozenset(tileset.blank_codes),
        words=words,
        lexicon=lexicon,
    )


# ---------------------------------------------------------------------------------------------------
# The oracle.  A board is a dict {(row, col): (code, is_blank)}; a rack is (Counter of codes, blanks).


@dataclass(frozen=True)
class OraclePlay:
    row: int  # the main word's first square
    col: int
    horizontal: bool
    tiles: frozenset  # {(row, col, code, is_blank)} the tiles placed
    main: tuple  # the main word: ((code, is_blank, is_new), ...)
    crosses: tuple  # the cross-words, in the order of the new tiles along the main word
    score: int


def _step(horizontal: bool) -> tuple[int, int]:
    return (0, 1) if horizontal else (1, 0)


def _run(board, placed, row, col, horizontal):
    """The tiles in line with (row, col) in one direction, through it: [((row, col), (code, blank), new)]."""
    dr, dc = _step(horizontal)
    r, c = row, col
    while 0 <= r - dr and 0 <= c - dc and ((r - dr, c - dc) in board or (r - dr, c - dc) in placed):
        r, c = r - dr, c - dc
    run = []
    while r < SIZE and c < SIZE and ((r, c) in board or (r, c) in placed):
        new = (r, c) in placed
        run.append(((r, c), placed[(r, c)] if new else board[(r, c)], new))
        r, c = r + dr, c + dc
    return run


def _word_score(run, lang: Language) -> int:
    """One word's points: letter premiums under new tiles, then the word premiums of new tiles."""
    total, factor = 0, 1
    for (r, c), (code, blank), new in run:
        points = lang.blank_value if blank else lang.values[code]
        if new:
            total += points * LETTER_MULTIPLIER[r * SIZE + c]
            factor *= WORD_MULTIPLIER[r * SIZE + c]
        else:
            total += points
    return total * factor


def oracle_plays(board: dict, rack: tuple, lang: Language, rules) -> dict:
    """Every legal play: {tiles: OraclePlay}.  Every stretch of squares of every lane in both directions,
    every word of the list of that length on it, the blanks put on every choice of the new tiles the rack
    allows.  What is skipped is skipped by a rule that no play there could pass: a stretch the main word
    would run past, or with no new tile, more new tiles than the rack holds, or touching nothing; a word
    disagreeing with a board tile, or needing more tiles than the rack holds beyond its blanks."""
    letters, blanks = rack
    held = min(sum(letters.values()) + blanks, rules.max_placed)
    empty = not board
    from_rack = {n: [w for w in words if _missing(w, letters) <= blanks] for n, words in lang.by_length.items()}
    near = {(r + a, c + b) for r, c in board for a, b in ((-1, 0), (1, 0), (0, -1), (0, 1))}
    crossed: dict = {}

    def crossing(square, horizontal, code) -> bool:
        """Whether a tile ``code`` on the empty ``square`` makes no cross-word, or one in the list."""
        key = (square, horizontal, code)
        ok = crossed.get(key)
        if ok is None:
            run = _run(board, {square: (code, False)}, *square, horizontal)
            ok = crossed[key] = len(run) == 1 or tuple(t for _, (t, _), _ in run) in lang.words
        return ok

    plays: dict = {}
    for horizontal in ((True,) if empty and rules.first_move_horizontal else (True, False)):
        dr, dc = _step(horizontal)
        for lane in range(SIZE):
            for start in range(SIZE - 1):
                r0, c0 = (lane, start) if horizontal else (start, lane)
                if (r0 - dr, c0 - dc) in board:  # the main word would run on backwards
                    continue
                squares, fixed, new = [], [], []
                for k in range(SIZE - start):
                    square = (r0 + k * dr, c0 + k * dc)
                    squares.append(square)
                    if square in board:
                        fixed.append((k, board[square][0]))
                    else:
                        new.append(k)
                    if len(new) > held:
                        break
                    n = k + 1
                    if n < 2 or not new or (r0 + n * dr, c0 + n * dc) in board:  # or it would run on
                        continue
                    if empty:
                        if CENTRE not in squares:
                            continue
                    elif not fixed and not any(sq in near for sq in squares):
                        continue
                    if fixed:
                        words = [w for w in _words_fitting(lang, n, fixed)
                                 if _missing([w[j] for j in new], letters) <= blanks]
                    else:  # every tile from the rack
                        words = from_rack.get(n, ())
                    for word in words:
                        if all(crossing(squares[j], not horizontal, word[j]) for j in new):
                            _try(board, rack, lang, rules, plays, word, list(squares), list(new), horizontal)
    return plays


def _missing(codes, letters) -> int:
    """How many of the tiles ``codes`` the rack's ``letters`` lack."""
    left = dict(letters)
    missing = 0
    for code in codes:
        if left.get(code, 0):
            left[code] -= 1
        else:
            missing += 1
    return missing


def _words_fitting(lang: Language, n: int, fixed) -> frozenset:
    """The words of n tiles with these tiles at these places."""
    found = lang.by_length.get(n, frozenset())
    for k, code in fixed:
        found = found & lang.by_place.get((n, k, code), frozenset())
        if not found:
            break
    return found


def _try(board, rack, lang, rules, plays, word, squares, new, horizontal):
    letters, blanks = rack
    # Which new letters are blanks: every choice the rack allows (a blank may stand for a letter it holds).
    for k_blanks in range(min(blanks, len(new)) + 1):
        for chosen in combinations(new, k_blanks):
            if any(word[k] not in lang.blank_may_be for k in chosen):
                continue
            if _missing([word[k] for k in new if k not in chosen], letters):
                continue
            placed = {squares[k]: (word[k], k in chosen) for k in new}
            play = _scored(board, placed, lang, rules, word, squares, horizontal)
            if play is None:
                return  # a cross-word not in the list: no choice of blanks changes it
            known = plays.get(play.tiles)
            if known is None or (play.horizontal and not known.horizontal):
                plays[play.tiles] = play  # a single tile forming words both ways: named across


def _scored(board, placed, lang, rules, word, squares, horizontal):
    main = _run(board, placed, *squares[0], horizontal)
    assert tuple(code for _, (code, _), _ in main) == word
    runs = [main]
    crosses = []
    for sq in squares:
        if sq in placed:
            cross = _run(board, placed, *sq, not horizontal)
            if len(cross) > 1:
                if tuple(code for _, (code, _), _ in cross) not in lang.words:
                    return None
                runs.append(cross)
                crosses.append(tuple((code, blank, new) for _, (code, blank), new in cross))
    score = sum(_word_score(run, lang) for run in runs)
    if len(placed) == rules.bingo_tiles:
        score += rules.bingo_bonus
    elif len(placed) == rules.bingo_tiles + 1:
        score += rules.big_bingo_bonus
    tiles = frozenset((r, c, code, blank) for (r, c), (code, blank) in placed.items())
    return OraclePlay(*squares[0], horizontal, tiles,
                      tuple((code, blank, new) for _, (code, blank), new in main), tuple(crosses), score)


# ---------------------------------------------------------------------------------------------------
# The edges: the oracle's boards, racks and plays as the engine writes them.


def _stored(lang, code, blank):
    ch = lang.stored[code]
    return ch.lower() if blank else ch


def _label(lang, code, blank):
    """A tile as a player writes it on a slip: its label, in lowercase for a blank."""
    label = lang.labels[code]
    return label.lower() if blank else label


def board_rows(board: dict, lang: Language) -> list[str]:
    rows = [["."] * SIZE for _ in range(SIZE)]
    for (r, c), (code, blank) in board.items():
        rows[r][c] = _stored(lang, code, blank)
    return ["".join(row) for row in rows]


def rack_text(rack, lang: Language) -> str:
    letters, blanks = rack
    return "".join(lang.stored[code] for code in sorted(letters.elements())) + "?" * blanks


def engine_key(play, lang: Language) -> frozenset:
    """An engine Play's placed tiles as the oracle's key."""
    return frozenset((r, c, lang.code(ch), bool(blank)) for r, c, ch, blank in play.tiles)


def engine_view(play) -> tuple:
    """What the engine says of a play, to compare with the oracle's: (naming, word, words, score)."""
    return (play.row, play.col, play.horizontal, play.word, tuple(play.words), play.score)


def oracle_view(play: OraclePlay, lang: Language) -> tuple:
    """The same of an oracle play: the words in storage characters, a blank (new or on the board)
    lowercase."""
    def written(word):
        return "".join(_stored(lang, code, blank) for code, blank, _ in word)

    return (play.row, play.col, play.horizontal, written(play.main),
            tuple([written(play.main)] + [written(w) for w in play.crosses]), play.score)


# ---------------------------------------------------------------------------------------------------
# Random positions


@dataclass(frozen=True)
class Position:
    number: int
    board: dict
    rack: tuple
    plays: dict  # the oracle's {tiles: OraclePlay}


def _bag(board: dict, lang: Language) -> tuple[list, int]:
    """What is not on the board: (real tiles by code, blanks)."""
    left = Counter(lang.counts)
    blanks = lang.blanks
    for code, blank in board.values():
        if blank:
            blanks -= 1
        else:
            left[code] -= 1
    assert blanks >= 0 and min(left.values(), default=0) >= 0
    return sorted(left.elements()), blanks


def _draw(board, lang, rules, rng, forced_blanks):
    tiles, blanks = _bag(board, lang)
    forced = min(forced_blanks, blanks)
    pool = tiles + [0] * (blanks - forced)  # 0: a blank drawn at random
    drawn = rng.sample(pool, min(len(pool), rules.rack_size - forced))
    return Counter(t for t in drawn if t), forced + drawn.count(0)


def _rack_with_a_long_word(board, lang, rules, rng):
    """A rack of the variant's size holding the tiles of a word of the list as long as the most tiles a play
    places, the rest drawn from the bag; None when the bag holds no such word."""
    tiles, blanks = _bag(board, lang)
    left = Counter(tiles)
    words = sorted(w for w in lang.by_length.get(rules.max_placed, ()) if not Counter(w) - left)
    if not words:
        return None
    word = rng.choice(words)
    rest = list((left - Counter(word)).elements()) + [0] * blanks
    extra = rng.sample(rest, min(len(rest), rules.rack_size - len(word)))
    return Counter(word) + Counter(t for t in extra if t), extra.count(0)


@cache
def positions(name: str, cache_dir: str, variant: str = "duplicate", count: int = POSITIONS) -> tuple[Position, ...]:
    """``count`` seeded positions: games played by random moves the oracle finds, one position a move; racks
    of the variant's size (8 in 7 sur 8 and 7 et 8)."""
    lang = language(name, cache_dir)
    rules = variant_rules(variant)
    rng = random.Random(f"{SEED}-{name}" if variant == "duplicate" else f"{SEED}-{name}-{variant}")
    found = []
    board: dict = {}
    moves_left = rng.randint(*GAME_MOVES)
    for number in range(count):
        forced = (0, 0, 1, 2)[number % 4]  # a quarter of the racks hold one blank, a quarter two (if left)
        rack = _draw(board, lang, rules, rng, forced)
        if rules.rack_size > 7 and number % 3 == 0:  # racks of 8: a third hold a long word of the list
            rack = _rack_with_a_long_word(board, lang, rules, rng) or rack
        plays = oracle_plays(board, rack, lang, rules)
        found.append(Position(number, dict(board), rack, plays))
        # The next position: a random play (one without a blank when there is one, most of the time, so
        # that blanks stay in the bag), or a new game.
        moves_left -= 1
        if not plays or moves_left <= 0:
            board, moves_left = {}, rng.randint(*GAME_MOVES)
            continue
        choices = sorted(plays.values(), key=lambda p: sorted(p.tiles))
        plain = [p for p in choices if not any(blank for *_, blank in p.tiles)]
        play = rng.choice(plain if plain and rng.random() < 0.8 else choices)
        for r, c, code, blank in play.tiles:
            board[(r, c)] = (code, blank)
    return tuple(found)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("oracle-lexicons"))


@pytest.fixture(params=SEARCHES)
def search(request):
    compiled = request.param == "compiled"
    if compiled and not engine_search.compiled_search_installed():
        pytest.skip("Numba is not installed: only the pure-Python search runs")
    was = engine_search.use_compiled_search(compiled)
    yield request.param
    engine_search.use_compiled_search(was)


LANGUAGES = ["english", "french", "spanish", "catalan", "romanian", "dutch", "german", "italian"]


# ---------------------------------------------------------------------------------------------------
# The comparisons


def test_positions_cover_blanks_and_boards(cache_dir):
    """The seeded positions are what the comparisons need: racks with one and two blanks, blanks on the
    board, empty and crowded boards, many plays; where the set has tiles of several letters, those tiles on
    the board and in the plays, as real tiles and as blanks."""
    for name in LANGUAGES:
        found = positions(name, cache_dir)
        assert len(found) == POSITIONS
        racks = Counter(min(p.rack[1], 2) for p in found)
        assert racks[1] >= POSITIONS // 5 and racks[2] >= POSITIONS // 10, (name, racks)
        assert sum(1 for p in found if not p.board) >= 10, name
        assert max(len(p.board) for p in found) >= 25, name
        assert sum(1 for p in found if any(blank for _, blank in p.board.values())) >= 20, name
        assert sum(len(p.plays) for p in found) >= 30 * POSITIONS, name
        lang = language(name, cache_dir)
        several = {code for code, label in lang.labels.items() if len(label) > 1}  # CH, LL, RR, L·L, NY, QU
        if several:
            assert sum(1 for p in found if any(code in several for code, _ in p.board.values())) >= 10, name
            placed = [{(code, blank) for play in p.plays.values() for _, _, code, blank in play.tiles} for p in found]
            assert sum(1 for tiles in placed if any(code in several for code, _ in tiles)) >= 100, name
            assert sum(1 for tiles in placed if any(code in several and blank for code, blank in tiles)) >= 20, name


@pytest.mark.parametrize("name", LANGUAGES)
def test_searches_agree_with_the_oracle(name, search, cache_dir):
    lang = language(name, cache_dir)
    rules = rules_preset("fisf")
    args = (lang.lexicon, lang.tileset, rules)
    rng = random.Random(f"{SEED}-{name}-best")
    for position in positions(name, cache_dir):
        board, rack = Board.from_rows(board_rows(position.board, lang)), rack_text(position.rack, lang)
        where = f"{name} position {position.number}: {board_rows(position.board, lang)} {rack!r}"
        expected = {key: oracle_view(play, lang) for key, play in position.plays.items()}
        assert engine_search.count_plays(board, rack, *args) == len(expected), where
        assert engine_search.score_spread(board, rack, *args) == dict(Counter(v[-1] for v in expected.values())), where
        tops = engine_search.find_tops(board, rack, *args)
        top = max((v[-1] for v in expected.values()), default=None)
        assert tops.score == top, where
        assert {engine_key(p, lang): engine_view(p) for p in tops.plays} == {
            key: view for key, view in expected.items() if view[-1] == top}, where
        n = rng.randint(1, 10)
        ranked = sorted(v[-1] for v in expected.values())[::-1]
        floor = ranked[min(n, len(ranked)) - 1] if ranked else None
        best = engine_search.best_plays(board, rack, *args, n=n)
        assert {engine_key(p, lang): engine_view(p) for p in best} == {
            key: view for key, view in expected.items() if view[-1] >= floor}, (where, n)
        assert [p.score for p in best] == sorted((p.score for p in best), reverse=True), where
        if search == "python":  # every play, as the reference lists them (the same in both searches)
            every = engine_search.generate_plays(board, rack, *args)
            assert len(every) == len(expected), where
            assert {engine_key(p, lang): engine_view(p) for p in every} == expected, where


EIGHT_TILE_POSITIONS = 100  # per variant of 8-tile racks


@pytest.mark.parametrize("variant", ["seven_of_eight", "seven_and_eight"])
def test_searches_agree_with_the_oracle_on_racks_of_8(variant, search, cache_dir):
    """Racks of 8: at most 7 tiles placed and 50 for 7 (7 sur 8), or all 8 placed and 75 for 8 (7 et 8): the
    tops, the count and the best plays of both searches are the oracle's on 100 positions a variant."""
    lang = language("english", cache_dir)
    rules = variant_rules(variant)
    assert rules.rack_size == 8
    args = (lang.lexicon, lang.tileset, rules)
    found = positions("english", cache_dir, variant, EIGHT_TILE_POSITIONS)
    assert sum(1 for p in found if sum(p.rack[0].values()) + p.rack[1] == 8) >= EIGHT_TILE_POSITIONS * 3 // 4
    bonus_plays = whole_racks = 0  # positions with a play earning a bonus; with a play placing all 8
    for position in found:
        board, rack = Board.from_rows(board_rows(position.board, lang)), rack_text(position.rack, lang)
        where = f"{variant} position {position.number}: {board_rows(position.board, lang)} {rack!r}"
        expected = {key: oracle_view(play, lang) for key, play in position.plays.items()}
        assert all(len(key) <= rules.max_placed for key in expected), where
        bonus_plays += any(len(key) >= rules.bingo_tiles for key in expected)
        whole_racks += any(len(key) == 8 for key in expected)
        assert engine_search.count_plays(board, rack, *args) == len(expected), where
        tops = engine_search.find_tops(board, rack, *args)
        top = max((v[-1] for v in expected.values()), default=None)
        assert tops.score == top, where
        assert {engine_key(p, lang): engine_view(p) for p in tops.plays} == {
            key: view for key, view in expected.items() if view[-1] == top}, where
        best = engine_search.best_plays(board, rack, *args, n=5)
        ranked = sorted((v[-1] for v in expected.values()), reverse=True)
        floor = ranked[min(5, len(ranked)) - 1] if ranked else None
        assert {engine_key(p, lang): engine_view(p) for p in best} == {
            key: view for key, view in expected.items() if view[-1] >= floor}, where
    assert bonus_plays >= 15, (variant, bonus_plays)
    assert whole_racks >= (10 if rules.max_placed == 8 else 0), (variant, whole_racks)
    assert whole_racks == 0 or rules.max_placed == 8, (variant, whole_racks)


def _slip_word(play: OraclePlay, lang: Language) -> str:
    return "".join(_label(lang, code, blank) for code, blank, _ in play.main)


@pytest.mark.parametrize("name", LANGUAGES)
def test_judge_slip_agrees_with_the_oracle(name, cache_dir):
    """Every slip that writes an oracle play exactly is paid its score; a slip of a listed word at a random
    square near the tiles, with random blank marks, is paid what the oracle says that placement is worth
    (classic rules: the real score of a legal play, else 0), whichever search runs."""
    lang = language(name, cache_dir)
    fisf, classic = rules_preset("fisf"), rules_preset("classic")
    downwards = rules_preset("classic", first_move_horizontal=False)
    rng = random.Random(f"{SEED}-{name}-slips")
    words = sorted(lang.words)
    paid_some = paid_nothing = 0
    for position in positions(name, cache_dir):
        board, rack = Board.from_rows(board_rows(position.board, lang)), rack_text(position.rack, lang)
        where = f"{name} position {position.number}: {board_rows(position.board, lang)} {rack!r}"
        plays = sorted(position.plays.values(), key=lambda p: sorted(p.tiles))
        # A slip may name a first move down (the searches list only the first moves across, its mirrors).
        judged_plays = position.plays if position.board else oracle_plays({}, position.rack, lang, downwards)
        for play in rng.sample(plays, min(2, len(plays))):
            slip = Slip(_slip_word(play, lang), format_ref(play.row, play.col, play.horizontal), play.score)
            judged = judge_slip(board, rack, 2, slip, lang.lexicon, lang.tileset, fisf)
            assert (judged.outcome, judged.reason, judged.paid) == ("ok", "ok", play.score), (where, slip, judged)
            assert engine_key(judged.play, lang) == play.tiles, (where, slip)
            wrong = Slip(slip.word, slip.ref, play.score + 1)
            judged = judge_slip(board, rack, 2, wrong, lang.lexicon, lang.tileset, fisf)
            assert (judged.outcome, judged.reason, judged.paid) == ("warning", "wrong_score", play.score), where
        for _ in range(3):
            word, spot, marks = _random_slip(position, words, lang, rng)
            row, col, horizontal = spot
            text = "".join(_label(lang, code, k in marks) for k, code in enumerate(word))
            expected = _oracle_play(position, judged_plays, word, spot, marks)
            slip = Slip(text, format_ref(row, col, horizontal), None)
            judged = judge_slip(board, rack, 2, slip, lang.lexicon, lang.tileset, classic)
            if expected is None:
                assert (judged.outcome, judged.paid) == ("zero", 0), (where, slip, judged)
                paid_nothing += 1
            else:
                assert (judged.outcome, judged.paid) == ("ok", expected.score), (where, slip, judged)
                assert engine_key(judged.play, lang) == expected.tiles, (where, slip)
                paid_some += 1
    assert paid_some >= 50 and paid_nothing >= 50, (paid_some, paid_nothing)


def _random_slip(position, words, lang, rng):
    """A listed word at a random square next to a board tile (or across the centre), in a random
    direction, with random letters marked as blanks when the rack holds blanks."""
    if rng.random() < 0.5 and position.plays:
        play = rng.choice(sorted(position.plays.values(), key=lambda p: sorted(p.tiles)))
        word = tuple(code for code, _, _ in play.main)
        spot = (play.row, play.col, play.horizontal)
        if rng.random() < 0.5:  # the other direction, or a square further
            spot = rng.choice([(play.row, play.col, not play.horizontal),
                               (play.row + rng.randint(-1, 1), play.col + rng.randint(-1, 1), play.horizontal)])
    else:
        word = rng.choice(words)
        near = sorted({(r + dr, c + dc) for r, c in position.board for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
                      or {CENTRE})
        r, c = rng.choice(near)
        horizontal = rng.random() < 0.5
        k = rng.randrange(len(word))
        spot = (r, c - k, horizontal) if horizontal else (r - k, c, horizontal)
    row, col, _ = spot
    spot = (max(0, min(SIZE - 1, row)), max(0, min(SIZE - 1, col)), spot[2])
    marks = {k for k in range(len(word)) if position.rack[1] and rng.random() < 0.25}
    return word, spot, marks


def _oracle_play(position, plays, word, spot, marks):
    """The oracle's play a placement written with these blank marks is: the play of exactly those tiles if
    it is legal, else None (a letter written over a board tile is the board's, whatever its mark)."""
    row, col, horizontal = spot
    dr, dc = _step(horizontal)
    squares = [(row + k * dr, col + k * dc) for k in range(len(word))]
    if any(r >= SIZE or c >= SIZE for r, c in squares):
        return None
    before, after = (row - dr, col - dc), (row + len(word) * dr, col + len(word) * dc)
    if before in position.board or after in position.board:
        return None
    tiles = frozenset((r, c, word[k], k in marks) for k, (r, c) in enumerate(squares) if (r, c) not in position.board)
    if any(position.board[sq][0] != word[k] for k, sq in enumerate(squares) if sq in position.board):
        return None
    return plays.get(tiles)
