"""Sign-in (with an optional two-factor code), sign-out, password change and reset.

Password reset is Django's own: the link goes out through the configured email
backend (EMAIL_URL), works once and expires after PASSWORD_RESET_TIMEOUT; the
page says the same whether or not an account uses the address.
"""

from django.contrib.auth import views as auth_views
from django.urls import path

from surveys.accounts import views
from surveys.accounts.forms import SignInForm

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(authentication_form=SignInForm),
        name="login",
    ),
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
    path("two-factor/", views.status, name="two_factor"),
    path("two-factor/setup/", views.setup, name="two_factor_setup"),
    path("two-factor/disable/", views.disable, name="two_factor_disable"),
]
