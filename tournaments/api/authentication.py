"""Who is calling: arbitrators by API token or console session, players by their personal bearer token.

An arbitrator's API token (``Authorization: Token <token>``) is a django-rest-knox token: only its digest
is stored, it expires ``ARBITER_API_TOKEN_HOURS`` after it was issued and is revoked by a password change
or the loss of staff rights (tournaments/security.py). An expired, revoked or unknown token gets 401.

A player token is looked up by its hash (the service layer never stores the token itself) and is only
good for the game named in the URL: a token of another tournament's player is refused by the
permissions (403), a token that matches no player at all is refused here (401).
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from rest_framework.authentication import BaseAuthentication, SessionAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

from tournaments.models import Player
from tournaments.services import hash_token


class ArbitratorTokenAuthentication(KnoxTokenAuthentication):
    """``Authorization: Token <token>``: a token issued by ``POST /api/auth/token``, in force until its
    expiry (the instant itself included: a token is refused from its expiry on)."""

    message = "This API token is not valid: it expired, was revoked or never existed. Ask for a new one."

    def authenticate_credentials(self, token: bytes):
        if len(token) > 200 or not token.isascii():
            raise AuthenticationFailed(self.message)
        try:
            user, row = super().authenticate_credentials(token)
        except AuthenticationFailed:
            raise AuthenticationFailed(self.message) from None
        if row.expiry is not None and row.expiry <= timezone.now():
            row.delete()
            raise AuthenticationFailed(self.message)
        return user, row


class PlayerPrincipal:
    """``request.user`` of a player request: not a Django user, never staff."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_superuser = False

    def __init__(self, player: Player | None, token: str, game_id: int | None):
        self.player = player  # None when the token belongs to a player of another game
        self.token = token
        self.game_id = game_id
        self.pk = None

    def __str__(self) -> str:
        return f"player {self.player.pk}" if self.player else "player of another game"


class PlayerTokenAuthentication(BaseAuthentication):
    """``Authorization: Bearer <player token>`` on the paths of one game (``game_id`` in the URL)."""

    keyword = "Bearer"

    def authenticate(self, request):
        kwargs = (getattr(request, "parser_context", None) or {}).get("kwargs") or {}
        return self.authenticate_for_game(request, kwargs.get("game_id"))

    def authenticate_for_game(self, request, game_id: int | None):
        """(principal, token) for the request's bearer token on game ``game_id``; None without a bearer
        token; AuthenticationFailed for a malformed or unknown one. Also serves the pages' own feeds."""
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None
        if len(parts) != 2:
            raise AuthenticationFailed("The Authorization header must be 'Bearer <player token>'.")
        try:
            token = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise AuthenticationFailed("A player token is plain ASCII.") from None
        if len(token) > 200:
            raise AuthenticationFailed("This player token is not valid.")
        from tournaments import selectors  # the read side; imported late so settings can name this class

        player = selectors.player_for_token(game_id=game_id, token=token) if game_id is not None else None
        if player is None and not Player.objects.filter(token_hash=hash_token(token)).exists():
            raise AuthenticationFailed("This player token is not valid.")
        return PlayerPrincipal(player, token, game_id), token

    def authenticate_header(self, request):
        return self.keyword


class ConsoleSessionAuthentication(SessionAuthentication):
    """The console's session login; CSRF is enforced as for any cookie-authenticated request."""


class ArbitratorTokenScheme(OpenApiAuthenticationExtension):
    target_class = ArbitratorTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "An arbitrator's API token from POST /api/auth/token, sent as 'Token <token>'; "
                               "it expires (see the token's `expires`)."}


class PlayerTokenScheme(OpenApiAuthenticationExtension):
    target_class = PlayerTokenAuthentication
    name = "playerToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "The player's personal token."}


class ConsoleSessionScheme(OpenApiAuthenticationExtension):
    target_class = ConsoleSessionAuthentication
    name = "consoleSession"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid",
                "description": "The console's session login (unsafe methods also send X-CSRFToken)."}
