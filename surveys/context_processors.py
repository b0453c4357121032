"""Values every template may show."""

from django.http import HttpRequest

from surveys.version import deniable_version


def version(request: HttpRequest) -> dict[str, str]:
    """``deniable_version``: the installed version (shown in the page footer)."""
    return {"deniable_version": deniable_version()}
