"""The compose ``web`` command (gunicorn) logs invitation, receipt and unsubscribe
requests without their tokens, and answers a control character in one with a 404.

The redaction itself is tested in-process in
``tests/surveys/test_gunicorn_logging.py``; here a real gunicorn serves.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request

import pytest

from tests.conftest import clean_env, free_port, wait_for_http
from tests.surveys.compose import service_command
from tests.surveys.test_gunicorn_logging import RECEIPT, TOKEN, UNSUBSCRIBE


@pytest.mark.django_db
def test_web_command_logs_invitation_requests_without_the_token(
    start_process, test_database_url
):
    port = free_port()
    env = clean_env(
        DATABASE_URL=test_database_url,
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
    )
    web = start_process(service_command("web"), env, name="gunicorn")
    wait_for_http(f"http://127.0.0.1:{port}/healthz")
    paths = (
        f"/s/i/{TOKEN}/",
        f"/s/i/{TOKEN}/answer/",
        f"/s/receipt/{RECEIPT}/",
        f"/s/unsubscribe/{UNSUBSCRIBE}/",
        f"/s/i/{TOKEN}%00/",
        f"/s/unsubscribe/{UNSUBSCRIBE}%00/",
        "/s/public%00token/answer/",
    )
    for path in paths:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}{path}",
            headers={"Referer": f"http://127.0.0.1:{port}/s/i/{TOKEN}/"},
        )
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(request, timeout=5)  # noqa: S310
        error.value.close()
        assert error.value.code == 404
    deadline = time.monotonic() + 10
    access: list[str] = []
    while time.monotonic() < deadline and len(access) < len(paths):
        access = [line for line in web.output().splitlines() if '"GET /s/' in line]
        time.sleep(0.1)
    assert len(access) == len(paths), web.output()
    for secret in (TOKEN, RECEIPT, UNSUBSCRIBE):
        assert not any(secret in line for line in access), access
    assert sum("GET /s/i/[redacted]/" in line for line in access) == 3
    assert any("GET /s/receipt/[redacted]/" in line for line in access)
    assert sum("GET /s/unsubscribe/[redacted]/" in line for line in access) == 2
