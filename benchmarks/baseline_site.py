"""The site with two baseline views, for benchmarks only (never deployed).

``benchmarks/respond_path.py`` starts gunicorn with
``DJANGO_SETTINGS_MODULE=benchmarks.baseline_settings``, which serves every
URL of the site plus:

* ``POST /bench/insert``: a trivial view that inserts one row in one
  transaction (``INSERT`` into ``bench_trivial_row``, a table the benchmark
  creates) and answers ``ok``: the baseline of a submission's cost;
* ``GET /bench/api-ping``: a trivial view behind the research API's bearer
  token check (``token_required``, which reads the token and its user) that
  answers ``{}``: the baseline of an API read (``benchmarks/reads.py``).

The trivial read, ``GET /ping``, is the site's own.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from surveys.analysis.api.views import token_required
from surveys.urls import urlpatterns as site_urlpatterns

CREATE_TABLE = (
    "CREATE TABLE IF NOT EXISTS bench_trivial_row "
    "(id bigserial PRIMARY KEY, body text NOT NULL)"
)
INSERT_ROW = "INSERT INTO bench_trivial_row (body) VALUES (%s)"


@csrf_exempt
@require_POST
def insert_one_row(request: HttpRequest) -> HttpResponse:
    """Insert one row (the posted body's length) in one transaction; ``ok``."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(INSERT_ROW, [str(len(request.body))])
    return HttpResponse(b"ok", content_type="text/plain")


@require_GET
@never_cache
@token_required
def api_ping(request: HttpRequest) -> HttpResponse:
    """``{}`` for a valid bearer token: the API's checks and no work of its own."""
    return JsonResponse({})


urlpatterns = [
    path("bench/insert", insert_one_row, name="bench_insert"),
    path("bench/api-ping", api_ping, name="bench_api_ping"),
    *site_urlpatterns,
]
handler404 = "surveys.views.page_not_found"
