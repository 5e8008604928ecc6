"""Settings shared by every environment. Values that differ per deployment come from arbiter.env."""

from datetime import timedelta
from pathlib import Path

from arbiter import env, places

BASE_DIR = Path(__file__).resolve().parent.parent.parent
# templates/, static/ and locale/: a checkout's top folder, or arbiter/bundle/ in an installed package.
ASSETS_DIR = places.assets_dir()
# The data (embedded database, broker, cache, keys): DATA_DIR, else var/ in a checkout and the user's data
# folder for an installed arbiter (arbiter/places.py).
DATA_DIR = Path(env.get_str("DATA_DIR", str(places.default_data_dir())))

DEBUG = env.get_bool("DEBUG", default=False)
SECRET_KEY = env.get_secret_key("SECRET_KEY", debug=DEBUG)
ALLOWED_HOSTS = env.get_list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
# The address phones use to reach this server (the join link and QR codes), e.g. http://192.168.1.20:8000
# on a club's network; empty: the address the page was opened with.
ARBITER_PUBLIC_URL = env.get_public_url("PUBLIC_URL")
CSRF_TRUSTED_ORIGINS = [
    f"{scheme}://{host}" for host in ALLOWED_HOSTS if host not in ("*",) for scheme in ("http", "https")
]
TIME_ZONE = env.get_time_zone("TIME_ZONE", default="UTC")
USE_TZ = True
USE_I18N = True
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français")]
LOCALE_PATHS = [ASSETS_DIR / "locale"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",  # arbitrators' API tokens, stored as digests, with a lifetime (tournaments/security.py)
    "axes",  # failed logins counted per account and per address (tournaments/security.py)
    "drf_spectacular",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "arbiter.static.StaticFilesMiddleware",
    "arbiter.middleware.ServiceUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
    "arbiter.middleware.SyncChain",
]

