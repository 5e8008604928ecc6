"""End-of-game tallies (rules document §4): what a player's warnings cost and what their solos earn,
from the scores each round paid.  The service sums them into the standings of a finished game."""
from __future__ import annotations


def warning_deduction(warnings: int, rules) -> int:
    """Points deducted at the end of a game for this many warnings: the ones beyond
    ``rules.free_warnings`` cost ``rules.warning_cost`` each."""
    if not rules.warnings:
        return 0
    return max(0, warnings - rules.free_warnings) * rules.warning_cost


def count_solos(round_scores) -> dict:
    """Solos per player: a round where the player's score is strictly higher than every other
    player's.  ``round_scores`` is one {player: paid score} per round: the round's paid scores, after a
    slip's −5 penalty and before the end-of-game warning costs (rules §4), listing every player of the
    round (0 for a missing slip); a round with a single player gives no solo."""
    solos: dict = {}
    for scores in round_scores:
        if len(scores) < 2:
            continue
        ranked = sorted(scores.values(), reverse=True)
        if ranked[0] > ranked[1]:
            player = max(scores, key=scores.get)
            solos[player] = solos.get(player, 0) + 1
    return solos


def solos_count(n_players: int, rules) -> bool:
    """Whether solos count in a game of ``n_players`` (players who played at least one round): the rules
    have solos and the game had at least ``rules.solo_min_players`` players.  Every reader of solos (the
    standings, the bonuses, the solutions sheet) asks this one rule."""
    return bool(rules.solos) and n_players >= rules.solo_min_players


def solo_bonuses(round_scores, n_players: int, rules) -> dict:
    """Bonus points per player for their solos: ``rules.solo_bonus`` each, when solos count
    (``solos_count``); otherwise none."""
    if not solos_count(n_players, rules):
        return {}
    return {player: count * rules.solo_bonus for player, count in count_solos(round_scores).items()}
