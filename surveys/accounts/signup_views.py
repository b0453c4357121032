"""The sign-up page and the address check (surveys/accounts/signup.py)."""

from __future__ import annotations

import logging
import math
import smtplib

from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from surveys.accounts import signup, signup_limits

logger = logging.getLogger(__name__)


class SignUpForm(forms.Form):
    username = forms.CharField(
        label=gettext_lazy("Username"),
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        help_text=gettext_lazy("Letters, digits and @ . + - _ only."),
        widget=forms.TextInput(attrs={"autocomplete": "username"}),
    )
    email = forms.EmailField(
        label=gettext_lazy("Email address"),
        max_length=254,
        help_text=gettext_lazy("We send a link there to check it is yours."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = forms.CharField(
        label=gettext_lazy("Password"),
        strip=False,
        help_text=password_validation.password_validators_help_text_html,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=gettext_lazy("The same password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_password2(self) -> str:
        first = self.cleaned_data.get("password1")
        second = self.cleaned_data["password2"]
        if first and first != second:
            raise ValidationError(gettext("The two passwords differ."))
        return second


def _site(request) -> str:
    return f"{request.scheme}://{request.get_host()}"


def _require_signup() -> None:
    if signup.mode() == signup.OFF:
        raise Http404("Sign-up is closed on this server.")


def _too_many(request, form: SignUpForm, wait: int):
    """429: this address asked for too many accounts; nothing was made."""
    form.add_error(
        None,
        ngettext(
            "Too many accounts were asked for from your network. Nothing was "
            "made; try again in %(minutes)d minute.",
            "Too many accounts were asked for from your network. Nothing was "
            "made; try again in %(minutes)d minutes.",
            math.ceil(wait / 60),
        )
        % {"minutes": math.ceil(wait / 60)},
    )
    response = render(
        request,
        "registration/signup.html",
        {"form": form, "approval": signup.mode() == signup.APPROVAL},
        status=429,
    )
    response["Retry-After"] = str(wait)
    return response


@require_http_methods(["GET", "POST"])
@never_cache
def signup_page(request):
    """Ask for an account: username, address and password."""
    _require_signup()
    if request.user.is_authenticated:
        return redirect("authoring:survey_list")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and (wait := signup_limits.retry_after(request)):
        return _too_many(request, form, wait)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            signup.signup_create(
                username=data["username"],
                email=data["email"],
                password=data["password1"],
                site=_site(request),
            )
        except ValidationError as refused:
            form.add_error(
                "password1" if not hasattr(refused, "error_dict") else None, refused
            )
        except (OSError, smtplib.SMTPException):
            logger.exception("The sign-up's verification email could not be sent")
            form.add_error(
                None,
                gettext(
                    "The email with the link could not be sent, so no account was "
                    "made. Try again later."
                ),
            )
        else:
            return render(
                request,
                "registration/signup_done.html",
                {"email": data["email"], "approval": signup.mode() == signup.APPROVAL},
            )
    return render(
        request,
        "registration/signup.html",
        {"form": form, "approval": signup.mode() == signup.APPROVAL},
        status=400 if form.errors else 200,
    )


@require_http_methods(["GET", "POST"])
@never_cache
def verify(request, uidb64: str, token: str):
    """The emailed link: a page with one button (a mail scanner's GET changes
    nothing)."""
    user = signup.user_from_link(uidb64, token)
    if user is None:
        return render(request, "registration/verify_email.html", {}, status=400)
    if request.method == "POST":
        user = signup.email_verify(user=user)
        return render(request, "registration/verify_email_done.html", {"account": user})
    return render(request, "registration/verify_email.html", {"account": user})