ROOT_URLCONF = "arbiter.urls"
WSGI_APPLICATION = "arbiter.wsgi.application"
ASGI_APPLICATION = "arbiter.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [ASSETS_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# PostgreSQL connections: a bounded pool per process (see arbiter.env.database_from_url and docker/README.md).
DB_POOL = env.pool_options(
    min_size=env.get_int("DB_POOL_MIN_SIZE", 2),
    max_size=env.get_int("DB_POOL_MAX_SIZE", 10, minimum=1),
    timeout=env.get_seconds("DB_POOL_TIMEOUT", 10.0),
)
DATABASES = {
    "default": env.database_from_url("DATABASE_URL", default_sqlite=DATA_DIR / "arbiter.sqlite3", pool=DB_POOL)
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Several processes (web and worker) share the embedded database: wait for locks instead of failing.
    # Run for durability (README, "A laptop crash loses nothing"): write-ahead log (readers and the writer do
    # not block each other; a process killed mid-write leaves a log that the next opening replays) and
    # synchronous FULL: each commit is on the disk before the answer (its receipt) goes out, so even a power
    # cut keeps every receipted slip (NORMAL would only survive a crashed process, not the power going).
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20, "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; "
                        f"PRAGMA synchronous={env.get_sqlite_synchronous('SQLITE_SYNCHRONOUS')}",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

BROKER = env.broker_from_env("REDIS_URL", data_dir=DATA_DIR)
if BROKER.redis_url:
    # A dead Redis costs a request at most one short connect timeout, then reads as a miss (arbiter/cache.py).
    CACHES = {
        "default": {
            "BACKEND": "arbiter.cache.ResilientRedisCache",
            "LOCATION": BROKER.redis_url,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
else:
    # The web server and the worker are separate processes: the embedded cache lives on disk.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(DATA_DIR / "cache"),
        }
    }

CELERY_BROKER_URL = BROKER.url
CELERY_BROKER_TRANSPORT_OPTIONS = BROKER.transport_options
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# The worker and Redis (docs/operations.md): a worker that lost Redis tries again for as long as it takes
# (Celery's default gives up after 100 tries, some 46 minutes, and the worker exits), and its consumer
# survives the loss with messages held (arbiter/celery.py, Consumer).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CONSUMER = "arbiter.celery:Consumer"
# A task running when Redis goes is left to finish its work (each is safe to run twice: Redis gives its message
# back after the visibility timeout), not cancelled.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# A change is saved first and its task queued after: with the broker down, queuing gives up within about a
# second (logged; the sweep and the first request after the deadline close the round anyway).
CELERY_BROKER_CONNECTION_TIMEOUT = 1.0
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = 120
CELERY_TASK_SOFT_TIME_LIMIT = 100
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
# The beat (a thread of the launcher's worker) looks at its schedule at least every second, so that it stops
# within a second of being asked (it sleeps until its next task, 5 s for the sweep, otherwise).
CELERY_BEAT_MAX_LOOP_INTERVAL = 1
# The worker writes a heartbeat in the cache every WORKER_HEARTBEAT_SECONDS; /healthz reports the worker
# silent (503) when its last beat is older than WORKER_SILENT_SECONDS (arbiter/heartbeat.py).
ARBITER_WORKER_HEARTBEAT_SECONDS = env.get_seconds("WORKER_HEARTBEAT_SECONDS", 15.0)
ARBITER_WORKER_SILENT_SECONDS = env.get_seconds("WORKER_SILENT_SECONDS", 60.0)
CELERY_BEAT_SCHEDULE = {
    "sweep-overdue-rounds": {"task": "tournaments.tasks.sweep_overdue_rounds", "schedule": 5.0},
}
# The worker that `arbiter run` and `make run` start: one process, this many threads (rundemo.worker_command).
ARBITER_WORKER_THREADS = 2
# Ctrl-C stops the launcher within a few seconds, phones' live streams open or not: the web server gives the
# requests in flight STOP_GRACE seconds, then ends the rest (the phones' streams, which never end by
# themselves; the phones reconnect to the next run); the worker, stopped at the same time, is given
# STOP_WORKER seconds to finish its task, then killed.
ARBITER_STOP_GRACE_SECONDS = 1
ARBITER_STOP_WORKER_SECONDS = 1.5
# Whether a web server process loads the compiled move search as it starts (arbiter/asgi.py); the laptop's
# launcher turns it off for its web server, whose worker runs the searches.
ARBITER_WEB_WARMS_SEARCH = True
# About how long the launcher's first preparation of the database takes (migrations, the account, the demo in a
# checkout) on a 2-core laptop: only the wording of its progress lines (rundemo.ticking).
ARBITER_PREPARE_SECONDS = 10

# The embedded database is copied to DATA_DIR/backups/ after every closed round and by `manage.py backupdb`
# (arbiter/backups.py); the newest BACKUPS_KEPT copies are kept.
ARBITER_BACKUPS_KEPT = env.get_int("BACKUPS_KEPT", 20, minimum=1)

# A tournament's word list and tile set must fit: refused when more than this share (per mille) of the list's
# words cannot be written with the set's tiles (TWL06 with the Spanish set: its words with K or W).
LEXICON_UNWRITABLE_PER_MILLE = 10
LEXICON_CACHE_DIR = Path(env.get_str("LEXICON_CACHE_DIR", str(DATA_DIR / "lexicons")))

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [ASSETS_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

LOGIN_URL = "console-login"
LOGIN_REDIRECT_URL = "/console/"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "tournaments.api.exceptions.api_exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tournaments.api.authentication.ArbitratorTokenAuthentication",
        "tournaments.api.authentication.PlayerTokenAuthentication",
        "tournaments.api.authentication.ConsoleSessionAuthentication",
    ],
    # Slips per player; wrong join codes per client address (no limit across all addresses: a spray from many
    # addresses must not shut a hall out); arbitrator token requests per client address. Successful joins
    # are not limited: a hall joins from one address.
    "DEFAULT_THROTTLE_RATES": {
        "slips": "30/min", "join_failures": "20/min", "auth": "20/min",
        "training": "120/min",  # training slips judged, per client address (nothing is written)
    },
    # The client address is the connection's unless the server sits behind trusted reverse proxies:
    # TRUSTED_PROXIES=N takes the address N hops back in X-Forwarded-For (0: the header is ignored).
    "NUM_PROXIES": env.get_int("TRUSTED_PROXIES", 0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Duplicate Scrabble arbiter API",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Every operation's common refusals (503, and 400/413/415 for a body, 401/403 for credentials).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tournaments.api.schema.document_refusals",
        "tournaments.api.schema.document_slip_rules",
    ],
}

