"""README command 1 (scripts/serve) serves the demo on the port PORT names."""

from __future__ import annotations

from tests.conftest import clean_env, free_port, wait_for_http


def test_serve_answers_on_the_port_named_by_port(start_process, tmp_path):
    port = free_port()
    env = clean_env(
        PORT=str(port),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        CACHE_URL="",
    )
    env.pop("HOST", None)  # the default host
    serve = start_process(["bash", "scripts/serve"], env, name="serve")
    body = wait_for_http(f"http://127.0.0.1:{port}/", timeout=300).decode()
    assert "Surveys with plausible deniability" in body
    output = serve.output()
    assert "Demo researcher: username demo" in output
    assert f"http://127.0.0.1:{port}/" in output
