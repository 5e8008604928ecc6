"""Settings of a centre in the simultaneous test (test_simultaneous.py): the embedded default a club's laptop runs
(arbiter.settings.dev: SQLite and the filesystem broker in DATA_DIR), with no pause between a round's close and
the next draw (ARBITER_MIN_SECONDS_BETWEEN_ROUNDS, 20 s in play), so that ten rounds take seconds."""

from arbiter.settings.dev import *  # noqa: F403

ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
