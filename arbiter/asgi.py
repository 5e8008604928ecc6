import os
import sys

from django.core.asgi import get_asgi_application

from arbiter.arrival import limit_in_flight, stamp_asgi

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")
# The event loop takes arrivals and stamps them while request threads run Python: let it have the
# interpreter back sooner than the default 5 ms, so a stamp is not delayed by a busy thread.
sys.setswitchinterval(0.001)
# Each request is stamped with its arrival first (arbiter/arrival.py), then waits its turn: a few requests
# run at once in each process, in order of arrival, rather than hundreds of threads sharing it.
application = stamp_asgi(limit_in_flight(get_asgi_application()))
