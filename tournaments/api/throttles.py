"""Rate limits: slips per player (a phone that loops must not flood the round), and per client address the
requests that guess a secret (wrong join codes, arbitrator passwords).

The client address is the connection's; ``X-Forwarded-For`` is read only through DRF's ``NUM_PROXIES``
(the TRUSTED_PROXIES setting: how many reverse proxies of ours stand in front), by the same function as the
login limits (``tournaments.security.client_address``). Counters live in the shared cache; when the cache
cannot be reached the limits let requests through (logged) rather than fail them.
"""

from __future__ import annotations

import logging

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)


class ScopedRateThrottle(SimpleRateThrottle):
    """The rate of ``scope`` in ``DEFAULT_THROTTLE_RATES``, read at each request (not at import) so that a
    deployment or a test can change it; no rate set means no limit."""

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def __init__(self):
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)

    def get_ident(self, request):
        from tournaments.security import client_address

        return client_address(request) or ""

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except Exception:  # the cache is down: a limit is not worth refusing a slip or a login for
            logger.warning("rate limit %s not checked: the cache cannot be reached", self.scope, exc_info=True)
            return True


class SlipRateThrottle(ScopedRateThrottle):
    """Slips per player token; the arbitrator entering paper slips is not limited.

    On the hot path of a festival's deadline: a counter per player whose window opens with the player's
    first slip and lasts ``duration`` seconds, one cache round trip (DRF's sliding history costs a read
    and a write of a list)."""

    scope = "slips"

    def get_cache_key(self, request, view):
        player = getattr(request.user, "player", None)
        if player is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": f"player-{player.pk}"}

    def allow_request(self, request, view):
        from arbiter.cache import count

        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        self.now = self.timer()
        try:
            # The window opens with the player's first slip and lasts ``duration`` seconds.
            seen = count(self.cache, f"{key}:window", timeout=self.duration)
        except Exception:
            logger.warning("slip rate not checked: the cache cannot be reached", exc_info=True)
            return True
        return seen is None or seen <= self.num_requests

    def wait(self):
        return float(self.duration)  # at most: the window opened with an earlier slip


class AddressRateThrottle(ScopedRateThrottle):
    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class JoinFailureThrottle(AddressRateThrottle):
    """Wrong join codes per client address: guessing a code must be slow, but a hall of a thousand phones
    joining through one address (venue NAT, a reverse proxy) is never held up by its successful joins.

    ``allow_request`` only reads the history of failures; ``record_failure`` adds to it once a join was
    refused for its code."""

    scope = "join_failures"

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        try:
            self.key = self.get_cache_key(request, view)
            self.history = self.cache.get(self.key, [])
            self.now = self.timer()
            while self.history and self.history[-1] <= self.now - self.duration:
                self.history.pop()
            return len(self.history) < self.num_requests or self.throttle_failure()
        except Exception:
            logger.warning("join guesses not counted: the cache cannot be reached", exc_info=True)
            return True

    def record_failure(self, request, view) -> None:
        if self.rate is None:
            return
        try:
            key = self.get_cache_key(request, view)
            now = self.timer()
            history = [t for t in self.cache.get(key, []) if t > now - self.duration]
            self.cache.set(key, [now, *history][: self.num_requests + 1], self.duration)
        except Exception:
            logger.warning("join guess not recorded: the cache cannot be reached", exc_info=True)


class JoinFailureAllThrottle(JoinFailureThrottle):
    """Wrong join codes from every address together: guessers spread over many addresses are slowed too."""

    scope = "join_failures_all"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": "all"}


class AuthRateThrottle(AddressRateThrottle):
    """Token requests per client address: guessing an arbitrator's password must be slow."""

    scope = "auth"
