"""The site's URLs plus one a hostile operator could add: a page whose
response wipes the browser's storage for the site (``Clear-Site-Data``).

Chromium acts on that header only when the network really delivers it (not
on a response a test fulfils in the browser), so the live server sends it.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path

from surveys.urls import urlpatterns as site

WIPE_PATH = "hostile/wipe/"


def wipe(request: HttpRequest) -> HttpResponse:
    response = HttpResponse("<!doctype html><title>wiped</title>")
    response["Clear-Site-Data"] = '"storage"'
    return response


urlpatterns = [path(WIPE_PATH, wipe), *site]
