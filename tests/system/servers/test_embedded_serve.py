"""With the embedded defaults (SQLite, no broker) ``runserver`` serves the site."""

from tests.conftest import PYTHON, clean_env, free_port, run_manage, wait_for_http


def test_embedded_defaults_serve_the_home_page(start_process, tmp_path):
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate = run_manage("migrate", "--noinput", env=env)
    assert migrate.returncode == 0, migrate.stderr
    port = free_port()

    start_process(
        [PYTHON, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        env,
        name="runserver",
    )
    body = wait_for_http(f"http://127.0.0.1:{port}/").decode()
    assert "Surveys with plausible deniability" in body
