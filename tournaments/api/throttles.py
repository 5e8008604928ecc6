"""Rate limit of slip submission, counted per player (a phone that loops must not flood the round)."""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class SlipRateThrottle(SimpleRateThrottle):
    """``DEFAULT_THROTTLE_RATES["slips"]`` per player token; arbitrators entering paper slips are not limited."""

    scope = "slips"

    def get_rate(self):
        # Read at each request (not at import) so a deployment or a test can change the rate.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def __init__(self):
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)

    def get_cache_key(self, request, view):
        player = getattr(request.user, "player", None)
        if player is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": f"player-{player.pk}"}


class JoinRateThrottle(SimpleRateThrottle):
    """``DEFAULT_THROTTLE_RATES["join"]`` per client address: join codes are short, guessing must be slow."""

    scope = "join"

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def __init__(self):
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
