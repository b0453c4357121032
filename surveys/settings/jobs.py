"""Settings a deployer sets for the workers' jobs (docs/configuration.md).

When Celery beat runs the periodic tasks, how email invitations and reminders
are sent, when results snapshots advance, and where export files go and how
long they stay.  :mod:`surveys.settings` imports each of these by name.
"""

from pathlib import Path

from celery.schedules import crontab

from surveys.env import env_int, env_str
from surveys.settings.internal import BASE_DIR

# --- Periodic tasks (Celery beat) -----------------------------------------------
CELERY_BEAT_SCHEDULE = {
    "clear-expired-sessions": {
        "task": "surveys.accounts.tasks.clear_expired_sessions",
        "schedule": crontab(hour=3, minute=17),
    },
    # Folds in reports whose refresh was never enqueued (e.g. Redis was down).
    "reconcile-tallies": {
        "task": "surveys.analysis.tasks.reconcile_tallies",
        "schedule": env_int("TALLY_RECONCILE_SECONDS", 60),
    },
    # Removes export files past EXPORT_RETENTION_HOURS.
    "purge-exports": {
        "task": "surveys.analysis.tasks.purge_exports",
        "schedule": crontab(minute=41),
    },
    # Emails a survey's owner when it opened or closed by its dates or target.
    # Whether a survey is open never waits for this (decided at request time).
    "survey-transitions": {
        "task": "surveys.authoring.tasks.notify_survey_transitions",
        "schedule": env_int("SURVEY_TRANSITIONS_SECONDS", 60),
    },
    # Empties recipients' addresses RECIPIENT_RETENTION_DAYS after a survey closed.
    "purge-recipient-addresses": {
        "task": "surveys.collection.tasks.purge_recipient_addresses",
        "schedule": crontab(hour=4, minute=7),
    },
}

# --- Email invitations and reminders (surveys.invitations.mailings) ---------------
# Emails handed to the mail server per connection, and how often a mailing that
# met a temporary failure (a 4xx reply, no connection) is retried, with
# exponential backoff from EMAIL_RETRY_SECONDS (doubling, at most an hour).
EMAIL_BATCH_SIZE = env_int("EMAIL_BATCH_SIZE", 100)
EMAIL_RETRY_MAX = env_int("EMAIL_RETRY_MAX", 5)
EMAIL_RETRY_SECONDS = env_int("EMAIL_RETRY_SECONDS", 60)
# At most this many reminders per recipient, at least this many days apart.
REMINDERS_MAX = env_int("REMINDERS_MAX", 3)
REMINDER_MIN_DAYS = env_int("REMINDER_MIN_DAYS", 3)
# Recipients' addresses are emptied this many days after the survey closed.
RECIPIENT_RETENTION_DAYS = env_int("RECIPIENT_RETENTION_DAYS", 30)

# --- Result snapshots (surveys.analysis) ---------------------------------------
# Workers compute a survey's results once per change and pages read the stored
# snapshot.  k of the release rule (surveys.analysis.results.release): a
# release (results, exports, API, counts) adds at least this many submissions,
# whatever the wait, so the difference between two successive releases mixes
# at least this many respondents and never isolates one (10: the smallest cell
# size statistical agencies commonly publish).  Must be > 1 wherever real
# respondents answer.
SNAPSHOT_MIN_NEW_SUBMISSIONS = env_int("SNAPSHOT_MIN_NEW_SUBMISSIONS", 10)
# Reconciliation logs a warning when more reports than this are stored but not
# yet in a survey's results.
SNAPSHOT_LAG_WARNING_REPORTS = env_int("SNAPSHOT_LAG_WARNING_REPORTS", 10_000)

# --- Export jobs (surveys.analysis) -------------------------------------------
# Files written by export jobs (raw reports as CSV/JSON); never served as static
# or media files, only through the owner's download view.  Keep it outside the
# web root and on a volume the web processes and workers share.
EXPORT_ROOT = Path(env_str("EXPORT_ROOT", str(BASE_DIR / "var" / "exports")))
# An export file is removed this long after it was written (and as soon as a
# newer export of the same kind for the survey is ready).
EXPORT_RETENTION_HOURS = env_int("EXPORT_RETENTION_HOURS", 72)
# SPSS and Stata files are built whole in memory (about 150 bytes per cell at
# peak): larger tables are refused (the CSV export has the same table).
STAT_FILE_MAX_CELLS = env_int("STAT_FILE_MAX_CELLS", 5_000_000)