# Arbitrators' API tokens (django-rest-knox: only a digest is stored) last a tournament day, then answer 401;
# a password change or losing staff rights or the active flag revokes them (tournaments/security.py).
ARBITER_API_TOKEN_HOURS = env.get_int("API_TOKEN_HOURS", 24, minimum=1)
REST_KNOX = {"AUTH_HEADER_PREFIX": "Token", "AUTO_REFRESH": False, "TOKEN_TTL": timedelta(hours=ARBITER_API_TOKEN_HOURS)}

# Failed logins (console, admin, API token) are counted by django-axes in the database (on PostgreSQL as on
# the embedded SQLite; the cache may be down or per process): after LOGIN_FAILURE_LIMIT failures the account,
# and the address, are locked for LOGIN_COOLOFF_MINUTES, the right password included (429 with a message).
# The client address is the one the API's rate limits use: X-Forwarded-For only with TRUSTED_PROXIES set.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = env.get_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env.get_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = env.get_lockout_parameters("LOGIN_LOCKOUT_BY", "account,address")
AXES_CLIENT_IP_CALLABLE = "tournaments.security.client_address"
AXES_LOCKOUT_CALLABLE = "tournaments.security.locked_out_response"
AXES_RESET_ON_SUCCESS = False  # an attacker's own good login must not wipe an address's failures
AXES_VERBOSE = False

