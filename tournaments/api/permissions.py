"""What a caller may do: arbitrators (staff users) run the game, a player acts for themself in their game."""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from tournaments.api.authentication import PlayerPrincipal


def is_arbitrator(user) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False) and getattr(user, "is_staff", False))


def player_of(request):
    """The player calling, when it is a player token valid for this game; else None."""
    user = request.user
    return user.player if isinstance(user, PlayerPrincipal) else None


class IsArbitrator(BasePermission):
    message = "Only an arbitrator may do this."
    code = "arbitrator_only"

    def has_permission(self, request, view) -> bool:
        return is_arbitrator(request.user)


class IsPlayer(BasePermission):
    """A player token valid for the game in the URL."""

    message = "This player token is not valid for this game."
    code = "wrong_game"

    def has_permission(self, request, view) -> bool:
        return player_of(request) is not None


def _game_role(request, view) -> str | None:
    """The caller's role in the game of the URL (every staff arbitrator is head in a game without roles)."""
    from tournaments.services import role_of

    game_id = view.kwargs.get("game_id") if hasattr(view, "kwargs") else None
    if game_id is None:
        return "head"
    return role_of(game_id, request.user)


class _GameRole(BasePermission):
    """An arbitrator whose role in the game of the URL allows the action; a caller who is no arbitrator at
    all is refused as IsArbitrator refuses (403 ``arbitrator_only``)."""

    def has_permission(self, request, view) -> bool:
        if not is_arbitrator(request.user):
            self.message, self.code = IsArbitrator.message, IsArbitrator.code
            return False
        return self.allows(_game_role(request, view))

    def allows(self, role: str | None) -> bool:
        raise NotImplementedError


class IsHeadArbitrator(_GameRole):
    """The game's head arbitrator: the clock, the racks, the master, the end, incidents and roles."""

    message = "Only the game's head arbitrator may do this."
    code = "head_only"

    def allows(self, role: str | None) -> bool:
        return role == "head"


class IsGameArbitrator(_GameRole):
    """An arbitrator with a role in the game of the URL, head or assistant (assistants enter and correct
    slips)."""

    message = "You have no arbitrator's role in this game."
    code = "not_game_arbitrator"

    def allows(self, role: str | None) -> bool:
        return role is not None


class IsTournamentHead(BasePermission):
    """A head arbitrator of the tournament of the URL (services.roles.tournament_role): creating its games,
    importing records into it."""

    message = "Only a head arbitrator of this tournament may do this."
    code = "head_only"

    def has_permission(self, request, view) -> bool:
        from tournaments.services import HEAD, tournament_role

        if not is_arbitrator(request.user):
            self.message, self.code = IsArbitrator.message, IsArbitrator.code
            return False
        return tournament_role(view.kwargs.get("tournament_id"), request.user) == HEAD


class IsTournamentArbitrator(BasePermission):
    """An arbitrator with a role in one of the games of the tournament of the URL: reading its sheets."""

    message = "You have no arbitrator's role in this tournament."
    code = "not_game_arbitrator"

    def has_permission(self, request, view) -> bool:
        from tournaments.services import tournament_role

        if not is_arbitrator(request.user):
            self.message, self.code = IsArbitrator.message, IsArbitrator.code
            return False
        return tournament_role(view.kwargs.get("tournament_id"), request.user) is not None


class IsGameArbitratorOrPlayer(BasePermission):
    """A player of the game (a bearer token valid for it), or an arbitrator with a role in it."""

    message = "Only an arbitrator of this game or one of its players may do this."
    code = "forbidden"

    def has_permission(self, request, view) -> bool:
        if player_of(request) is not None:
            return True
        return is_arbitrator(request.user) and _game_role(request, view) is not None




class ScopedUrl:
    """A view mixin: once the caller is let in for the URL's game, a player, slip, round or late slip the URL
    names must be of that game, else 404 (tournaments/scoping.py): a role in one game never reaches an
    object of another through its URL."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        from tournaments.errors import NotFound
        from tournaments.scoping import mismatched

        name = mismatched(kwargs)
        if name is not None:
            params = {"game": kwargs.get("game_id"), "round": kwargs.get("number"), "player": kwargs.get("player_id"),
                      "slip": kwargs.get("slip_id"), "late": kwargs.get("late_id")}
            why = {"player_id": "player", "slip_id": "slip", "late_id": "late_slip", "number": "round"}.get(name, "game")
            raise NotFound("not_found", params={**params, "why": why})
