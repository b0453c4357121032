"""The verify page shows the fingerprints it ran with, beside the release record."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.collection import assets
from surveys.version import deniable_version


@pytest.mark.django_db(transaction=True)
def test_verify_page_shows_what_it_ran_with_beside_the_record(live_server, browser):
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(live_server.url + reverse("collection:verify"))
    table = page.locator("#ran-table")
    expect(table).to_be_visible()
    recorded = assets.recorded_fingerprints(deniable_version())
    scripts = [*assets.device_scripts(), assets.verify_script()]
    # The record also lists the independent device's own files, which run on
    # the device's site, not here.
    independent = {f"device/{s.name}" for s in assets.independent_device()}
    assert len(set(recorded) - independent) == len(scripts)
    for script in scripts:
        cell = page.locator(f'[data-ran-for="{script.name}"]')
        expect(cell.locator("code")).to_have_text(script.integrity)
        expect(cell).to_contain_text("Same as the record.")
        assert script.integrity in recorded.values()
    # Read from the page: each device file was fetched once, never again.
    for script in scripts:
        assert sum(url.endswith(script.name) for url in requests) == 1, script.name
    expect(page.locator(".ran")).to_contain_text(
        "can only be checked against the record from elsewhere"
    )
    page.close()
