from django.contrib import admin
from django.urls import include, path

from surveys import views

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("ping", views.ping, name="ping"),
    # The language picker posts here (Django's set_language: a browser cookie).
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("surveys.accounts.urls")),
    path("surveys/", include("surveys.authoring.urls")),
    path("s/", include("surveys.collection.urls")),
    path("results/", include("surveys.analysis.urls")),
    path("admin/", admin.site.urls),
]

# JSON for unknown paths under the research API, Django's page elsewhere.
handler404 = "surveys.views.page_not_found"