# HTTPS=1: the service is reached over HTTPS only (uvicorn's own TLS, or a reverse proxy of yours that
# terminates it; with TRUSTED_PROXIES set, the proxy's X-Forwarded-Proto says which). Plain HTTP is then
# redirected (but /healthz, which the containers' health checks ask over plain HTTP), cookies are sent over
# HTTPS only and browsers are told to use HTTPS for a year (HSTS). Off by default: a club's laptop serves
# the phones over plain HTTP on its own network. `manage.py check --deploy` passes with it (README).
HTTPS = env.get_bool("HTTPS", default=False)
if HTTPS:
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 365 * 24 * 3600
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    if env.get_int("TRUSTED_PROXIES", 0):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Requests one server process runs at once under ASGI (the others wait their turn in its event loop,
# already stamped with their arrival: arbiter/arrival.py); 0: no limit. Live streams do not count.
ARBITER_REQUESTS_IN_FLIGHT = env.get_int("REQUESTS_IN_FLIGHT", 8)
# The clock's close waits while slips that arrived before the deadline are still queued in the web processes,
# at most CLOSE_WAIT_SECONDS past the deadline (0: never), looking every CLOSE_WAIT_POLL_SECONDS
# (tournaments/arriving.py): they are then judged with the others instead of one by one after the close, at
# about a fifth of the work. A hall with no queue never waits; a backlog of 3,000 slips cleared in 0.4-4.3 s
# (bench/festival.py), which 1 s did not cover (and the rest then drained at 30-50 a second after the close).
ARBITER_CLOSE_WAIT_SECONDS = env.get_seconds("CLOSE_WAIT_SECONDS", 5.0)
# A phone's slip sent before the deadline (its sent_ms, on its server-corrected clock) and arriving at most
# TRANSIT_SECONDS after it is in time (docs/rules.md §4, in transit); the close waits that long, so no result is shown
# before. A festival's server stamped slips up to 15 ms after their bytes left in the last second (p99 8-10 ms,
# bench/festival.py, 3,000 players); a venue's Wi-Fi adds its own. 0: the arrival alone decides.
ARBITER_TRANSIT_SECONDS = env.get_seconds("TRANSIT_SECONDS", 0.1, zero=True)
ARBITER_CLOSE_WAIT_POLL_SECONDS = 0.02
# A slip served after the close writes its log entry pending while another holds the game's lock, chained with
# others after the commit (services/logbook.flush_pending), instead of queueing for the lock. Off: measured slower.
ARBITER_DEFER_LATE_SLIP_LOG = False
# Slow clients (arbiter/bodies.py, arbiter/server.py): a request's headers must be whole within
# HEAD_SECONDS of its first byte (or of the connection), its body within BODY_SECONDS plus its size at
# BODY_MIN_BYTES_PER_SECOND; else the connection is closed (408 for a body). A body of a page (not /api/)
# is at most PAGE_MAX_BODY_BYTES (a word list of 20 MB with its form).
ARBITER_HEAD_SECONDS = env.get_seconds("HEAD_SECONDS", 10.0)
ARBITER_BODY_SECONDS = env.get_seconds("BODY_SECONDS", 10.0)
ARBITER_BODY_MIN_BYTES_PER_SECOND = env.get_int("BODY_MIN_BYTES_PER_SECOND", 16 * 1024, minimum=1)
ARBITER_PAGE_MAX_BODY_BYTES = 40 * 1024 * 1024

# The server's seal on receipts and game records (tournaments/seal.py): SIGNING_KEY, 32 bytes in base64
# (default: derived from SECRET_KEY, or a key made once in DATA_DIR for the development key); the public keys
# of other servers whose records this one trusts, comma-separated.
ARBITER_SIGNING_KEY = env.get_str("SIGNING_KEY", "")
ARBITER_TRUSTED_SIGNING_KEYS = env.get_list("TRUSTED_SIGNING_KEYS", default=[])
# The organisers whose sealed packs (tournaments/packs.py) this installation accepts: their public keys,
# comma-separated (its own key is always trusted).
ARBITER_TRUSTED_ORGANISER_KEYS = env.get_list("TRUSTED_ORGANISER_KEYS", default=[])
# This installation as a centre of a simultaneous event (tournaments/centre_results.py): its id and name in its
# results files (default id: its key's fingerprint), and where they are pushed after each round and at the end:
# the organiser's server, the event's id there and the token the organiser gave this centre ("" : not pushed,
# the file is downloaded from the console and carried). A push not acknowledged is tried again, the delay
# doubling from FIRST_DELAY to MAX_DELAY seconds, at most ATTEMPTS times; each waits TIMEOUT seconds at most.
ARBITER_CENTRE_ID = env.get_str("CENTRE_ID", "")
ARBITER_CENTRE_NAME = env.get_str("CENTRE_NAME", "")
ARBITER_ORGANISER_URL = env.get_str("ORGANISER_URL", "")
ARBITER_ORGANISER_EVENT = env.get_str("ORGANISER_EVENT", "")
ARBITER_ORGANISER_TOKEN = env.get_str("ORGANISER_TOKEN", "")
ARBITER_RESULTS_PUSH_ATTEMPTS = env.get_int("RESULTS_PUSH_ATTEMPTS", 20, minimum=1)
ARBITER_RESULTS_PUSH_FIRST_DELAY = env.get_seconds("RESULTS_PUSH_FIRST_DELAY", 5.0)
ARBITER_RESULTS_PUSH_MAX_DELAY = env.get_seconds("RESULTS_PUSH_MAX_DELAY", 300.0)
ARBITER_RESULTS_PUSH_TIMEOUT = env.get_seconds("RESULTS_PUSH_TIMEOUT", 10.0)
# A multiplex (tournaments/multiplex.py, tournaments/relay.py; docs/multiplex.md). The organiser holds a centre's
# relay request at most RELAY_WAIT_SECONDS when there is nothing new; a centre asks for RELAY_POLL_SECONDS and
# its console says the link is down once the organiser has not answered for RELAY_SILENT_SECONDS.
ARBITER_RELAY_WAIT_SECONDS = env.get_seconds("RELAY_WAIT_SECONDS", 20.0)
ARBITER_RELAY_POLL_SECONDS = env.get_seconds("RELAY_POLL_SECONDS", 2.0)
ARBITER_RELAY_SILENT_SECONDS = env.get_seconds("RELAY_SILENT_SECONDS", 5.0)
# The organiser's merged standings page reads itself again this often while centres are still to report
# (0: never).
ARBITER_EVENT_STANDINGS_REFRESH_SECONDS = env.get_int("EVENT_STANDINGS_REFRESH_SECONDS", 10, minimum=0)
# A game record to import larger than this (bytes) is played back by the worker: 202 and a job to follow
# (tournaments/exports/imports.py); a smaller one within its request, 201.
ARBITER_RECORD_INLINE_BYTES = env.get_int("RECORD_INLINE_BYTES", 1024 * 1024)

# The federation's lists a player's identity is checked against (series, age categories and their bounds, the
# season's reference date): tournaments/data/federation.toml unless this names another file. The reference
# date on which ages are counted (an ISO date) fixes it instead of the file's rule ("": the file's rule).
ARBITER_FEDERATION_FILE = env.get_str("FEDERATION_FILE", "")
ARBITER_FEDERATION_REFERENCE_DATE = env.get_str("FEDERATION_REFERENCE_DATE", "")

# Game settings: defaults of an event, each overridable per tournament.
ARBITER_DEFAULT_ROUND_SECONDS = 180
ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 20
# The most the arbitrator may add to a round's clock at once (an incident in the hall).
ARBITER_MAX_EXTEND_SECONDS = 600
# The projector's standings for a large hall, page after page: seconds per page (the projector's link may
# ask another with ?page_seconds=, within the bounds).
ARBITER_PROJECTOR_PAGE_SECONDS = 10
# A page (phone, projector) that has heard nothing from the server for this many seconds says so: a frozen or
# sleeping laptop keeps the connections open and sends nothing. The live streams beat three times as often.
ARBITER_LIVE_SILENT_SECONDS = env.get_seconds("LIVE_SILENT_SECONDS", 6.0)
# How long a shared training result link stays valid, in seconds (None: always).
ARBITER_TRAINING_LINK_MAX_AGE = None
# Training counts the first verdict of each round: how long the server remembers, per trainee, that a round was
# judged (a later try is practice, not counted), in seconds.
ARBITER_TRAINING_FIRST_SECONDS = 180 * 24 * 3600
ARBITER_PROJECTOR_PAGE_SECONDS_BOUNDS = (2, 120)
# The solutions sheet: each round's best plays down to this many (every tie at the last score too), printed
# on at most this many lines (the plays left out are counted under the table).
ARBITER_SOLUTIONS_PLAYS = 5
ARBITER_SOLUTIONS_MAX_LINES = 10

# A player's review of a game (tournaments/review_selectors.py): the best plays listed per round, the rounds of the
# largest losses in the summary, how long a round's computed plays stay in the cache, and how long a request
# waits for another computing the same round.
ARBITER_REVIEW_BEST_PLAYS = 10
ARBITER_REVIEW_LOSSES = 5
ARBITER_REVIEW_CACHE_SECONDS = 7 * 24 * 3600
ARBITER_REVIEW_BUILD_WAIT_SECONDS = 10

# Public results (tournaments/public.py): how long a follower's browser or a proxy may keep an answer without
# asking again (Cache-Control max-age, seconds), how often an open page asks the feed whether a round closed
# (with If-None-Match: a 304 costs one cache read), and for how many hours an open page keeps asking.
ARBITER_PUBLIC_MAX_AGE = env.get_int("PUBLIC_MAX_AGE", 5, minimum=0)
ARBITER_PUBLIC_POLL_SECONDS = env.get_seconds("PUBLIC_POLL_SECONDS", 5.0)
ARBITER_PUBLIC_POLL_HOURS = 12
# Keys of no public link: each answer is kept in the cache this long (a lookup only the first time), and an
# address that asked the database about this many unknown keys in a minute gets 429 for the rest of it
# (a follower polling a real key never counts: its answers come from the link's stamp).
ARBITER_PUBLIC_UNKNOWN_SECONDS = 600
ARBITER_PUBLIC_UNKNOWN_PER_MINUTE = 30

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO"},
    # django-axes says INFO for every successful login; failures and locks are warnings (and our own
    # login_locked_out from tournaments.security).
    "loggers": {"axes": {"level": "WARNING"}},
}
