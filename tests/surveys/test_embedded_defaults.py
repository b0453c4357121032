"""With no configuration at all: SQLite inside the project, tasks run in-process."""

import json

from tests.conftest import clean_env, free_port, run_manage, wait_for_http


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


def test_embedded_defaults_serve_the_home_page(start_process, tmp_path):
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate = run_manage("migrate", "--noinput", env=env)
    assert migrate.returncode == 0, migrate.stderr
    port = free_port()
    from tests.conftest import PYTHON

    start_process(
        [PYTHON, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        env,
        name="runserver",
    )
    body = wait_for_http(f"http://127.0.0.1:{port}/").decode()
    assert "Surveys with plausible deniability" in body
