"""One version number, pyproject.toml's, shown wherever an operator looks."""

import re
import tomllib
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from packaging.version import Version

from surveys.version import deniable_version
from tests.conftest import ROOT


def pyproject_version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)["project"]["version"]


def test_installed_version_is_the_one_in_pyproject():
    assert deniable_version() == pyproject_version()


def test_version_is_a_pep_440_version():
    assert str(Version(deniable_version())) == deniable_version()


def test_management_command_prints_the_version():
    out = StringIO()
    call_command("deniable_version", stdout=out)
    assert out.getvalue() == f"{pyproject_version()}\n"


@pytest.mark.django_db
def test_page_footer_shows_the_version(client):
    html = client.get(reverse("home")).content.decode()
    footer = html[html.index('<footer class="site-footer">') :]
    assert f"Deniable {pyproject_version()}" in footer


def changelog_releases() -> list[Version]:
    """The versions of the changelog's release headings, ``## [X.Y.Z] - DATE``."""
    text = (ROOT / "CHANGELOG.md").read_text()
    return [
        Version(v)
        for v in re.findall(r"^## \[(\d[^\]]*)\] - \d{4}-\d\d-\d\d$", text, re.M)
    ]


def test_changelog_has_an_unreleased_section():
    assert "\n## [Unreleased]\n" in (ROOT / "CHANGELOG.md").read_text()


def test_changelog_lists_the_releases_up_to_this_version():
    current = Version(pyproject_version())
    released = changelog_releases()
    assert Version("0.1.0") in released
    assert all(release <= current for release in released)
    assert current.is_devrelease or current in released
