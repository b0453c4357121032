"""The API tokens page: create (shown once), list, and revoke after confirming.

Creating follows POST-redirect-GET: the new secret waits in the session for one
page view, so reloading the page never makes a second token.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from surveys.api_tokens import services
from surveys.api_tokens.forms import ApiTokenForm

# The session entry read once after creation.
NEW_TOKEN = "api_token_created"  # noqa: S105 (a key name, not a secret)


@login_required
@require_http_methods(["GET", "POST"])
@never_cache
def api_tokens(request):
    form = ApiTokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            created = services.api_token_create(
                user=request.user,
                name=form.cleaned_data["name"],
                days=form.cleaned_data["days"],
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            request.session[NEW_TOKEN] = {
                "name": created.token.name,
                "secret": created.secret,
                "expires_at": created.token.expires_at.isoformat(),
            }
            return redirect("analysis:api_tokens")
    return render(
        request,
        "analysis/tokens.html",
        {
            "form": form,
            "tokens": services.api_tokens_for(user=request.user),
            "created": request.session.pop(NEW_TOKEN, None),
        },
        status=400 if form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
@never_cache
def api_token_revoke(request, token_pk: int):
    """GET asks to confirm; POST revokes."""
    token = services.api_token_active_for(user=request.user, pk=token_pk)
    if token is None:
        raise Http404("No such active token.")
    if request.method == "POST":
        services.api_token_revoke(user=request.user, pk=token.pk)
        messages.success(
            request, gettext("The token “%(name)s” was revoked.") % {"name": token.name}
        )
        return redirect("analysis:api_tokens")
    return render(request, "analysis/token_confirm_revoke.html", {"token": token})
