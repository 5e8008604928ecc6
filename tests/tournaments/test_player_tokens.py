"""Player tokens are long and random: a thousand of them, issued by registrations and joins through the API,
are all distinct, each carries at least 32 random bytes, and their letters and bits look random.

Their hash is an unsalted SHA-256 (tournaments.services.setup.hash_token): sound only because the tokens
cannot be guessed, which is what this test holds to. Short, sequential or patterned tokens fail it."""

from __future__ import annotations

import base64
import hashlib
import secrets
import string
from collections import Counter

import pytest

from tournaments.models import Game, Player
from tournaments.services import player_join, player_register

from .api_support import expect

# Each test with cache keys of its own (throttle counters, live versions).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

ALPHABET = string.ascii_letters + string.digits + "-_"  # URL-safe base64


def chi_square(counts: Counter, symbols: int, total: int) -> float:
    expected = total / symbols
    return sum((counts.get(s, 0) - expected) ** 2 / expected for s in range(symbols))


def test_a_thousand_player_tokens_are_distinct_long_and_random(api_game):
    game = api_game(players=0)
    tokens = []
    for n in range(100):  # through the API: the arbitrator's registrations and the phones' joins
        tokens.append(expect(game.arbitrator.post(game.url("/players"), {"name": f"Seat {n}"}, format="json"),
                             201)["token"])
        tokens.append(expect(game.arbitrator.post("/api/join", {"join_code": game.join_code, "name": f"Phone {n}"},
                                                  format="json"), 201)["token"])
    registered = Game.objects.get(pk=game.id)
    for n in range(400):  # the same services, without HTTP around them, for numbers worth a statistic
        tokens.append(player_register(game=registered, name=f"Table {n}")[1])
        tokens.append(player_join(join_code=game.join_code, name=f"Guest {n}")[1])

    assert len(tokens) == 1000
    assert_long_and_random(tokens)

    # Only the hash is stored, never the token.
    stored = dict(Player.objects.filter(tournament_id=game.tournament_id).values_list("token_hash", "name"))
    assert len(stored) == 1000
    for token in tokens[:50]:
        assert hashlib.sha256(token.encode()).hexdigest() in stored
    assert not set(tokens) & set(Player.objects.values_list("token_hash", flat=True))


def assert_long_and_random(tokens: list[str]) -> None:
    assert len(set(tokens)) == len(tokens)
    raw = []
    for token in tokens:
        assert set(token) <= set(ALPHABET), token
        decoded = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        assert len(decoded) >= 32, token
        raw.append(decoded[:32])

    # Letters: the first 42 characters of each token carry 6 random bits each (the 43rd only 4).
    letters = Counter(ALPHABET.index(ch) for token in tokens for ch in token[:42])
    assert len(letters) == 64
    assert chi_square(letters, 64, 42 * len(tokens)) < 150  # 63 degrees of freedom: about 63 ± 11 when random
    # Bytes and bits of the decoded tokens.
    octets = Counter(b for token in raw for b in token)
    assert chi_square(octets, 256, 32 * len(raw)) < 400  # 255 degrees of freedom: about 255 ± 23 when random
    ones = sum(bin(b).count("1") for token in raw for b in token)
    assert abs(ones / (256 * len(raw)) - 0.5) < 0.01
    # No shared beginnings (sequential or prefixed tokens) and no token one away from another.
    ordered = sorted(tokens)
    common = max(len(_common_prefix(a, b)) for a, b in zip(ordered, ordered[1:], strict=False))
    assert common <= 6
    numbers = sorted(int.from_bytes(token, "big") for token in raw)
    assert min(b - a for a, b in zip(numbers, numbers[1:], strict=False)) > 2**200


def _encoded(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.mark.parametrize("make", [
    lambda n: _encoded(secrets.token_bytes(16)),  # short
    lambda n: _encoded(n.to_bytes(32, "big")),  # sequential
    lambda n: _encoded(hashlib.sha256(b"seed").digest()[:24] + n.to_bytes(8, "big")),  # a fixed prefix
    lambda n: _encoded(bytes(secrets.choice(b"abcdefghijklmnop") for _ in range(32))),  # few symbols
], ids=["short", "sequential", "prefixed", "few-symbols"])
def test_the_check_refuses_short_or_patterned_tokens(make):
    with pytest.raises(AssertionError):
        assert_long_and_random([make(n) for n in range(1000)])


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]
