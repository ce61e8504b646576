"""memoryhub settings: everything comes from environment variables (see README)."""

import os
import secrets
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from memoryhub.core.files import private_dir, private_file

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: str = "False") -> bool:
    value = os.environ.get(name, default)
    if value.lower() in ("true", "1", "yes", "on"):
        return True
    if value.lower() in ("false", "0", "no", "off", ""):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, got {value!r}")


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from exc


def envfloat(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    try:
        return float(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}") from exc


def llm_endpoints() -> dict[str, dict]:
    """Named model endpoints besides the default: MEMORYHUB_LLM_ENDPOINTS=fast,local, then for each name
    MEMORYHUB_LLM_FAST_BASE_URL (required), _MODEL, _API_KEY and _TIMEOUT. A space's summarizeProvider picks one."""
    endpoints = {}
    for name in (n.strip().lower() for n in os.environ.get("MEMORYHUB_LLM_ENDPOINTS", "").split(",")):
        if not name:
            continue
        if not name.replace("-", "").replace("_", "").isalnum() or not name.isascii():
            raise ImproperlyConfigured(f"MEMORYHUB_LLM_ENDPOINTS: {name!r} is not a name (letters, digits, - or _)")
        prefix = f"MEMORYHUB_LLM_{name.upper().replace('-', '_')}_"
        if not os.environ.get(prefix + "BASE_URL"):
            raise ImproperlyConfigured(f"MEMORYHUB_LLM_ENDPOINTS names {name!r}, but {prefix}BASE_URL is not set")
        endpoints[name] = {"BASE_URL": os.environ[prefix + "BASE_URL"], "MODEL": os.environ.get(prefix + "MODEL", ""),
                           "API_KEY": os.environ.get(prefix + "API_KEY", ""),
                           "TIMEOUT": envfloat(prefix + "TIMEOUT", envfloat("MEMORYHUB_LLM_TIMEOUT", 25.0))}
    return endpoints


DATA_DIR = private_dir(Path(os.environ.get("MEMORYHUB_DATA_DIR") or BASE_DIR / "data").resolve())
STATE_DIR = private_dir(DATA_DIR / "state")


def _secret_key() -> str:
    """Use SECRET_KEY from the environment, else one generated once into the data dir."""
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    path = STATE_DIR / "secret_key"
    if not path.exists():
        # Processes starting at once on a new data dir (the web and the worker of `serve`) must agree: the key is
        # written whole into a file of this process, then linked into place; one that loses the race reads the
        # winner's (creating the file in place let a loser crash on it, or read it still empty).
        mine = STATE_DIR / f"secret_key.{os.getpid()}"
        fd = os.open(mine, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(50))
        try:
            os.link(mine, path)
        except FileExistsError:
            pass
        finally:
            mine.unlink(missing_ok=True)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = envbool("DEBUG")
BIND = os.environ.get("MEMORYHUB_BIND", "127.0.0.1:8000")
_bind_host = BIND.rsplit(":", 1)[0].strip("[]")
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("MEMORYHUB_ALLOWED_HOSTS", f"127.0.0.1,localhost,[::1],{_bind_host}").split(",")
    if h.strip()
]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("MEMORYHUB_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]
# The proxies whose X-Forwarded-For the hub believes (gunicorn's forwarded_allow_ips, the login throttle's client
# address): none unless named. MEMORYHUB_FORWARDED_ALLOW_IPS is the older name of the same setting.
TRUSTED_PROXIES = [
    p.strip() for p in os.environ.get("MEMORYHUB_TRUSTED_PROXIES",
                                      os.environ.get("MEMORYHUB_FORWARDED_ALLOW_IPS", "")).split(",") if p.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "django_q",
    "axes",
    "memoryhub.audit",
    "memoryhub.agents",
    "memoryhub.spaces",
    "memoryhub.memories",
    "memoryhub.vault",
    "memoryhub.api",
    "memoryhub.jobs",
    "memoryhub.dashboard",
    "memoryhub.ops",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: it turns a lockout into the page below
]

ROOT_URLCONF = "memoryhub.urls"
WSGI_APPLICATION = "memoryhub.wsgi.application"

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
                "memoryhub.dashboard.context.sidebar",
            ],
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'memoryhub.sqlite3'}",
        # Persistent connections: a new SQLite connection per request re-runs the PRAGMAs and its
        # close checkpoints the WAL (tens of ms); PostgreSQL saves the connection set-up.
        conn_max_age=envint("MEMORYHUB_CONN_MAX_AGE", 600),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    _db_name = str(DATABASES["default"]["NAME"])
    if _db_name not in ("", ":memory:") and not _db_name.startswith("file:"):
        private_file(Path(_db_name))  # before SQLite creates it with the umask's mode
    # Django's backend, with every write transaction queued for the machine's writer lock (core/sqlite).
    DATABASES["default"]["ENGINE"] = "memoryhub.core.sqlite"
    # WAL lets readers and the worker run beside one writer; IMMEDIATE avoids
    # lock-upgrade deadlocks between web and worker processes.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
            "PRAGMA foreign_keys=ON; PRAGMA busy_timeout=20000;"
        ),
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    # Tests run on a real file, so threads (compaction beside a writer) see SQLite's real locking.
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test-memoryhub.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
# Login throttling (django-axes): after MEMORYHUB_LOGIN_FAILURES wrong passwords for one username from one
# address, that pair is refused for MEMORYHUB_LOGIN_COOLOFF_MINUTES; a right password resets the count.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = envint("MEMORYHUB_LOGIN_FAILURES", 5)
AXES_COOLOFF_TIME = timedelta(minutes=envint("MEMORYHUB_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "memoryhub.dashboard.views.login.locked_out"
AXES_DISABLE_ACCESS_LOG = True  # failures are kept; successful logins need no second log
AXES_VERBOSE = False
AXES_CLIENT_IP_CALLABLE = "memoryhub.core.client_ip.client_ip"  # X-Forwarded-For only from TRUSTED_PROXIES
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard:home"
LOGOUT_REDIRECT_URL = "login"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("MEMORYHUB_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_ROOT = BASE_DIR / "static" / "root"  # served at the site's root: /favicon.ico, which browsers ask for

# The agent API refuses bodies over 1 MiB with 413 too_large.
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 16 * 1024 * 1024

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "memoryhub_cache",
    },
    # django-q2's cluster status, saved every guard cycle: in the worker's memory, not a database write.
    "jobs_status": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "jobs-status"},
}

