"""Calls racing each other in threads, each with its own database connection (PostgreSQL's row locks)."""

from __future__ import annotations

import threading

from django.db import connection


def race(calls) -> list:
    """Run the calls at once (released together by a barrier); return what each returned, in order, or the
    exception it raised (the test reads the failure, not a silent thread)."""
    barrier = threading.Barrier(len(calls))
    answers: list = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            answers[i] = call()
        except Exception as exc:
            answers[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers
