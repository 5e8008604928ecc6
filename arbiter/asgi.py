import os

from django.core.asgi import get_asgi_application

from arbiter.arrival import stamp_asgi

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")
# Each request is stamped with its arrival before Django queues it for a thread (arbiter/arrival.py).
application = stamp_asgi(get_asgi_application())
