"""Sign-in forms that ask for a two-factor code when the account has one.

A wrong code counts as a failed sign-in for the lockout (django-axes), just
like a wrong password.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.signals import user_login_failed
from django.core.validators import MaxLengthValidator
from django.utils.translation import gettext_lazy

from surveys.accounts.two_factor import CodeRefused, confirmed_device, verify

CODE_NEEDED = gettext_lazy(
    "This account uses two-factor sign-in: also enter the 6-digit code your "
    "authenticator app shows."
)


def code_field(**kwargs: Any) -> forms.CharField:
    """The one-time code input (optional: only accounts with a device need it)."""
    return forms.CharField(
        required=False,
        max_length=16,
        widget=forms.TextInput(
            attrs={
                "autocomplete": "one-time-code",
                "inputmode": "numeric",
                "pattern": "[0-9 ]*",
            }
        ),
        **kwargs,
    )


class SecondFactorMixin:
    """After the password is checked, require a code if the account has a device."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # AuthenticationForm sets max_length without its validator: enforce it,
        # so an overlong username is refused before anything is looked up.
        username = self.fields["username"]  # type: ignore[attr-defined]
        username.validators.append(MaxLengthValidator(username.max_length))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()  # type: ignore[misc]
        user = self.get_user()  # type: ignore[attr-defined]
        device = confirmed_device(user) if user is not None else None
        if device is None:
            return cleaned
        code = cleaned.get("otp_code") or ""
        if not code.strip():
            raise forms.ValidationError(CODE_NEEDED, code="code_needed")
        try:
            verify(device, code)
        except CodeRefused as refused:
            user_login_failed.send(
                sender=type(self).__module__,
                credentials={"username": user.get_username()},
                request=self.request,  # type: ignore[attr-defined]
            )
            raise forms.ValidationError(str(refused), code="code_refused") from None
        # django-otp marks the session as verified by this device on sign-in.
        user.otp_device = device
        return cleaned


class SignInForm(SecondFactorMixin, AuthenticationForm):
    otp_code = code_field(
        label=gettext_lazy("Code from your authenticator app"),
        help_text=gettext_lazy("Only if you turned on two-factor sign-in."),
    )


class AdminSignInForm(SecondFactorMixin, AdminAuthenticationForm):
    otp_code = code_field(label=gettext_lazy("Two-factor code (if you use one)"))
