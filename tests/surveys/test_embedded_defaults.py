"""With no configuration at all: SQLite inside the project, tasks run in-process."""

import json

from tests.conftest import clean_env, run_manage


def test_database_defaults_to_sqlite_inside_the_project():
    run = run_manage(
        "shell",
        "-c",
        "import json; from django.conf import settings; "
        "db = settings.DATABASES['default']; "
        "print(json.dumps([db['ENGINE'], str(db['NAME']), str(settings.BASE_DIR)]))",
        env=clean_env(),
    )
    assert run.returncode == 0, run.stderr
    engine, name, base_dir = json.loads(run.stdout.strip().splitlines()[-1])
    assert engine == "django.db.backends.sqlite3"
    assert name.startswith(base_dir)


def test_embedded_defaults_run_a_task_in_process(tmp_path):
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    run = run_manage(
        "shell",
        "-c",
        "import json; from surveys.analysis.tasks import health_check; "
        "print(json.dumps(health_check.delay().get(timeout=10)))",
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1])["database"] == "ok"
