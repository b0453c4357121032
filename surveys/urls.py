from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt

from surveys import views
from surveys.collection import urls as collection_urls
from surveys.invitations import urls as invitation_urls

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.FaviconView.as_view(), name="favicon"),
    path("ping", views.ping, name="ping"),
    # The language picker posts here (Django's set_language: a browser cookie).
    # CSRF-exempt on purpose: a forged post can only change the language a
    # browser reads pages in, and a token would set the CSRF cookie on every
    # page, which ends the browser's back-forward cache of the answer page.
    path("i18n/setlang/", csrf_exempt(views.set_language), name="set_language"),
    path("accounts/", include("surveys.accounts.urls")),
    path("surveys/", include("surveys.authoring.urls")),
    # Respondents' pages and the researchers' invitation pages share one
    # namespace: the invitation pages were born in collection, and their URL
    # names and addresses stay as they were.
    path(
        "s/",
        include(
            (
                invitation_urls.urlpatterns + collection_urls.urlpatterns,
                collection_urls.app_name,
            )
        ),
    ),
    path("results/", include("surveys.analysis.urls")),
    path("themes/", include("surveys.themes.urls")),
    path("admin/", admin.site.urls),
]

# JSON for unknown paths under the research API, Django's page elsewhere.
handler404 = "surveys.views.page_not_found"
