import sys

from django.conf import settings
from django.core.asgi import get_asgi_application

from arbiter.arrival import limit_in_flight
from arbiter.bodies import arrive_whole
from arbiter.server import raise_open_files_limit
from arbiter.settings import choose as choose_settings

# The safe settings unless DJANGO_SETTINGS_MODULE names others (arbiter/settings/__init__.py).
choose_settings()
django_application = get_asgi_application()

from arbiter.backups import embedded_database  # noqa: E402
from arbiter.running import hold as hold_data_folder  # noqa: E402
from engine.search import warm_up_in_background  # noqa: E402
from tournaments.api.fast import fast_slips  # noqa: E402  (Django is set up above)
from tournaments.arriving import arriving_slips  # noqa: E402
from tournaments.public_fast import fast_public  # noqa: E402

# The first search of a server process (a round's tops, at its close when no worker runs) should not wait
# the second it takes to load the compiled move search: each process loads it now, beside the event loop.
# Not the laptop's web server (`arbiter run`, `make run`: ARBITER_WEB_WARMS_SEARCH off), whose worker runs
# the searches: there the search is loaded at the first review or solutions sheet, 120 MiB spared till then.
if settings.ARBITER_WEB_WARMS_SEARCH:
    warm_up_in_background()
# Each phone of a hall holds a connection (its live stream): more than the default 1,024 open files.
raise_open_files_limit()
# The web server marks its data folder as served while it runs (arbiter/running.py: no restore under it).
if embedded_database() is not None:
    hold_data_folder()

# The event loop takes arrivals and stamps them while request threads run Python: let it have the
# interpreter back sooner than the default 5 ms, so a stamp is not delayed by a busy thread.
sys.setswitchinterval(0.001)
# Each request's body is read whole first, within its size limit and deadline, and the request stamped
# with its arrival at its last byte (arbiter/bodies.py, arbiter/arrival.py); then it waits its turn (a few
# changes run at once in each process, in order of arrival); a player's well-formed slip is served without
# Django's request machinery (tournaments/api/fast.py), everything else by Django.
# A follower's poll of public results that finds nothing new is answered 304 from the cache the same way
# (tournaments/public_fast.py).
application = arrive_whole(arriving_slips(limit_in_flight(fast_slips(fast_public(django_application)))))
