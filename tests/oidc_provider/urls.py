from django.urls import include, path

from tests.oidc_provider import views

urlpatterns = [
    path("login/", views.sign_in, name="login"),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
]
