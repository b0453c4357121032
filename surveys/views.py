"""Site-wide pages that belong to no single app: the home page and a health probe."""

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.generic import TemplateView


class HomeView(TemplateView):
    template_name = "home.html"


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for load balancers and compose."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return JsonResponse({"database": "unavailable"}, status=503)
    return JsonResponse({"database": "ok"})
