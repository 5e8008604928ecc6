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
    """Wrong join codes per client address (an IPv6 address by its /64 network, what one subscriber gets).

    A right code is never held up: a hall of a thousand phones joining through one address (venue NAT, a
    reverse proxy) joins at once, phone after phone, however many wrong codes came from the same address or
    from anywhere else. So nothing is refused before its code is looked up (``allow_request`` lets every
    request through); the view counts a wrong code with ``record_failure``, at once and before answering it
    (``arbiter.cache.count``: Redis ``INCR``, atomic; the embedded cache counts under a lock), and answers
    429 rather than 404 past ``num_requests`` in the window, however many arrive at the same moment.

    Since a right code is always looked up, a guesser learns from every answer, 429 included: guessing is
    kept hopeless by the size of the code space, not by this limit (docs/security.md, Join codes, gives the
    figures). The view alone consults ``held`` for the short codes of games made before codes had
    JOIN_CODE_LENGTH characters. There is no limit across all addresses: it would let a spray of wrong codes
    from many addresses shut every hall out."""

    scope = "join_failures"

    def get_ident(self, request):
        import ipaddress

        address = super().get_ident(request)
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return address
        if ip.version == 4:
            return str(ip)
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))

    def allow_request(self, request, view):
        return True  # a right code is always looked up: the view counts the wrong ones (record_failure)

    def held(self, request, view) -> bool:
        """Whether the address has had ``num_requests`` wrong codes in the window."""
        if self.rate is None:
            return False
        try:
            failures = int(self.cache.get(self.get_cache_key(request, view)) or 0)
        except Exception:
            logger.warning("join guesses not counted: the cache cannot be reached", exc_info=True)
            return False
        return failures >= self.num_requests

    def record_failure(self, request, view) -> bool:
        """Count a wrong code (atomic); False when the address is past its limit (answer 429)."""
        from arbiter.cache import count

        if self.rate is None:
            return True
        try:
            seen = count(self.cache, self.get_cache_key(request, view), timeout=self.duration)
        except Exception:
            logger.warning("join guess not recorded: the cache cannot be reached", exc_info=True)
            return True
        return seen is None or seen <= self.num_requests

    def wait(self):
        return float(self.duration)  # at most: the window opened with an earlier wrong code


class AuthRateThrottle(AddressRateThrottle):
    """Token requests per client address: guessing an arbitrator's password must be slow."""

    scope = "auth"
