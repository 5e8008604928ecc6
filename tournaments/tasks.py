"""Celery tasks: each takes ids, calls one service, and is safe to run twice."""

from celery import shared_task


@shared_task(name="tournaments.tasks.ping")
def ping(token: str) -> str:
    """Proves that a worker is consuming the broker: records the token in the shared cache."""
    from django.core.cache import cache

    cache.set(f"ping:{token}", "pong", timeout=300)
    return token
