"""The site's icon is one of its static files: every page names it, and
``/favicon.ico`` (asked for where a page names none) leads to it."""

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static

pytestmark = pytest.mark.django_db


def test_pages_name_the_static_icon(client):
    page = client.get("/").content.decode()
    assert f'<link rel="icon" href="{static("favicon.svg")}"' in page


def test_favicon_ico_redirects_to_the_static_icon(client):
    response = client.get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (
        302,
        static("favicon.svg"),
    )


def test_the_icon_is_a_static_file_of_the_site():
    found = finders.find("favicon.svg")
    assert found, "favicon.svg is not among the static files"
    assert Path(found).read_text().startswith("<svg")
