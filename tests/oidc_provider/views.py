"""The provider's sign-in page and the claims it gives (email, username)."""

from __future__ import annotations

from typing import ClassVar

from django.contrib.auth import authenticate, login
from django.http import HttpResponse, HttpResponseRedirect
from django.utils.html import escape
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.oauth2_validators import OAuth2Validator

PAGE = """<!doctype html><title>Test identity provider</title>
<form method="post"><input type="hidden" name="next" value="{next}">
<label>Username <input name="username"></label>
<label>Password <input name="password" type="password"></label>
<button>Sign in</button></form>"""


@csrf_exempt  # a test fixture: the sign-in page of a pretend identity provider
def sign_in(request):
    target = request.POST.get("next") or request.GET.get("next") or "/"
    if not url_has_allowed_host_and_scheme(target, allowed_hosts=None):
        target = "/"
    if request.method == "POST":
        user = authenticate(
            request,
            username=request.POST.get("username", ""),
            password=request.POST.get("password", ""),
        )
        if user is not None:
            login(request, user)
            return HttpResponseRedirect(target)
    return HttpResponse(PAGE.format(next=escape(target)))


class ClaimsValidator(OAuth2Validator):
    """Put the account's address and username in the ID token and user info."""

    oidc_claim_scope: ClassVar[dict[str, str]] = {
        **OAuth2Validator.oidc_claim_scope,
        "email": "email",
        "email_verified": "email",
        "preferred_username": "profile",
    }

    def get_additional_claims(self, request):
        user = request.user
        return {
            "email": user.email,
            "email_verified": True,
            "preferred_username": user.username,
        }
