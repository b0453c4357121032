"""``{% device_link survey %}``: the survey's link on the independent device."""

from __future__ import annotations

from typing import Any

from django import template

from surveys.collection import device_links

register = template.Library()


@register.simple_tag(takes_context=True)
def device_link(context: dict[str, Any], survey: Any) -> str:
    """The public link of ``survey`` on the independent device ("" without
    DEVICE_URL)."""
    request = context["request"]
    origin = device_links.server_origin(request)
    return device_links.device_link(origin, survey=survey.public_token) or ""
