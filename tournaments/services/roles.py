"""Arbitrators' roles in a game: the head runs the clock, the racks, the master, the end and the incidents,
and names the roles; assistants enter and correct slips.

The creator of a tournament is its head, and the creator of a game its head (recorded as the game's first
role: ``record_creator``). Roles are granted by a head of the game, or a superuser, and every grant is
logged: nobody names themselves to a role in a game that has a head.

A game with no role recorded takes its tournament's: the tournament's heads (its creator, the heads of its
other games) are its heads and the assistants of its other games its assistants; a staff user with no role
in any of its games has none in it (the head of another tournament reissues no token, renews no projector
link, reads no record here). A tournament with no head known (no role recorded in any of its games, and no
creator among the arbitrators: made by a command, or before creators were kept) is a club night: every
staff arbitrator acts as head, and the first role recorded in one of its games ends that. Superusers keep
the head's rights, to rescue a game whose head is away.

The tournament's own actions follow the same rule (``tournament_role``): creating a game in it or importing
a record into it takes a head's role in it; reading it (its page, its standings sheet) takes any role in
one of its games.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from tournaments.errors import Conflict, Forbidden, NotFound, ServiceError
from tournaments.models import Game, GameArbitrator, Player, Tournament
from tournaments.scoping import player_game
from tournaments.versions import notify_game_changed

from .logbook import log

HEAD = GameArbitrator.Role.HEAD
ASSISTANT = GameArbitrator.Role.ASSISTANT
NO_ROLE = "none"
ROLES = (HEAD, ASSISTANT, NO_ROLE)


def _is_staff(user) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False) and getattr(user, "is_active", True)
                and getattr(user, "is_staff", False))


def _an_id(value) -> bool:
    """An id a database column can hold (beyond, a query on a foreign key fails instead of finding nothing)."""
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def role_of(game_id: int, user) -> str | None:
    """The user's role in the game: ``head``, ``assistant`` or None (no role, or not an arbitrator)."""
    if not _is_staff(user):
        return None
    if getattr(user, "is_superuser", False) or not _an_id(game_id):
        return HEAD  # no such game (an id no column holds): the view answers 404
    roles = dict(GameArbitrator.objects.filter(game_id=game_id).values_list("user_id", "role"))
    if roles:
        return roles.get(user.pk)
    tournament_id = Game.objects.filter(pk=game_id).values_list("tournament_id", flat=True).first()
    return tournament_role(tournament_id, user) if tournament_id is not None else HEAD  # no such game: 404


def creator_of(tournament_id: int):
    """The tournament's creator while they are an active staff arbitrator (its head), else None."""
    creator_id = Tournament.objects.filter(pk=tournament_id).values_list("created_by_id", flat=True).first()
    if creator_id is None:
        return None
    creator = get_user_model().objects.filter(pk=creator_id).first()
    return creator if _is_staff(creator) else None


def tournament_role(tournament_id: int, user) -> str | None:
    """The user's role in the tournament: ``head`` when they created it, or are head in one of its games;
    ``assistant`` when assistant in one; else None (superusers: head). A tournament with no head known (no
    role recorded in any of its games, no creator among the arbitrators: made by a command, or before its
    creator was kept) is every staff arbitrator's, as head."""
    if not _is_staff(user):
        return None
    if getattr(user, "is_superuser", False) or not _an_id(tournament_id):
        return HEAD  # no such tournament: the view answers 404
    recorded = GameArbitrator.objects.filter(game__tournament_id=tournament_id)
    mine = set(recorded.filter(user_id=user.pk).values_list("role", flat=True))
    if HEAD in mine:
        return HEAD
    creator = creator_of(tournament_id)
    if creator is not None and creator.pk == user.pk:
        return HEAD
    if creator is None and not recorded.exists():
        return HEAD
    return ASSISTANT if mine else None


def record_creator(game: Game, actor) -> None:
    """The creator of a game is its head: ``actor`` when an arbitrator creates it, else (the server, a
    command) the tournament's creator when known. Recorded as the game's first role, before its log begins
    (a new game's empty log lets it be deleted); its grants from then on are the head's, logged."""
    head = actor if _is_staff(actor) else creator_of(game.tournament_id)
    if head is not None:
        GameArbitrator.objects.get_or_create(game=game, user=head, defaults={"role": HEAD})


