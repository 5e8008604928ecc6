from django.core.wsgi import get_wsgi_application

from arbiter.arrival import stamp_wsgi
from arbiter.settings import choose as choose_settings

# The safe settings unless DJANGO_SETTINGS_MODULE names others (arbiter/settings/__init__.py).
choose_settings()
application = stamp_wsgi(get_wsgi_application())
