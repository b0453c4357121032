from django.urls import path

from surveys.themes import views

app_name = "themes"

urlpatterns = [
    path(
        "accent/<str:hex_digits>.css", views.accent_stylesheet, name="accent_stylesheet"
    ),
    path("<int:pk>/<slug:version>/theme.css", views.stylesheet, name="stylesheet"),
    path("<int:pk>/<slug:version>/logo", views.logo, name="logo"),
]
