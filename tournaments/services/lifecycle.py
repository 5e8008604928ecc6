"""A tournament's settings edited, a game deleted, archived or brought back.

What "started" means here: a game has started once a round of it was drawn; a tournament once one of its
games has. Before, every setting of the tournament can change; after, its name only (the racks drawn, the
slips judged and the sheets printed follow the lexicon, rules, clock and coordinates they were played with).

A game is deleted only while its log is empty: nobody registered, no round drawn, no role named (each of
those is a log entry, and the log is append-only: migrations 0002 and 0012). The deletion is written in the
server's log (there is no game log left to write it in). A game with a log is archived instead: hidden from
the home page (the phones' list of games in play), still reached by the console, its sheets and exports;
archiving and bringing back are logged in the game's log. A tournament is deleted with its games, when each
of them could be.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from tournaments.errors import Conflict, ServiceError
from tournaments.models import Game, LogEntry, Round, Tournament

from .logbook import log
from .roles import act_as, require_head, require_tournament_head
from .setup import tournament_settings

logger = logging.getLogger(__name__)

# The settings a tournament is created with; those a started tournament can still change.
TOURNAMENT_SETTINGS = ("name", "lexicon", "tileset", "ruleset", "round_seconds", "coordinates", "language",
                       "variant", "timing")
CHANGEABLE_AFTER_START = ("name",)


def game_started(game: Game) -> bool:
    return Round.objects.filter(game_id=game.pk).exists()


def tournament_started(tournament: Tournament) -> bool:
    return Round.objects.filter(game__tournament_id=tournament.pk).exists()


def game_deletable(game: Game) -> bool:
    """Nothing in its log (so no round drawn either: a draw is logged)."""
    return not LogEntry.objects.filter(game_id=game.pk).exists()


def tournament_update(*, tournament: Tournament, changes: dict, actor=None) -> Tournament:
    """Change the tournament's settings (``changes``: some of TOURNAMENT_SETTINGS, plus rule overrides
    under ``rule_overrides``), checked as at its creation. Once started, its name only: 409
    ``tournament_started`` for any other setting that would change. By a head arbitrator of the
    tournament. Written in the server's log, and in the log of each of its games that has one."""
    act_as(require_tournament_head, tournament.pk, actor)
    unknown = sorted(set(changes) - set(TOURNAMENT_SETTINGS) - {"rule_overrides"})
    if unknown:
        raise ServiceError("unknown_setting", fields={name: ["unknown"] for name in unknown},
                           params={"setting": ", ".join(unknown)})
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        current = {name: getattr(tournament, name) for name in TOURNAMENT_SETTINGS}
        overrides = changes.get("rule_overrides", tournament.rule_overrides)
        if not isinstance(overrides, dict) or set(overrides) & {*TOURNAMENT_SETTINGS, "lexicon_sha256"}:
            raise ServiceError("bad_rules", fields={"rule_overrides": ["an object of rules"]},
                               params={"detail": "rule_overrides is an object of the rules' fields"})
        wanted = {**current, **{name: changes[name] for name in TOURNAMENT_SETTINGS if name in changes}}
        if "timing" in changes and "round_seconds" not in changes:
            wanted["round_seconds"] = None  # a new timing brings its round time
        checked = tournament_settings(**wanted, **overrides)
        before = {**current, "rule_overrides": tournament.rule_overrides}
        changed = {name: value for name, value in checked.items()
                   if name != "lexicon_sha256" and before.get(name) != value}
        if not changed:
            return tournament
        frozen = sorted(set(changed) - set(CHANGEABLE_AFTER_START))
        if frozen and tournament_started(tournament):
            raise Conflict("tournament_started", fields={name: ["started"] for name in frozen},
                           params={"settings": ", ".join(frozen)})
        if "lexicon" in changed:
            changed["lexicon_sha256"] = checked["lexicon_sha256"]
        Tournament.objects.filter(pk=tournament.pk).update(**changed)
        for name, value in changed.items():
            setattr(tournament, name, value)
        said_before = {name: before.get(name) for name in changed if name != "lexicon_sha256"}
        said_after = {name: value for name, value in changed.items() if name != "lexicon_sha256"}
        for game in Game.objects.filter(tournament_id=tournament.pk, log__isnull=False).distinct():
            log(game=game, action="tournament_update", actor=actor, before=said_before, after=said_after)
    logger.info("tournament_update: tournament %s by %s: %s -> %s", tournament.pk, _who(actor), said_before,
                said_after)
    return tournament


def game_delete(*, game: Game, actor=None) -> None:
    """Delete a game never started (its log empty), by its head arbitrator; 409 ``game_has_log`` otherwise
    (archive it). Written in the server's log."""
    act_as(require_head, game.pk, actor)
    with transaction.atomic():
        game = Game.objects.select_for_update().select_related("tournament").get(pk=game.pk)
        if not game_deletable(game):
            raise Conflict("game_has_log", params={"game": game.number})
        what = (game.pk, game.number, game.tournament.name)
        game.delete()
    logger.warning("game_delete: game %s (number %s of %r) deleted by %s", *what, _who(actor))


def tournament_delete(*, tournament: Tournament, actor=None) -> None:
    """Delete a tournament with its games, when none of them has a log (none ever started), by a head
    arbitrator of the tournament; 409 ``game_has_log`` naming the first game that has one. Written in the
    server's log."""
    act_as(require_tournament_head, tournament.pk, actor)
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        games = list(Game.objects.select_for_update().filter(tournament_id=tournament.pk).order_by("number"))
        for game in games:
            if not game_deletable(game):
                raise Conflict("game_has_log", params={"game": game.number, "why": "tournament"})
        what = (tournament.pk, tournament.name, len(games))
        tournament.delete()
    logger.warning("tournament_delete: tournament %s (%r, %s games) deleted by %s", *what, _who(actor))


def game_archive(*, game: Game, archived: bool, actor=None) -> Game:
    """Archive the game (``archived`` True) or bring it back (False), by its head arbitrator; logged. Not
    while a round is in play (409 ``round_open``): close it first."""
    act_as(require_head, game.pk, actor)
    if not isinstance(archived, bool):
        raise ServiceError("invalid", fields={"archived": ["true or false"]}, params={"why": "archived"})
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if (game.archived_at is not None) == archived:
            return game
        if archived and Round.objects.filter(game_id=game.pk).in_play().exists():
            raise Conflict("round_open", params={"why": "archive"})
        before = game.archived_at
        game.archived_at = timezone.now() if archived else None
        Game.objects.filter(pk=game.pk).update(archived_at=game.archived_at)
        log(game=game, action="game_archive" if archived else "game_unarchive", actor=actor,
            before={"archived_at": before.isoformat() if before else None},
            after={"archived_at": game.archived_at.isoformat() if game.archived_at else None})
    return game


def _who(actor) -> str:
    return repr(getattr(actor, "username", None) or "the server")
