import os
import sys

from django.core.asgi import get_asgi_application

from arbiter.arrival import limit_in_flight, stamp_asgi
from arbiter.bodies import sized_bodies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")
django_application = get_asgi_application()

from engine.movegen import warm_up_in_background  # noqa: E402
from tournaments.api.fast import fast_slips  # noqa: E402  (Django is set up above)

# The first search of a server process (a round's tops, at its close when no worker runs) should not wait
# the second it takes to load the compiled move search: each process loads it now, beside the event loop.
warm_up_in_background()

# The event loop takes arrivals and stamps them while request threads run Python: let it have the
# interpreter back sooner than the default 5 ms, so a stamp is not delayed by a busy thread.
sys.setswitchinterval(0.001)
# Each request is stamped with its arrival first (arbiter/arrival.py); an API body above the limit is
# refused and a chunked one read whole (arbiter/bodies.py); then it waits its turn (a few changes run at
# once in each process, in order of arrival); a player's well-formed slip is served without Django's
# request machinery (tournaments/api/fast.py), everything else by Django.
application = stamp_asgi(sized_bodies(limit_in_flight(fast_slips(django_application))))
