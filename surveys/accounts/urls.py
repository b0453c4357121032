"""Sign-in (with an optional two-factor code), sign-out, password change.

Password reset is switched off: it needs outgoing email, which is not
configured, so its URLs are not routed at all (and no page links to them).
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
    path("two-factor/", views.status, name="two_factor"),
    path("two-factor/setup/", views.setup, name="two_factor_setup"),
    path("two-factor/disable/", views.disable, name="two_factor_disable"),
]
