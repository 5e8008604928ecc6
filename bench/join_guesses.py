"""How fast one process answers wrong join codes (POST /api/join), the most a guesser can learn per second.

A right code is always looked up (docs/security.md, Join codes), so every answer tells a guesser something,
the 429s past an address's limit included: the rate of guesses is what the server can answer, and the code
space is what keeps guessing hopeless. Runs in-process (Django's test client, the full middleware stack, no
network) against the configured database and cache, inside a transaction that is rolled back:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/api REDIS_URL=redis://127.0.0.1:6379/2 \\
        .venv/bin/python bench/join_guesses.py [--guesses 3000]

Prints the answers per second of one process, the share answered 429, and the expected time to guess one
given game's code, and one of 1,000 games' codes, at that rate from one process and from 100 of them.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


class Rollback(Exception):
    pass


YEAR = 365.25 * 24 * 3600


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guesses", type=int, default=3000)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.test")
    import logging

    import django

    django.setup()
    logging.disable(logging.WARNING)  # each 429 is logged: not what is measured
    from django.core.cache import cache
    from django.db import connection, transaction
    from django.test import Client

    from tournaments import services
    from tournaments.services.setup import JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH

    statuses: dict[int, int] = {}
    try:
        with transaction.atomic():
            tournament = services.tournament_create(name="bench")
            game = services.game_create(tournament=tournament, seed=1)
            client = Client(HTTP_HOST="localhost", REMOTE_ADDR=f"192.0.2.{secrets.randbelow(250) + 1}")
            codes = ["".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))
                     for _ in range(args.guesses)]
            start = time.perf_counter()
            for code in codes:
                answer = client.post("/api/join", {"join_code": code, "name": "G"}, content_type="application/json")
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
            elapsed = time.perf_counter() - start
            assert client.post("/api/join", {"join_code": game.join_code, "name": "P"},
                               content_type="application/json").status_code == 201
            raise Rollback
    except Rollback:
        pass
    rate = args.guesses / elapsed
    space = len(JOIN_CODE_ALPHABET) ** JOIN_CODE_LENGTH
    print(f"database {connection.vendor}, cache {django.conf.settings.CACHES['default']['BACKEND'].rsplit('.', 1)[1]}")
    print(f"{args.guesses} wrong codes in {elapsed:.2f} s: {rate:.0f} answers/s in one process "
          f"(statuses {dict(sorted(statuses.items()))}); the right code then joined at once")
    print(f"code space {len(JOIN_CODE_ALPHABET)}^{JOIN_CODE_LENGTH} = {space:.3g}")
    for processes in (1, 100):
        per_hour = rate * processes * 3600
        print(f"{processes:>3} process(es): {per_hour:.3g} guesses/hour; expected time to find one given game's "
              f"code {space / 2 / per_hour * 3600 / YEAR:.3g} years, one of 1,000 games' "
              f"{space / 1000 / per_hour * 3600 / YEAR:.3g} years")
    cache.clear()


if __name__ == "__main__":
    main()
