"""Single sign-on through OpenID Connect (mozilla-django-oidc), off unless configured.

``OIDC_CLIENT_ID`` and the provider's endpoints (docs/configuration.md) turn it
on: the sign-in page then offers "Sign in with <provider>", which runs the
authorization-code flow (with a nonce and PKCE) against the provider and
signs the researcher in.  The provider's account is matched to a researcher
by its email address (which the provider must send); with
``OIDC_CREATE_ACCOUNTS`` an address no account uses makes a new, active
researcher account, else it is refused.  Each sign-in is recorded in the
audit log.  Unconfigured, the routes answer 404 and the backend signs no one
in, so password sign-in is untouched.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import Http404
from django.utils import timezone
from django.views.decorators.http import require_GET
from mozilla_django_oidc import views as oidc_views
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from surveys.accounts import audit


def enabled() -> bool:
    """Whether single sign-on is configured (``OIDC_CLIENT_ID`` is set)."""
    return bool(getattr(settings, "OIDC_RP_CLIENT_ID", ""))


def _username_for(email: str, claims: dict) -> str:
    """A free username: the provider's preferred one, else the address's name."""
    User = get_user_model()
    wanted = str(claims.get("preferred_username") or email.split("@")[0])[:140]
    candidate, number = wanted, 1
    while User.objects.filter(username__iexact=candidate).exists():
        number += 1
        candidate = f"{wanted}-{number}"
    return candidate


class SingleSignOnBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc's backend, inert unless single sign-on is configured."""

    def __init__(self, *args, **kwargs) -> None:
        if enabled():
            super().__init__(*args, **kwargs)
        else:
            self.UserModel = get_user_model()

    def authenticate(self, request, **kwargs):
        if not enabled():
            return None
        return super().authenticate(request, **kwargs)

    def verify_claims(self, claims) -> bool:
        """An address is needed (it names the account), and it must be verified
        when the provider says whether it is."""
        return bool(claims.get("email")) and claims.get("email_verified") is not False

    def filter_users_by_claims(self, claims):
        return self.UserModel.objects.filter(
            email__iexact=claims.get("email", ""), is_active=True
        )

    def create_user(self, claims):
        email = claims["email"]
        user = self.UserModel(
            username=_username_for(email, claims),
            email=email,
            email_verified_at=timezone.now(),
        )
        user.set_unusable_password()
        user.save()
        return user

    def get_or_create_user(self, access_token, id_token, payload):
        user = super().get_or_create_user(access_token, id_token, payload)
        if user is not None:
            audit.record(user, audit.Action.SIGN_IN_SSO, None, f"as {user.email}")
        return user


def _when_enabled(view):
    def guarded(request, *args, **kwargs):
        if not enabled():
            raise Http404("Single sign-on is not configured on this server.")
        return view(request, *args, **kwargs)

    return guarded


authentication_init = require_GET(
    _when_enabled(oidc_views.OIDCAuthenticationRequestView.as_view())
)
authentication_callback = require_GET(
    _when_enabled(oidc_views.OIDCAuthenticationCallbackView.as_view())
)
