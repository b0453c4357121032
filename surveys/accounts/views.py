"""Sign-in, and two-factor sign-in: turn it on (scan, confirm with a code) and off."""

from __future__ import annotations

import django_otp
from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from surveys.accounts import oidc, signup, two_factor
from surveys.accounts.forms import SignInForm, code_field


class SignInView(auth_views.LoginView):
    """Django's sign-in, with the code field and a sign-up link when it is open."""

    authentication_form = SignInForm

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["signup_open"] = signup.mode() != signup.OFF
        context["sso_provider"] = settings.OIDC_PROVIDER_NAME if oidc.enabled() else ""
        return context


class CodeForm(forms.Form):
    code = code_field(label=gettext_lazy("Code from your authenticator app"))

    def clean_code(self) -> str:
        code = self.cleaned_data["code"]
        if not code.strip():
            raise forms.ValidationError(
                gettext("Enter the 6-digit code your app shows.")
            )
        return code


@login_required
@require_http_methods(["GET", "POST"])
@never_cache
def status(request):
    """Whether two-factor sign-in is on; POST starts setting it up."""
    if request.method == "POST":
        two_factor.enrolment_start(user=request.user)
        return redirect("two_factor_setup")
    device = two_factor.confirmed_device(request.user)
    return render(request, "registration/two_factor.html", {"device": device})


@login_required
@require_http_methods(["GET", "POST"])
@never_cache
def setup(request):
    """Show the secret (QR code and text) and confirm it with a code."""
    device = two_factor.pending_device(request.user)
    if device is None:
        return redirect("two_factor")
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            confirmed = two_factor.enrolment_confirm(
                user=request.user, code=form.cleaned_data["code"]
            )
        except two_factor.CodeRefused as refused:
            form.add_error("code", str(refused))
        else:
            django_otp.login(request, confirmed)
            messages.success(
                request,
                gettext(
                    "Two-factor sign-in is on: from now on, signing in also asks "
                    "for a code from your app."
                ),
            )
            return redirect("two_factor")
    return render(
        request,
        "registration/two_factor_setup.html",
        {
            "form": form,
            "qr_code": two_factor.qr_code_data_uri(device),
            "secret": two_factor.secret_words(device),
            "otpauth_uri": device.config_url,
        },
        status=400 if form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
@never_cache
def disable(request):
    """Turn two-factor sign-in off, after a current code."""
    if two_factor.confirmed_device(request.user) is None:
        return redirect("two_factor")
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            two_factor.two_factor_disable(
                user=request.user, code=form.cleaned_data["code"]
            )
        except two_factor.CodeRefused as refused:
            form.add_error("code", str(refused))
        else:
            request.session.pop(django_otp.DEVICE_ID_SESSION_KEY, None)
            messages.success(request, gettext("Two-factor sign-in is off."))
            return redirect("two_factor")
    return render(
        request,
        "registration/two_factor_disable.html",
        {"form": form},
        status=400 if form.errors else 200,
    )
