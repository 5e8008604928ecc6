"""Choosing the master move among the plays tied at the top (rules §3.5, FISF §3.4).

The arbitrator may confirm the proposal or pick another top; the proposal is deterministic:

1. **No blank if possible**: if any tied play places no blank, only those remain.
2. **A play that ends the game** is chosen (among what rule 1 left): with the rack known, a play
   after which the letters left (bag + the rack's unplayed letters) end the game (§3.7).
3. **The most open board**: among the rest, the play after which the board has the most anchor
   squares (empty squares next to a tile, where the next plays can hook on); then, of those, the
   one leaving fewest of those anchors on word-premium squares (so the openness is not only a
   gift of double/triple-word squares); then the fewest tiles placed (the smallest change).
4. **Fixed order**: the reference, row then column, across before down, then the word.
"""

from __future__ import annotations

from collections import Counter

from .drawing import game_is_over, sort_tiles
from .layout import SIZE, WORD_MULTIPLIER
from .tiles import BLANK_CHAR, EMPTY


def uses_blank(play) -> bool:
    return any(is_blank for _, _, _, is_blank in play.tiles)


def leave(rack: str, play) -> str:
    """The rack's letters the play does not place (a placed blank is taken from the rack's ``?``), in
    display order."""
    used = Counter(BLANK_CHAR if is_blank else letter for _, _, letter, is_blank in play.tiles)
    return sort_tiles((Counter(rack) - used).elements())


def anchors(board) -> list[tuple[int, int]]:
    """Empty squares orthogonally next to a tile."""
    squares = board.squares
    found = []
    for i, tile in enumerate(squares):
        if tile != EMPTY:
            continue
        row, col = divmod(i, SIZE)
        if ((col and squares[i - 1]) or (col < SIZE - 1 and squares[i + 1])
                or (row and squares[i - SIZE]) or (row < SIZE - 1 and squares[i + SIZE])):
            found.append((row, col))
    return found


def openness(board, play) -> tuple[int, int]:
    """(anchor squares after the play, of which on word-premium squares)."""
    after = anchors(board.place(play))
    premium = sum(1 for row, col in after if WORD_MULTIPLIER[row * SIZE + col] > 1)
    return len(after), premium


def ref_order(play):
    return (play.row, play.col, not play.horizontal, play.word)


def choose_master(tops, board, bag, tileset, rules, rack: str | None = None):
    """The proposed master move among the tied tops (a Tops or a sequence of Play); see the module's
    docstring.  Without ``rack``, rule 2 is skipped.  Raises ValueError when there is no play."""
    plays = list(getattr(tops, "plays", tops))
    if not plays:
        raise ValueError("no play to choose a master from")
    no_blank = [play for play in plays if not uses_blank(play)]
    if no_blank:
        plays = no_blank
    if rack is not None:
        ending = [play for play in plays if game_is_over(bag, leave(rack, play), tileset, rules)]
        if ending:
            plays = ending

    def key(play):
        anchor_count, premium_anchors = openness(board, play)
        return (-anchor_count, premium_anchors, len(play.tiles), ref_order(play))

    return min(plays, key=key)
