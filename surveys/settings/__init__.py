"""Deniable settings, read from environment variables (docs/configuration.md).

This module holds what a deployer sets, with the workers' jobs in
:mod:`surveys.settings.jobs`; the settings no deployer sets (apps, middleware,
security headers, logging...) are in :mod:`surveys.settings.internal`.  Both
are imported here by name.

Development defaults need nothing but the project's virtual environment: the
embedded PostgreSQL cluster inside the project (started by scripts/serve) and
Celery tasks run in-process.  ``DENIABLE_PRODUCTION=true`` switches on the hardened
configuration under which ``manage.py check --deploy`` passes with no warnings,
and refuses to start without a real SECRET_KEY and ALLOWED_HOSTS.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from surveys import embedded_postgres
from surveys.email_url import parse_email_url
from surveys.env import env_bool, env_int, env_list, env_str
from surveys.settings.internal import (
    AUTH_PASSWORD_VALIDATORS,
    AUTH_USER_MODEL,
    AUTHENTICATION_BACKENDS,
    AXES_CLIENT_IP_CALLABLE,
    AXES_DISABLE_ACCESS_LOG,
    AXES_LOCKOUT_CALLABLE,
    AXES_RESET_ON_SUCCESS,
    AXES_USERNAME_CALLABLE,
    BASE_DIR,
    CELERY_ACCEPT_CONTENT,
    CELERY_BEAT_ENABLE_REMOTE_CONTROL,
    CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP,
    CELERY_RESULT_ACCEPT_CONTENT,
    CELERY_RESULT_SERIALIZER,
    CELERY_TASK_ACKS_LATE,
    CELERY_TASK_EAGER_PROPAGATES,
    CELERY_TASK_REJECT_ON_WORKER_LOST,
    CELERY_TASK_SERIALIZER,
    CELERY_TASK_TRACK_STARTED,
    CELERY_TIMEZONE,
    CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS,
    CELERY_WORKER_PREFETCH_MULTIPLIER,
    CONTENT_SECURITY_POLICY,
    CORS_ALLOW_CREDENTIALS,
    CORS_ALLOW_HEADERS,
    CORS_ALLOW_METHODS,
    CORS_URLS_REGEX,
    CSRF_COOKIE_AGE,
    DEFAULT_AUTO_FIELD,
    DEFAULT_EXCEPTION_REPORTER_FILTER,
    DEVELOPMENT_SECRET_KEY,
    FORM_RENDERER,
    INSTALLED_APPS,
    LANGUAGE_CODE,
    LANGUAGE_COOKIE_AGE,
    LANGUAGE_COOKIE_HTTPONLY,
    LANGUAGE_COOKIE_SAMESITE,
    LANGUAGES,
    LOCALE_PATHS,
    LOGGING,
    LOGIN_REDIRECT_URL,
    LOGIN_URL,
    LOGOUT_REDIRECT_URL,
    MIDDLEWARE,
    OIDC_RP_SCOPES,
    OIDC_USE_PKCE,
    PASSWORD_MIN_LENGTH,
    PUBLISHED_SECRET_KEYS,
    ROOT_URLCONF,
    SECURE_CONTENT_TYPE_NOSNIFF,
    SECURE_CROSS_ORIGIN_OPENER_POLICY,
    SECURE_REFERRER_POLICY,
    SESSION_COOKIE_HTTPONLY,
    TEMPLATES,
    TIME_ZONE,
    USE_I18N,
    USE_TZ,
    WSGI_APPLICATION,
    X_FRAME_OPTIONS,
)
from surveys.settings.jobs import (
    CELERY_BEAT_SCHEDULE,
    EMAIL_BATCH_SIZE,
    EMAIL_RETRY_MAX,
    EMAIL_RETRY_SECONDS,
    EXPORT_RETENTION_HOURS,
    EXPORT_ROOT,
    RECIPIENT_RETENTION_DAYS,
    REMINDER_MIN_DAYS,
    REMINDERS_MAX,
    SNAPSHOT_LAG_WARNING_REPORTS,
    SNAPSHOT_MIN_NEW_SUBMISSIONS,
    STAT_FILE_MAX_CELLS,
)

# --- Numerical libraries (before anything imports numpy) -----------------------
# numpy's BLAS (OpenBLAS) starts a thread per core for each matrix operation.
# Web and worker processes already run one request or task each, so those
# threads only fight over the cores: on a busy two-core machine a 101 × 101
# solve in the builder's preview took 0.25 s instead of 5 ms.  One thread per
# process unless the operator says otherwise (an explicit OPENBLAS_NUM_THREADS,
# OMP_NUM_THREADS or MKL_NUM_THREADS wins).  Settings load before numpy is first
# imported, which is when these are read.
NUMERIC_THREADS = env_int("NUMERIC_THREADS", 1)
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, str(NUMERIC_THREADS))

PRODUCTION = env_bool("DENIABLE_PRODUCTION", False)
DEBUG = env_bool("DEBUG", not PRODUCTION)

SECRET_KEY = env_str("SECRET_KEY")
# Keys in use before a rotation (comma-separated): sessions signed with them stay
# valid, and invitation links hashed under them keep working (docs/privacy.md).
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS")
ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", "" if PRODUCTION else "localhost,127.0.0.1,[::1]"
)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# --- The independent device (docs/threat-model.md) ------------------------
# The origins the independent device is served from (scheme://host[:port]):
# only they may read a survey's content objects and post reports across
# origins (/s/device/...), never with cookies.  Development: the bundle that
# scripts/serve serves on the next port.
DEVICE_ORIGINS = env_list(
    "DEVICE_ORIGINS",
    "" if PRODUCTION else "http://127.0.0.1:8001,http://localhost:8001",
)
# The address of a hosted independent device (its index.html); set, the
# researcher's links page offers links that open the survey there.
DEVICE_URL = env_str("DEVICE_URL")
CORS_ALLOWED_ORIGINS = DEVICE_ORIGINS

if PRODUCTION:
    if not SECRET_KEY or SECRET_KEY in PUBLISHED_SECRET_KEYS or len(SECRET_KEY) < 50:
        raise ImproperlyConfigured(
            "DENIABLE_PRODUCTION is on but SECRET_KEY is missing, a published "
            "key, or shorter than 50 characters. Generate one with: python -c "
            "'import secrets; print(secrets.token_urlsafe(64))'"
        )
    if DEBUG:
        raise ImproperlyConfigured("DEBUG must be off when DENIABLE_PRODUCTION is on.")
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured(
            "DENIABLE_PRODUCTION is on but ALLOWED_HOSTS is empty; set it to the "
            "host names the site is served under, comma-separated."
        )
else:
    SECRET_KEY = SECRET_KEY or DEVELOPMENT_SECRET_KEY

# PostgreSQL only.  The development default is the cluster inside the project
# that scripts/serve starts (var/postgres, over its Unix socket; see
# surveys/embedded_postgres.py).
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or embedded_postgres.database_url(),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
# A streaming replica (a hot standby of DATABASE_URL) for researchers' results
# and export reads at the released snapshot (surveys/analysis/replica.py);
# unset, every read uses DATABASE_URL.
if env_str("REPLICA_DATABASE_URL"):
    DATABASES["replica"] = dj_database_url.parse(
        env_str("REPLICA_DATABASE_URL"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
    # Django's test runner reads it through the test database's connection.
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["surveys.analysis.replica.ReplicaRouter"]
# Seconds clients are told to wait (Retry-After) while the database is unreachable.
DB_UNAVAILABLE_RETRY_AFTER = env_int("DB_UNAVAILABLE_RETRY_AFTER", 5)
if DB_UNAVAILABLE_RETRY_AFTER < 1:
    raise ImproperlyConfigured("DB_UNAVAILABLE_RETRY_AFTER must be 1 or more.")
# A password-reset link works once, for this many hours.
PASSWORD_RESET_TIMEOUT = env_int("ACCOUNT_LINK_HOURS", 24) * 3600
if PASSWORD_RESET_TIMEOUT < 3600:
    raise ImproperlyConfigured("ACCOUNT_LINK_HOURS must be 1 or more.")

# Self sign-up (surveys/accounts/signup.py): "off" (default; an administrator
# makes every account), "approval" (anyone may ask, an administrator approves)
# or "open".  Off by default: an account can email invitations to any address,
# so an open sign-up on a public server is a relay for whoever finds it.
ACCOUNT_SIGNUP = env_str("SIGNUP", "off").strip().lower()
if ACCOUNT_SIGNUP not in ("off", "approval", "open"):
    raise ImproperlyConfigured(f"SIGNUP={ACCOUNT_SIGNUP!r}; use off, approval or open.")

# --- Single sign-on (OpenID Connect; surveys/accounts/oidc.py) -------------------
# Off unless OIDC_CLIENT_ID is set; then the provider's endpoints are required.
OIDC_RP_CLIENT_ID = env_str("OIDC_CLIENT_ID")
OIDC_RP_CLIENT_SECRET = env_str("OIDC_CLIENT_SECRET")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_AUTHORIZATION_ENDPOINT")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_TOKEN_ENDPOINT")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_USERINFO_ENDPOINT")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_JWKS_ENDPOINT")
OIDC_RP_SIGN_ALGO = env_str("OIDC_SIGN_ALGO", "RS256")
OIDC_CREATE_USER = env_bool("OIDC_CREATE_ACCOUNTS", False)
OIDC_PROVIDER_NAME = env_str("OIDC_PROVIDER_NAME", "single sign-on")
OIDC_TIMEOUT = env_int("OIDC_TIMEOUT", 10)
if OIDC_RP_CLIENT_ID:
    _missing = [
        name
        for name, value in (
            ("OIDC_CLIENT_SECRET", OIDC_RP_CLIENT_SECRET),
            ("OIDC_AUTHORIZATION_ENDPOINT", OIDC_OP_AUTHORIZATION_ENDPOINT),
            ("OIDC_TOKEN_ENDPOINT", OIDC_OP_TOKEN_ENDPOINT),
            ("OIDC_USERINFO_ENDPOINT", OIDC_OP_USER_ENDPOINT),
            (
                "OIDC_JWKS_ENDPOINT",
                OIDC_OP_JWKS_ENDPOINT
                if OIDC_RP_SIGN_ALGO.startswith(("RS", "ES"))
                else "-",
            ),
        )
        if not value
    ]
    if _missing:
        raise ImproperlyConfigured(
            "OIDC_CLIENT_ID is set, so single sign-on is on, but "
            f"{', '.join(_missing)} is empty; set it from the provider's "
            "discovery document (.well-known/openid-configuration)."
        )

# --- Sessions ---------------------------------------------------------------------
# A researcher is signed out after SESSION_IDLE_MINUTES without activity (the
# dashboard's automatic refresh does not count) and SESSION_MAX_HOURS after signing
# in, whatever the activity.  The cookie and the stored session expire with them.
SESSION_IDLE_TIMEOUT = env_int("SESSION_IDLE_MINUTES", 30) * 60
SESSION_MAX_AGE = env_int("SESSION_MAX_HOURS", 12) * 3600
SESSION_COOKIE_AGE = SESSION_MAX_AGE
if SESSION_IDLE_TIMEOUT < 60 or SESSION_MAX_AGE < 3600:
    raise ImproperlyConfigured(
        "SESSION_IDLE_MINUTES and SESSION_MAX_HOURS must be 1 or more."
    )

# --- API tokens -------------------------------------------------------------------
# A token's lifetime is chosen when it is made: this many days unless its owner
# picks another, never more than the maximum.  Expired tokens get 401.
API_TOKEN_DEFAULT_DAYS = env_int("API_TOKEN_DEFAULT_DAYS", 90)
API_TOKEN_MAX_DAYS = env_int("API_TOKEN_MAX_DAYS", 365)
if not 1 <= API_TOKEN_DEFAULT_DAYS <= API_TOKEN_MAX_DAYS:
    raise ImproperlyConfigured(
        "API_TOKEN_DEFAULT_DAYS must be from 1 to API_TOKEN_MAX_DAYS; got "
        f"{API_TOKEN_DEFAULT_DAYS} and {API_TOKEN_MAX_DAYS}."
    )

# --- Two-factor sign-in (optional, per researcher; django-otp TOTP) --------------
# The name authenticator apps show next to the account.
OTP_TOTP_ISSUER = env_str("OTP_TOTP_ISSUER", "Deniable")

AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_LOCKOUT_MINUTES = env_int("LOGIN_LOCKOUT_MINUTES", 15)
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_LOCKOUT_MINUTES)
# Comma-separated; each item locks on its own, "a+b" on the two together.  The
# default locks one account at one client address: its owner elsewhere and other
# accounts are unaffected.  "username" alone stops guessing from many addresses but
# lets anyone lock a researcher out.
AXES_LOCKOUT_PARAMETERS = [
    item.split("+") if "+" in item else item
    for item in env_list("LOGIN_LOCKOUT_PARAMETERS", "username+ip_address")
]
if AXES_FAILURE_LIMIT < 1 or LOGIN_LOCKOUT_MINUTES < 1:
    raise ImproperlyConfigured(
        "LOGIN_FAILURE_LIMIT and LOGIN_LOCKOUT_MINUTES must be 1 or more."
    )
_LOCKOUT_NAMES = {"username", "ip_address", "user_agent"}
if not AXES_LOCKOUT_PARAMETERS or any(
    not set(item if isinstance(item, list) else [item]) <= _LOCKOUT_NAMES
    for item in AXES_LOCKOUT_PARAMETERS
):
    raise ImproperlyConfigured(
        f"LOGIN_LOCKOUT_PARAMETERS={env_str('LOGIN_LOCKOUT_PARAMETERS')!r} is not "
        f"understood; use names from {sorted(_LOCKOUT_NAMES)}, joined by + to lock "
        "on them together and by commas to lock on each, e.g. username+ip_address."
    )

LANGUAGE_COOKIE_SECURE = PRODUCTION

STATIC_URL = "static/"
# Where collectstatic puts the files WhiteNoise serves in production.
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}


if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    if env_bool("TRUST_X_FORWARDED_PROTO", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- Cache ----------------------------------------------------------------------
# Shared by every web process and worker: refresh debouncing and rate limits live
# here.  Empty means a per-process memory cache (fine for one development server);
# production points it at Redis, e.g. redis://host:6379/2.
CACHE_URL = env_str("CACHE_URL")
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "deniable",
            "TIMEOUT": 300,
            # Fail fast: a cache outage must never stall a submission.
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
elif CACHE_URL in ("", "locmem://"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    raise ImproperlyConfigured(
        f"CACHE_URL={CACHE_URL!r} is not understood; use redis://host:port/db, "
        "rediss://..., unix://..., locmem:// or leave it empty."
    )

# A signed-in request reads its session from the shared cache (one round trip)
# rather than the database; the database stays the source of truth and a copy
# lives in the cache at most SESSION_CACHE_SECONDS (surveys/accounts/session_store.py).
# A per-process memory cache cannot hear of a sign-out in another process, so
# without Redis sessions are read from the database.
SESSION_CACHE_SECONDS = env_int("SESSION_CACHE_SECONDS", 120)
if SESSION_CACHE_SECONDS < 1:
    raise ImproperlyConfigured("SESSION_CACHE_SECONDS must be 1 or more.")
SESSION_ENGINE = (
    "surveys.accounts.session_store"
    if CACHES["default"]["BACKEND"].endswith("RedisCache")
    else "django.contrib.sessions.backends.db"
)

# --- Email (surveys/email_url.py) -----------------------------------------------
# One URL configures Django's email framework: console:// (default, prints to
# stdout), locmem://, file:///dir, smtp://user:pass@host:port, smtp+tls://...,
# smtp+ssl://...  Other apps only call send_mail(); they never read EMAIL_URL.
_EMAIL = parse_email_url(env_str("EMAIL_URL", "console://"))
EMAIL_BACKEND = _EMAIL.backend
EMAIL_HOST = _EMAIL.host
EMAIL_PORT = _EMAIL.port
EMAIL_HOST_USER = _EMAIL.user
EMAIL_HOST_PASSWORD = _EMAIL.password
EMAIL_USE_TLS = _EMAIL.use_tls
EMAIL_USE_SSL = _EMAIL.use_ssl
if _EMAIL.file_path:
    EMAIL_FILE_PATH = _EMAIL.file_path
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Deniable <noreply@localhost>")
del _EMAIL

# --- Rate limits (respondent endpoints; surveys/collection/ratelimit.py) --------
# "COUNT/SECONDS" fixed windows, counted in the cache above (shared through Redis).
# Submissions count per client address, per invitation token and per survey;
# opening invitation pages counts per address (slows token guessing).  Excess gets
# 429 with Retry-After and nothing is stored.  If the cache is down they fail open.
RATE_LIMITS_ENABLED = env_bool("RATE_LIMITS_ENABLED", True)
# A class of 30 behind one school NAT can all send in the same minute.
RATE_LIMIT_PER_ADDRESS = env_str("RATE_LIMIT_PER_ADDRESS", "30/60")
# One response per invitation; a few retries after network errors are plenty.
RATE_LIMIT_PER_TOKEN = env_str("RATE_LIMIT_PER_TOKEN", "10/60")
# 20 submissions a second, sustained: far above any real survey's peak.
RATE_LIMIT_PER_SURVEY = env_str("RATE_LIMIT_PER_SURVEY", "1200/60")
# Consent and answer pages of invitations opened from one address.
RATE_LIMIT_LOOKUPS_PER_ADDRESS = env_str("RATE_LIMIT_LOOKUPS_PER_ADDRESS", "60/60")
# Consent and answer pages of public links opened from one address: a class of
# 30 behind one NAT opening both pages and reloading each once.
RATE_LIMIT_PAGES_PER_ADDRESS = env_str("RATE_LIMIT_PAGES_PER_ADDRESS", "120/60")
# 0: the client is REMOTE_ADDR.  N: the N-th address from the right of
# X-Forwarded-For (set it to the number of reverse proxies in front of gunicorn).
RATE_LIMIT_TRUSTED_PROXIES = env_int("RATE_LIMIT_TRUSTED_PROXIES", 0)
# Accounts asked for on the sign-up page from one address (surveys/accounts/
# signup_limits.py): a department behind one NAT signing up in an afternoon.
SIGNUP_RATE = env_str("SIGNUP_RATE", "5/3600")
for _name in (
    "SIGNUP_RATE",
    "RATE_LIMIT_PER_ADDRESS",
    "RATE_LIMIT_PER_TOKEN",
    "RATE_LIMIT_PER_SURVEY",
    "RATE_LIMIT_LOOKUPS_PER_ADDRESS",
    "RATE_LIMIT_PAGES_PER_ADDRESS",
):
    _count, _, _seconds = globals()[_name].partition("/")
    if not (_count.strip().isdigit() and _seconds.strip().isdigit()) or not int(
        _seconds
    ):
        raise ImproperlyConfigured(
            f"{_name}={globals()[_name]!r} is not a rate; write COUNT/SECONDS, "
            "e.g. 30/60 (at most 30 requests in each 60 seconds)."
        )
if RATE_LIMIT_TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured("RATE_LIMIT_TRUSTED_PROXIES must be 0 or more.")

# --- Report storage (docs/scaling.md) -------------------------------------------
# On PostgreSQL the report table is hash-partitioned by survey into this many
# partitions, read when the layout is built: by migration collection 0013 and
# by ``manage.py report_partitions --count N`` (which rebuilds the table).
REPORT_PARTITIONS = env_int("REPORT_PARTITIONS", 16)
if not 1 <= REPORT_PARTITIONS <= 1024:
    raise ImproperlyConfigured(
        f"REPORT_PARTITIONS={REPORT_PARTITIONS!r}; use an integer from 1 to 1024."
    )

# --- Results (docs/maths.md, section 6.8) ----------------------------------------
# A breakdown group with fewer reports than this is not estimated; its row says
# why.  30: below it the normal approximation behind the mean and scale
# intervals is unreliable, and at ε = 1 a yes/no share's 95% interval already
# spans about ±39 points at 30 reports (more below), so a smaller group shows
# noise, not a finding.
BREAKDOWN_MIN_GROUP = env_int("BREAKDOWN_MIN_GROUP", 30)
if BREAKDOWN_MIN_GROUP < 2:
    raise ImproperlyConfigured(
        f"BREAKDOWN_MIN_GROUP={BREAKDOWN_MIN_GROUP!r}; use an integer of 2 or more "
        "(no estimate exists from fewer than 2 reports)."
    )

# --- Unlinkable respondents (docs/privacy.md) -----------------------------------
# A submission's arrival time is stored already truncated to this unit (UTC) and
# exported so: "day" (default) or "hour".  A finer time could be matched with a
# request time seen elsewhere (a proxy's log, a network capture); a day puts a
# submission among everything received that day.  "hour" suits surveys that
# receive many answers an hour and want a time-of-day analysis.
RECEIVED_AT_GRANULARITY = env_str("RECEIVED_AT_GRANULARITY", "day").strip().lower()
if RECEIVED_AT_GRANULARITY not in ("day", "hour"):
    raise ImproperlyConfigured(
        f"RECEIVED_AT_GRANULARITY={RECEIVED_AT_GRANULARITY!r}; use day or hour."
    )
# Whose client address and user agent gunicorn's access log keeps (read by
# gunicorn.conf.py; here so that the consent page says what is logged).
ACCESS_LOG_CLIENTS = env_str("ACCESS_LOG_CLIENTS", "researchers").strip()
if ACCESS_LOG_CLIENTS not in ("researchers", "none", "all"):
    raise ImproperlyConfigured(
        f"ACCESS_LOG_CLIENTS={ACCESS_LOG_CLIENTS!r}; use researchers, none or all."
    )

# --- Celery -------------------------------------------------------------------
# No broker configured: tasks run in-process (eager), so the development server
# needs nothing else running.  With a broker, they go to the workers.  Celery
# still opens a producer for an eager task: kombu's in-memory transport, named
# with a host, rather than its default AMQP one with none (kombu warned that it
# reverted to localhost).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
if CELERY_TASK_ALWAYS_EAGER:
    CELERY_BROKER_URL = "memory://localhost/"
# kombu's Redis transport with one fix: a worker survives Redis dropping while it
# holds a task (surveys/broker.py explains).
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT = "surveys.broker:Transport"
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or None
CELERY_RESULT_EXPIRES = env_int("CELERY_RESULT_EXPIRES", 3600)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 240)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300)
# Redis redelivers an unacknowledged task after the visibility timeout: it must
# exceed the longest task (the hard time limit) or a running task runs twice.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600),
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = CELERY_BROKER_TRANSPORT_OPTIONS

# --- Survey lifecycle (surveys.authoring.lifecycle) ------------------------------
# A submission whose respond page was loaded while the survey was open is still
# stored if it arrives this long after the survey closed (dates, target or by
# hand; never once archived).
SUBMISSION_GRACE_SECONDS = env_int("SUBMISSION_GRACE_SECONDS", 30 * 60)
# Owners' notifications go through Django's email framework (EMAIL_URL above).

# --- Logging (the set-up: surveys/settings/internal.py) ------------------------
LOGGING = {
    **LOGGING,
    "root": {**LOGGING["root"], "level": env_str("LOG_LEVEL", "INFO")},
}
