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


class IsArbitratorOrPlayer(BasePermission):
    message = "Only the arbitrator or a player of this game may do this."
    code = "forbidden"

    def has_permission(self, request, view) -> bool:
        return is_arbitrator(request.user) or player_of(request) is not None
