import os

from django.core.wsgi import get_wsgi_application

from arbiter.arrival import stamp_wsgi

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings.dev")
application = stamp_wsgi(get_wsgi_application())
