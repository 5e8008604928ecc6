"""Cost of a request for a public results key of no link (GET /api/public/<key>): the first ask of a key (a
database lookup, then its absent stamp kept in the cache) against the same key asked again (the cache alone).

Runs in-process (Django's test client, the full middleware stack, no network) against the configured
database and cache; the keys are random, nothing is written to the database:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/api REDIS_URL=redis://127.0.0.1:6379/2 \\
        .venv/bin/python bench/public_unknown.py [--keys 25]

Prints the median time of each and the SQL queries per request. One address is limited to
ARBITER_PUBLIC_UNKNOWN_PER_MINUTE first asks a minute, so each first ask comes from its own address here.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=25)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.test")
    import logging

    import django

    django.setup()
    logging.disable(logging.WARNING)  # each 404 is logged: not what is measured
    from django.db import connection
    from django.test import Client

    queries = {"first": 0, "again": 0}
    asking = ["first"]

    def counted(execute, sql, params, many, context):  # every query of the requests, whatever connection
        queries[asking[0]] += 1
        return execute(sql, params, many, context)

    client = Client(HTTP_HOST="localhost")
    first, again = [], []
    with connection.execute_wrapper(counted):
        for n in range(args.keys):
            key = secrets.token_urlsafe(16)
            address = f"198.18.{n // 250}.{n % 250 + 1}"
            asking[0] = "first"
            t = time.perf_counter()
            assert client.get(f"/api/public/{key}", REMOTE_ADDR=address).status_code == 404
            first.append(time.perf_counter() - t)
            asking[0] = "again"
            for _ in range(args.repeats):
                t = time.perf_counter()
                assert client.get(f"/api/public/{key}", REMOTE_ADDR=address).status_code == 404
                again.append(time.perf_counter() - t)
    print(f"database {connection.vendor}, cache {django.conf.settings.CACHES['default']['BACKEND'].rsplit('.', 1)[1]}")
    print(f"first ask of an unknown key: median {statistics.median(first) * 1000:.2f} ms, "
          f"{queries['first'] / args.keys:.1f} SQL queries")
    print(f"the same key again: median {statistics.median(again) * 1000:.2f} ms, "
          f"{queries['again'] / len(again):.1f} SQL queries ({len(again)} requests)")


if __name__ == "__main__":
    main()
