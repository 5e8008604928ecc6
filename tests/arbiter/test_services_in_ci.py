"""In CI (REQUIRE_SERVICES=1) the suite must really be on PostgreSQL and Redis: no silent fallback."""

import os

import pytest
from django.conf import settings
from django.db import connection

pytestmark = pytest.mark.skipif(
    not os.environ.get("REQUIRE_SERVICES"), reason="only when the environment asks for the real services"
)


@pytest.mark.django_db
def test_database_is_postgresql():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        assert cursor.fetchone()[0].startswith("PostgreSQL")


def test_broker_and_cache_are_redis():
    import redis

    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2).ping() is True
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
