"""Sign-in (with an optional two-factor code), sign-out, password change and reset,
self sign-up (when SIGNUP allows it) and its address check.

Password reset is Django's own: the link goes out through the configured email
backend (EMAIL_URL), works once and expires after PASSWORD_RESET_TIMEOUT; the
page says the same whether or not an account uses the address.
"""

from django.contrib.auth import views as auth_views
from django.urls import path

from surveys.accounts import audit_views, oidc, signup_views, views

urlpatterns = [
    path("login/", views.SignInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password_change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "password_reset/",
        auth_views.PasswordResetView.as_view(
            email_template_name="registration/password_reset_email.txt"
        ),
        name="password_reset",
    ),
    path(
        "password_reset/done/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("signup/", signup_views.signup_page, name="signup"),
    path(
        "signup/verify/<uidb64>/<token>/",
        signup_views.verify,
        name="signup_verify",
    ),
    # Single sign-on (404 unless OIDC_CLIENT_ID is set): surveys/accounts/oidc.py.
    path(
        "oidc/authenticate/", oidc.authentication_init, name="oidc_authentication_init"
    ),
    path(
        "oidc/callback/",
        oidc.authentication_callback,
        name="oidc_authentication_callback",
    ),
    path("audit/", audit_views.audit_log, name="audit_log"),
    path("audit.csv", audit_views.audit_log_csv, name="audit_log_csv"),
    path("two-factor/", views.status, name="two_factor"),
    path("two-factor/setup/", views.setup, name="two_factor_setup"),
    path("two-factor/disable/", views.disable, name="two_factor_disable"),
]
