"""What a printed sheet shows, as plain values: the renderers take these and never touch the database.

``tournaments.sheets.sources`` builds them from the selectors; the benchmark builds them from synthetic
data. References (``ref``) are already written in the event's labelling; words keep the slip convention
(a lowercase letter is a blank).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Header:
    """Printed at the top of every page."""

    tournament: str
    game: str = ""  # e.g. "Game 2"; empty on a tournament-wide sheet
    date: str = ""  # ISO date of the game (or of the tournament's last game)
    lexicon: str = ""
    lexicon_sha256: str = ""
    ruleset: str = ""  # the code (fisf, classic): printed in words
    variant: str = ""  # the variant's code (joker, seven_and_eight...): printed in words when not the classic
    timing: str = ""  # semi_rapid, blitz: printed beside the variant
    coordinates: str = "rows-letters"
    tileset: str = ""  # the code (english, french): printed in words beside the lexicon
    language: str = "en"  # the tournament's language: every word of the sheet is in it
    # A game still in play, or whose last round's paper slips are not all entered: the figures may change.
    provisional: bool = False
    # The log chain's head of each game the sheet shows, when it was printed (logchain.head_text): in the
    # footer and the PDF's keywords, a proof of the log that ``manage.py verifylog --held`` checks.
    chain: str = ""


@dataclass(frozen=True)
class StandingRow:
    rank: int
    name: str
    table: int | None = None
    series: str = ""
    total: int = 0
    diff: int = 0  # the total minus the sum of the tops: 0 for the top, negative below it
    percent: float = 0.0  # of the sum of the tops
    tops: int = 0
    solos: int = 0
    warnings: int = 0
    penalties: int = 0
    game_totals: tuple[int | None, ...] = ()  # tournament sheets: one per game (None: did not play)
    series_rank: int | None = None  # rank among the players of the same series
    seconds: int | None = None  # topping: the total time in seconds, the lowest first (None in any other game)
    game_seconds: tuple[int | None, ...] = ()  # topping tournament sheets: each game's time (None: did not play)


@dataclass(frozen=True)
class Standings:
    header: Header
    rows: tuple[StandingRow, ...]
    top_total: int = 0
    game_labels: tuple[str, ...] = ()  # non-empty for a multi-game tournament: one column per game
    # Non-empty: the rows are printed as these groups instead (a title, then its rows ranked within it), as a
    # simultaneous event's standings by centre, series or category.
    groups: tuple[tuple[str, tuple[StandingRow, ...]], ...] = ()
    timed: bool = False  # topping: a time column after the total; the rows are ranked by it


@dataclass(frozen=True)
class ScoresheetRound:
    number: int
    rack: str
    word: str = ""
    ref: str = ""
    claimed: int | None = None
    paid: int = 0
    outcome: str = ""  # ok, warning, penalty, zero
    reason: str = ""  # machine code, e.g. wrong_score
    top_word: str = ""
    top_ref: str = ""
    top_score: int = 0
    total: int = 0  # the player's cumulative paid score after this round
    top_total: int = 0  # cumulative tops after this round
    # "corrected": the arbitrator corrected the slip or ruled on its result; "late": a late slip admitted
    # (the venue's fault); "": the slip as handed in.
    mark: str = ""
    # Topping: the round's time charged in seconds (the top found after found_after seconds plus any wrong
    # tries' cost, or the round's time plus the penalty; found_after None), and the running total of times.
    seconds: int | None = None
    found_after: int | None = None
    total_seconds: int | None = None


@dataclass(frozen=True)
class Scoresheet:
    header: Header
    name: str
    table: int | None = None
    series: str = ""
    rounds: tuple[ScoresheetRound, ...] = ()
    summary: StandingRow | None = None  # the player's line of the standings
    players: int = 0  # how many players are ranked
    top_total: int = 0
    solo_points: int = 0  # added at the end of the game
    warning_points: int = 0  # deducted at the end of the game (positive number)
    timed: bool = False  # topping: the rounds show their times, the summary the total time


@dataclass(frozen=True)
class RecordTimes:
    """Topping: one player's line of the game record's times."""

    rank: int
    name: str
    seconds: tuple[int, ...] = ()  # per round of GameRecord.time_rounds
    total: int = 0


@dataclass(frozen=True)
class RecordRound:
    number: int
    rack: str
    rejected: tuple[str, ...] = ()  # rejected draws, e.g. "-AEIOUU+"
    master_word: str = ""
    master_ref: str = ""
    master_score: int = 0
    top_total: int = 0
    tops: int = 1  # how many plays tied for the top
    cancelled: bool = False  # no play was possible (or the game ended first): the letters went back
    incidents: tuple[str, ...] = ()  # the clock paused, resumed, extended; a rack replaced; a cancellation


@dataclass(frozen=True)
class GameRecord:
    header: Header
    rounds: tuple[RecordRound, ...] = ()
    board: tuple[str, ...] = field(
        default_factory=lambda: ("." * 15,) * 15
    )  # uppercase tile, lowercase blank
    tileset: str = "english"
    status: str = ""
    # The arbitration log's chain heads (tournaments/logchain.py): (round number, 0 for the game's last
    # entry; the entry's place in the chain; its SHA-256), printed so a paper copy can prove the log unaltered.
    log_heads: tuple[tuple[int, int, str], ...] = ()
    # Topping: each player's seconds in each closed round (time_rounds: their numbers), ranked by the total.
    time_rounds: tuple[int, ...] = ()
    times: tuple[RecordTimes, ...] = ()
