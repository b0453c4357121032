"""docker-compose.yml describes the stack (its commands run in tests/system/servers)."""

import pytest

from tests.surveys.compose import compose, service_command

APP_SERVICES = ("migrate", "web", "worker", "beat")


def test_compose_has_every_service_of_the_stack():
    assert set(compose()["services"]) >= {"postgres", "redis", "web", "worker", "beat"}


def test_web_worker_and_beat_share_one_image():
    images = {compose()["services"][name]["image"] for name in APP_SERVICES}
    assert images == {"deniable:latest"}


def test_redis_never_evicts_queued_tasks():
    command = service_command("redis")
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"


@pytest.mark.parametrize("name", ["postgres", "redis", "web", "worker"])
def test_long_running_services_have_healthchecks(name):
    assert compose()["services"][name]["healthcheck"]["test"]


def test_web_starts_only_after_migrations_and_healthy_services():
    services = compose()["services"]
    assert services["web"]["depends_on"]["migrate"]["condition"] == (
        "service_completed_successfully"
    )
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == (
        "service_healthy"
    )
