"""Settings no deployer sets: how the project is wired into Django.

The apps, middleware and templates, password rules and sign-in backends, the
languages, the security headers and content security policy, Celery's task
behaviour and the logging set-up.  Nothing here reads the environment:
:mod:`surveys.settings`, the module Django loads, imports each of these by name
and adds the settings a deployer sets (docs/configuration.md).
"""

from pathlib import Path

from csp.constants import NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent.parent

# Only ever used when DENIABLE_PRODUCTION is off.
DEVELOPMENT_SECRET_KEY = "django-insecure-deniable-development-only"  # noqa: S105
# Keys this repository has ever published (the compose file once had a default):
# with one of them anyone can forge signed links, so production refuses them.
PUBLISHED_SECRET_KEYS = frozenset(
    {
        DEVELOPMENT_SECRET_KEY,
        "compose-local-only-key-change-me-0123456789abcdefghijklmnop",
    }
)

# --- Cross-origin reads and reports of the independent device (DEVICE_ORIGINS) ---
CORS_URLS_REGEX = r"^/s/device/"
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ("GET", "POST", "OPTIONS")
CORS_ALLOW_HEADERS = ("accept", "content-type")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    # Django's own widget templates, for FORM_RENDERER below.
    "django.forms",
    "csp",
    "corsheaders",
    "surveys.accounts",
    "surveys.authoring",
    "surveys.collection",
    "surveys.analysis",
    "surveys.invitations",
    "surveys.api_tokens",
    "surveys.operations",
    "surveys.themes",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Cross-origin reads and reports of the independent device (DEVICE_ORIGINS,
    # below); before anything that may answer a request.
    "corsheaders.middleware.CorsMiddleware",
    # The page's language from the browser (its language cookie, set by the
    # picker through Django's set_language, else Accept-Language).  Before the
    # 503 middleware so that the outage page is translated too; it reads no
    # session and no database.
    "django.middleware.locale.LocaleMiddleware",
    # Before sessions and authentication (they query the database lazily): a
    # database outage anywhere below answers 503 with Retry-After, not 500.
    "surveys.middleware.DatabaseUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Signs out sessions idle too long or too old (surveys/accounts/sessions.py).
    "surveys.accounts.sessions.SessionLifetimeMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last: turns a sign-in refused during a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "surveys.urls"
WSGI_APPLICATION = "surveys.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "surveys.context_processors.version",
            ],
        },
    },
]

# Form widgets render through the project's template engine, so the answer
# page's widgets have their templates in templates/ like every other page.
FORM_RENDERER = "django.forms.renderers.TemplatesSetting"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "authoring:survey_list"
LOGOUT_REDIRECT_URL = "home"
PASSWORD_MIN_LENGTH = 12
_VALIDATORS = "django.contrib.auth.password_validation"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"{_VALIDATORS}.UserAttributeSimilarityValidator"},
    {
        "NAME": f"{_VALIDATORS}.MinimumLengthValidator",
        "OPTIONS": {"min_length": PASSWORD_MIN_LENGTH},
    },
    {"NAME": f"{_VALIDATORS}.CommonPasswordValidator"},
    {"NAME": f"{_VALIDATORS}.NumericPasswordValidator"},
]


# --- Sign-in lockout (django-axes; both /accounts/login/ and /admin/login/) ------
# After LOGIN_FAILURE_LIMIT failed sign-ins (a wrong password or a wrong two-factor
# code) the same LOGIN_LOCKOUT_PARAMETERS are refused for LOGIN_LOCKOUT_MINUTES,
# counted from the last failure.  A success resets the count.  Admins unlock with
# manage.py axes_reset_username USERNAME (or axes_reset_ip, axes_reset).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    # Signs no one in unless OIDC_CLIENT_ID is set (below).
    "surveys.accounts.oidc.SingleSignOnBackend",
]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "surveys.accounts.lockout.lockout_response"
AXES_USERNAME_CALLABLE = "surveys.accounts.lockout.lockout_username"
# The client address as the rate limits see it (RATE_LIMIT_TRUSTED_PROXIES).
AXES_CLIENT_IP_CALLABLE = "surveys.collection.ratelimit.client_address"
# Failed attempts are kept (they expire with the lockout); successful sign-ins are
# not logged with their address and browser.
AXES_DISABLE_ACCESS_LOG = True
# Single sign-on (OIDC_CLIENT_ID and its provider are the deployer's).
OIDC_RP_SCOPES = "openid email profile"
OIDC_USE_PKCE = True

# --- Languages (docs/translations.md) ---------------------------------------------
# Respondent pages come in these languages; the browser's Accept-Language picks
# one unless the visitor chose another with the picker on every page.  Arabic
# is the right-to-left test locale: its catalog is partial (the layout's own
# strings), everything else shows in English, right to left.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("es", "Español"),
    ("fr", "Français"),
    ("ar", "العربية"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The picker's choice lives in a cookie the browser deletes when it closes, like
# the CSRF cookie: a respondent carries nothing from one visit to the next.  It
# is the browser's preference, never stored with a submission.
LANGUAGE_COOKIE_AGE = None
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Security headers (every environment) -------------------------------------
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
# No third-party requests from any page, and no inline script or style.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [NONE],
        "object-src": [NONE],
    }
}

# The CSRF cookie lasts as long as the browser session (Django's default is a
# year): a respondent carries no identifier from one visit to the next.
CSRF_COOKIE_AGE = None
# Error emails about respondents' requests show no address, header or cookie.
DEFAULT_EXCEPTION_REPORTER_FILTER = (
    "surveys.error_reports.ClientFreeExceptionReporterFilter"
)

# --- Celery's task behaviour (its broker and time limits are the deployer's) ----
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_ACCEPT_CONTENT = ["json"]
# A task is acknowledged only once it finished; a worker that dies mid-task gets
# its task redelivered.  Every task must therefore be idempotent.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_TASK_TRACK_STARTED = True
CELERY_TIMEZONE = TIME_ZONE
# Beat answers `celery inspect ping --destination celerybeat@HOST` (its compose
# health check) while its scheduler keeps ticking; a stalled beat goes silent.
CELERY_BEAT_ENABLE_REMOTE_CONTROL = True

# --- Logging ------------------------------------------------------------------
# Request bodies are never logged: respondents' reports stay out of log files.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {
            "()": "surveys.redaction.RedactingFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
        }
    },
    # Invitation tokens and receipt codes in request paths are redacted from
    # every log line and error email (surveys/redaction.py).
    "filters": {
        "redact_secrets": {"()": "surveys.redaction.RedactSecretsFilter"},
        "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_secrets"],
        },
        "mail_admins": {
            "level": "ERROR",
            "class": "surveys.redaction.RedactingAdminEmailHandler",
            "filters": ["require_debug_false", "redact_secrets"],
        },
    },
    "loggers": {
        # Django's default config sends these to its own console and mail
        # handlers; route them through the redacting ones instead.
        "django": {"handlers": ["mail_admins"], "level": "INFO", "propagate": True},
        "django.request": {"filters": ["redact_secrets"]},
        "django.server": {
            "handlers": [],
            "filters": ["redact_secrets"],
            "level": "INFO",
            "propagate": True,
        },
        # Its DEBUG messages quote template variables (answers to plain questions).
        "django.template": {"level": "INFO"},
    },
    # The level is the deployer's LOG_LEVEL (surveys/settings/__init__.py).
    "root": {"handlers": ["console"], "level": "INFO"},
}