def require_head(game_id: int, user) -> None:
    """403 ``head_only`` unless the user runs the game (the clock, the racks, the master, incidents, roles)."""
    role = role_of(game_id, user)
    if role != HEAD:
        raise Forbidden("head_only", params={"role": role or NO_ROLE})


def require_arbitrator(game_id: int, user) -> None:
    """403 ``not_game_arbitrator`` unless the user has a role in the game (head or assistant)."""
    if role_of(game_id, user) is None:
        raise Forbidden("not_game_arbitrator", params={"role": NO_ROLE})


def act_as(require, game_id: int, actor) -> None:
    """``require(game_id, actor)`` for an arbitrator acting through a service, whichever door they came by
    (the console, the API); ``actor`` None is the server itself (the clock, a restore's playback, a
    command), which no role limits."""
    if actor is not None:
        require(game_id, actor)


def act_on_player(require, game: Game, player: Player, actor) -> Game:
    """A change of the player themself (a new token, a new table, their identity) asked through ``game``:
    ``require(game, actor)``, then 404 unless the player plays ``game`` and it is the player's game
    (tournaments.scoping.player_game: the one they are playing or will play next), where the change is
    logged. A change reaches every game the player plays with their one token and table: through another
    game (where the caller may have no role), it is refused. Returns the game, its tournament read."""
    act_as(require, game.pk, actor)
    own = player_game(player) if Player.objects.in_game(game).filter(pk=player.pk).exists() else None
    if own is None:
        raise NotFound("unknown_player", fields={"player": ["unknown"]}, params={"why": "in_game"})
    if own.pk != game.pk:
        raise NotFound("unknown_player", fields={"player": ["plays another game"]},
                       params={"why": "player_game", "name": player.name, "number": own.number})
    return own


def require_tournament_head(tournament_id: int, user) -> None:
    """403 ``head_only`` unless the user may create games in the tournament and import records into it."""
    role = tournament_role(tournament_id, user)
    if role != HEAD:
        raise Forbidden("head_only", params={"role": role or NO_ROLE, "why": "tournament"})


def require_tournament_arbitrator(tournament_id: int, user) -> None:
    """403 ``not_game_arbitrator`` unless the user has a role in one of the tournament's games."""
    if tournament_role(tournament_id, user) is None:
        raise Forbidden("not_game_arbitrator", params={"role": NO_ROLE, "why": "tournament"})


def arbitrators(game: Game) -> list[dict]:
    """The roles recorded in the game, heads first (empty: every staff arbitrator acts as head)."""
    rows = GameArbitrator.objects.filter(game=game).select_related("user").order_by("id")
    listed = [{"user": row.user.get_username(), "role": row.role} for row in rows]
    return sorted(listed, key=lambda row: row["role"] != HEAD)


def arbitrator_set(*, game: Game, username: str, role: str, actor) -> list[dict]:
    """Give ``username`` a role in the game (``head`` or ``assistant``), or take it away (``none``); logged.

    The first role recorded in a game makes the arbitrator who records it its head as well (else nobody
    would be left to run it). The last head cannot be made an assistant, nor taken away while assistants
    remain (409 ``last_head``); taking every role away gives the game back to every staff arbitrator.
    """
    if role not in ROLES:
        raise ServiceError("bad_role", fields={"role": ["unknown"]},
                           params={"role": str(role), "choices": ", ".join(ROLES)})
    name = str(username or "").strip()
    user = get_user_model().objects.filter(username=name).first()
    if user is None or not _is_staff(user):
        raise NotFound("unknown_arbitrator", fields={"user": ["not an arbitrator"]},
                       params={"user": name})
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        require_head(game.pk, actor)
        before = arbitrators(game)
        if not before and role != HEAD and getattr(actor, "pk", None) != user.pk and _is_staff(actor):
            GameArbitrator.objects.create(game=game, user=actor, role=HEAD)
        if role == NO_ROLE:
            GameArbitrator.objects.filter(game=game, user=user).delete()
        else:
            GameArbitrator.objects.update_or_create(game=game, user=user, defaults={"role": role})
        after = arbitrators(game)
        if after and not any(row["role"] == HEAD for row in after):
            raise Conflict("last_head", fields={"role": ["the last head"]}, params={"user": name})
        log(game=game, action="arbitrator_role", actor=actor, before={"arbitrators": before},
            after={"user": name, "role": role, "arbitrators": after})
        notify_game_changed(game.pk)
    return after