REDIS_URL = os.environ.get("REDIS_URL", "")
# How long the job queue's Redis may take to accept a connection or answer a command. Without a limit, a Redis that
# drops packets (rather than refusing) hangs every enqueue, and so the write whose follow-up it is, for good.
REDIS_TIMEOUT = envfloat("MEMORYHUB_REDIS_TIMEOUT", 5.0)
QUEUE_WAIT = 1  # django-q2's worker asks Redis for a task with a 1 s BLPOP: its answer may take that much longer


def with_timeouts(url: str, seconds: float) -> str:
    """A Redis URL with connect and socket timeouts (as query arguments redis-py reads), unless it names its own."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    query.setdefault("socket_connect_timeout", f"{seconds:g}")
    query.setdefault("socket_timeout", f"{seconds + QUEUE_WAIT:g}")
    return urlunsplit(parts._replace(query=urlencode(query)))


Q_CLUSTER = {
    "name": "memoryhub",
    "workers": envint("MEMORYHUB_WORKER_PROCESSES", 2),
    "timeout": 600,
    "retry": 900,
    "max_attempts": 1,
    "queue_limit": 50,
    "save_limit": 250,
    "catch_up": False,
    "label": "Jobs",
    "sync": envbool("MEMORYHUB_Q_SYNC"),
    # An idle worker costs next to nothing: the ORM broker looks for a task once a second, the guard checks
    # its processes every 2 s (the schedules still run every 30 s) and keeps its status in memory.
    "poll": 1.0,
    "guard_cycle": 2,
    "cache": "jobs_status",
}
if REDIS_URL:
    Q_CLUSTER["redis"] = with_timeouts(REDIS_URL, REDIS_TIMEOUT)
else:
    Q_CLUSTER["orm"] = "default"
    Q_CLUSTER["bulk"] = 10

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("MEMORYHUB_LOG_LEVEL", "INFO")},
    # django-q logs every scheduled task it queues and runs at INFO, six lines a minute from the schedules alone;
    # failures stay visible (WARNING and above), and the Jobs page keeps every job's outcome.
    "loggers": {"django.db.backends": {"level": "WARNING"},
                "django-q": {"level": os.environ.get("MEMORYHUB_WORKER_LOG_LEVEL", "WARNING")}},
}

# --- memoryhub behaviour -------------------------------------------------------------
MEMORYHUB = {
    "ADMIN_USER": os.environ.get("MEMORYHUB_ADMIN_USER", "admin"),
    "MAX_ENTRY_CHARS": 8000,
    "OPLOG_KEEP": 5000,
    "SESSION_IDLE_MINUTES": envint("MEMORYHUB_SESSION_IDLE_MINUTES", 120),
    "PROVIDER_TIMEOUT": envfloat("MEMORYHUB_PROVIDER_TIMEOUT", 10.0),
    "PROVIDER_MAX_BYTES": envint("MEMORYHUB_PROVIDER_MAX_BYTES", 8 * 1024 * 1024),
    # Seconds a read over several spaces (/context, memory_search, the recall preview) waits for all its
    # third-party spaces together; the late ones are left out and named in the answer's `warnings`.
    "REMOTE_READ_DEADLINE": envfloat("MEMORYHUB_REMOTE_READ_DEADLINE", 2.0),
    # Seconds the third-party turns of one write request (a batch) are given together, sent at once.
    "REMOTE_WRITE_DEADLINE": envfloat("MEMORYHUB_REMOTE_WRITE_DEADLINE", envfloat("MEMORYHUB_PROVIDER_TIMEOUT", 10.0)),
    "SECRETS_FILE": STATE_DIR / "memory-providers.json",
    "LLM_BASE_URL": os.environ.get("MEMORYHUB_LLM_BASE_URL", ""),
    "LLM_MODEL": os.environ.get("MEMORYHUB_LLM_MODEL", ""),
    "LLM_API_KEY": os.environ.get("MEMORYHUB_LLM_API_KEY", ""),
    "LLM_TIMEOUT": envfloat("MEMORYHUB_LLM_TIMEOUT", 25.0),
    "LLM_ENDPOINTS": llm_endpoints(),
    # Optional: an OpenAI-compatible /embeddings endpoint; search then adds nearest neighbours (vectors.py).
    "EMBEDDINGS_BASE_URL": os.environ.get("MEMORYHUB_EMBEDDINGS_BASE_URL", ""),
    "EMBEDDINGS_MODEL": os.environ.get("MEMORYHUB_EMBEDDINGS_MODEL", ""),
    "EMBEDDINGS_API_KEY": os.environ.get("MEMORYHUB_EMBEDDINGS_API_KEY", ""),
    "EMBEDDINGS_TIMEOUT": envfloat("MEMORYHUB_EMBEDDINGS_TIMEOUT", 30.0),
    "EMBEDDINGS_QUERY_TIMEOUT": envfloat("MEMORYHUB_EMBEDDINGS_QUERY_TIMEOUT", 2.0),
    "EMBEDDINGS_MIN_SIMILARITY": envfloat("MEMORYHUB_EMBEDDINGS_MIN_SIMILARITY", 0.3),
    # Optional: a local cross-encoder at a /rerank endpoint re-orders search's best candidates (core/rerank.py).
    "RERANK_BASE_URL": os.environ.get("MEMORYHUB_RERANK_BASE_URL", ""),
    "RERANK_MODEL": os.environ.get("MEMORYHUB_RERANK_MODEL", ""),
    "RERANK_API_KEY": os.environ.get("MEMORYHUB_RERANK_API_KEY", ""),
    "RERANK_TIMEOUT": envfloat("MEMORYHUB_RERANK_TIMEOUT", 2.0),
    "RERANK_CANDIDATES": envint("MEMORYHUB_RERANK_CANDIDATES", 20),
    "RERANK_WEIGHT": envfloat("MEMORYHUB_RERANK_WEIGHT", 0.5),
    "RATE_LIMIT_PER_MINUTE": envint("MEMORYHUB_RATE_LIMIT_PER_MINUTE", 600),
    # Vault requests one agent session may file (each asks a person for attention; #21).
    "VAULT_REQUESTS_PER_SESSION": envint("MEMORYHUB_VAULT_REQUESTS_PER_SESSION", 20),
    # ... and one token in 24 hours, whatever its sessions (a new session id must not reset the count; #31).
    "VAULT_REQUESTS_PER_TOKEN": envint("MEMORYHUB_VAULT_REQUESTS_PER_TOKEN", 50),
    # Seconds a web process trusts its copy of a token: a revoke or pause reaches every process within it.
    "TOKEN_CACHE_SECONDS": envfloat("MEMORYHUB_TOKEN_CACHE_SECONDS", 5.0),
    "JOB_RETENTION_DAYS": envint("MEMORYHUB_JOB_RETENTION_DAYS", 30),
    # Bytes a pack may hold unpacked (and uploaded): it is read in the web process, so a bigger one is refused.
    "PACK_MAX_BYTES": envint("MEMORYHUB_PACK_MAX_BYTES", 128 * 1024 * 1024),
    "NOTEBOOK_MEMORY_CHARS": envint("MEMORYHUB_NOTEBOOK_MEMORY_CHARS", 2200),
    "NOTEBOOK_USER_CHARS": envint("MEMORYHUB_NOTEBOOK_USER_CHARS", 1375),
    # Defaults of every per-space setting (memoryhub/spaces/space_settings.py); a space may override each.
    "SPACE_DEFAULTS": {
        "inject": envbool("MEMORYHUB_INJECT", "true"),
        "maxInjectChars": envint("MEMORYHUB_MAX_INJECT_CHARS", 2600),
        "maxRecall": envint("MEMORYHUB_MAX_RECALL", 8),
        "autoSummarize": envbool("MEMORYHUB_AUTO_SUMMARIZE", "true"),
        "summarizeProvider": os.environ.get("MEMORYHUB_SUMMARIZE_PROVIDER", ""),
        "summaryModel": os.environ.get("MEMORYHUB_SUMMARY_MODEL", ""),
        "summaryTimeout": envfloat("MEMORYHUB_SUMMARY_TIMEOUT", 25.0),
        "autoPersona": envbool("MEMORYHUB_AUTO_PERSONA", "true"),
        "personaEvery": envint("MEMORYHUB_PERSONA_EVERY", 10),
        "autoConsolidate": envbool("MEMORYHUB_AUTO_CONSOLIDATE", "true"),
        "consolidateMinAgeDays": envint("MEMORYHUB_CONSOLIDATE_MIN_AGE_DAYS", 30),
        "consolidateDigestAgeDays": envint("MEMORYHUB_CONSOLIDATE_DIGEST_AGE_DAYS", 3),
        "mergeSimilarity": envfloat("MEMORYHUB_MERGE_SIMILARITY", 0.82),
        "maxEntries": envint("MEMORYHUB_MAX_ENTRIES", 20000),
        "recordSubagents": envbool("MEMORYHUB_RECORD_SUBAGENTS", "false"),
        "recallPolicy": os.environ.get("MEMORYHUB_RECALL_POLICY", "strict-v1"),
        "recallLow": envfloat("MEMORYHUB_RECALL_LOW", 0.25),
        "recallHigh": envfloat("MEMORYHUB_RECALL_HIGH", 0.6),
        "recallMultiplier": envfloat("MEMORYHUB_RECALL_MULTIPLIER", 3.0),
        "recallMaxMedium": envint("MEMORYHUB_RECALL_MAX_MEDIUM", 4),
        "recallMaxUnknown": envint("MEMORYHUB_RECALL_MAX_UNKNOWN", 2),
    },
}
