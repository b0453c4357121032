"""Links that open a survey on the independent device: offered on the
researcher's survey page, in the invitation CSV and by seed_demo, only when
DEVICE_URL is set."""

from __future__ import annotations

import csv
import io
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.management import call_command
from django.urls import reverse

pytestmark = pytest.mark.django_db

DEVICE_URL = "https://device.example.org/v1/"


def _fragment(link: str) -> dict[str, list[str]]:
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == DEVICE_URL
    return parse_qs(parts.fragment)


@pytest.mark.parametrize("device_url", [DEVICE_URL, ""])
def test_the_survey_page_offers_the_device_link_only_with_device_url(
    client, survey, researcher, settings, device_url
):
    settings.DEVICE_URL = device_url
    client.force_login(researcher)
    page = client.get(reverse("authoring:survey_detail", args=[survey.pk]))
    html = page.content.decode()
    assert ('id="device-link"' in html) is bool(device_url)
    if device_url:
        link = html.split('id="device-link"')[1].split('href="')[1].split('"')[0]
        fragment = _fragment(link.replace("&amp;", "&"))
        assert fragment == {
            "server": ["http://testserver"],
            "survey": [survey.public_token],
        }


def test_the_invitation_csv_gives_each_invitation_its_device_link(
    client, survey, researcher, settings
):
    settings.DEVICE_URL = DEVICE_URL
    client.force_login(researcher)
    response = client.post(
        reverse("collection:invitations", args=[survey.pk]), {"count": "2"}
    )
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["invitation_url", "device_url"]
    for url, device in rows[1:]:
        token = url.rstrip("/").rsplit("/", 1)[1]
        assert _fragment(device)["invitation"] == [token]


def test_seed_demo_prints_the_device_link(settings):
    settings.DEVICE_URL = DEVICE_URL
    out = io.StringIO()
    call_command(
        "seed_demo", respondents=0, server_url="http://127.0.0.1:8000", stdout=out
    )
    line = next(x for x in out.getvalue().splitlines() if "independent device" in x)
    assert _fragment(line.split(" at ", 1)[1])["server"] == ["http://127.0.0.1:8000"]
