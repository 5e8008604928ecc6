"""Cost of one poll of GET /api/games/<id>/live, the request every phone repeats each second.

Runs in-process (Django's test client, the full middleware stack, no network) against the configured
database and cache, inside a transaction that is rolled back, so it leaves nothing behind:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/api REDIS_URL=redis://127.0.0.1:6379/2 \\
        .venv/bin/python bench/api_live.py [--polls 3000]

Prints polls per second of one process, median and p99 latency, and SQL queries per poll (0 while the
game's version is unchanged: the state is served from the cache).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


class Rollback(Exception):
    pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polls", type=int, default=3000)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.test")
    import django

    django.setup()
    from django.db import connection, transaction
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from tournaments import services

    try:
        with transaction.atomic():
            tournament = services.tournament_create(name="bench")
            game = services.game_create(tournament=tournament, seed=1)
            services.round_draw(game=game, rack="EIRST?A")
            client = Client(HTTP_HOST="localhost")
            url = f"/api/games/{game.pk}/live"
            with CaptureQueriesContext(connection) as first:
                assert client.get(url).status_code == 200
            latencies = []
            with CaptureQueriesContext(connection) as polls:
                start = time.perf_counter()
                for _ in range(args.polls):
                    t = time.perf_counter()
                    response = client.get(url)
                    latencies.append(time.perf_counter() - t)
                elapsed = time.perf_counter() - start
            assert response.status_code == 200
            raise Rollback
    except Rollback:
        pass
    latencies.sort()
    print(f"database {connection.vendor}, cache {django.conf.settings.CACHES['default']['BACKEND'].rsplit('.', 1)[1]}")
    print(f"first poll after a change: {len(first.captured_queries)} SQL queries")
    print(f"{args.polls} polls in {elapsed:.2f} s: {args.polls / elapsed:.0f} polls/s in one process")
    print(f"latency median {statistics.median(latencies) * 1000:.2f} ms, "
          f"p99 {latencies[int(0.99 * (len(latencies) - 1))] * 1000:.2f} ms")
    print(f"SQL queries per poll while unchanged: {len(polls.captured_queries) / args.polls:.2f}")


if __name__ == "__main__":
    main()
