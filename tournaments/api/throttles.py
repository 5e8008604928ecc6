"""Rate limits: slips per player (a phone that loops must not flood the round), and per client address the
requests that guess a secret (join codes, arbitrator passwords)."""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class ScopedRateThrottle(SimpleRateThrottle):
    """The rate of ``scope`` in ``DEFAULT_THROTTLE_RATES``, read at each request (not at import) so that a
    deployment or a test can change it; no rate set means no limit."""

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def __init__(self):
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)


class SlipRateThrottle(ScopedRateThrottle):
    """Slips per player token; the arbitrator entering paper slips is not limited."""

    scope = "slips"

    def get_cache_key(self, request, view):
        player = getattr(request.user, "player", None)
        if player is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": f"player-{player.pk}"}


class AddressRateThrottle(ScopedRateThrottle):
    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class JoinRateThrottle(AddressRateThrottle):
    """Joins per client address: join codes are short, guessing them must be slow."""

    scope = "join"


class AuthRateThrottle(AddressRateThrottle):
    """Token requests per client address: guessing an arbitrator's password must be slow."""

    scope = "auth"
