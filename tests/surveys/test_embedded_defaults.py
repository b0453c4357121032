"""With no configuration at all: the embedded PostgreSQL, tasks run in-process."""

import json

import pytest

from tests.conftest import ROOT, clean_env, project_settings, run_manage


def test_database_defaults_to_the_embedded_postgres_socket_inside_the_project():
    db = project_settings()["DATABASES"]["default"]
    engine, host, name, port = db["ENGINE"], db["HOST"], db["NAME"], db["PORT"]
    assert (engine, name, port) == ("django.db.backends.postgresql", "deniable", "")
    assert host == str(ROOT / "var" / "postgres")  # a Unix socket's directory


@pytest.mark.slow  # a process of its own, which runs the task eagerly
@pytest.mark.django_db(transaction=True)
def test_embedded_defaults_run_a_task_in_process(test_database_url):
    env = clean_env(DATABASE_URL=test_database_url)
    run = run_manage(
        "shell",
        "-c",
        "import json; from surveys.analysis.tasks import health_check; "
        "print(json.dumps(health_check.delay().get(timeout=10)))",
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1])["database"] == "ok"
    assert "kombu" not in run.stderr  # no broker: no AMQP default to warn about
