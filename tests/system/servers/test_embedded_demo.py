"""With the embedded defaults (SQLite, no broker) the demo survey's pages answer.

The README's first command serves the demo on SQLite; the suite's other tests
run on PostgreSQL, so SQL that only PostgreSQL understands would pass them and
still break the demo (it once did: the dashboard's count of what arrived since
its snapshot used ``LATERAL`` and answered 503 on SQLite).
"""

from __future__ import annotations

from tests.conftest import clean_env, run_manage

PAGES = """
from django.conf import settings
from django.test import Client
from django.urls import reverse

from surveys.accounts.models import User
from surveys.authoring.models import Survey

settings.ALLOWED_HOSTS = ["testserver"]
survey = Survey.objects.get(title__startswith="Demo")
researcher = Client()
researcher.force_login(User.objects.get(username="demo"))
for name in {researcher_pages!r}:
    url = reverse("analysis:" + name, kwargs={{"pk": survey.pk}})
    print(name, researcher.get(url).status_code)
for name in {respondent_pages!r}:
    url = reverse("collection:" + name, args=[survey.public_token])
    print(name, Client().get(url).status_code)
"""
RESEARCHER_PAGES = [
    "dashboard",
    "dashboard_live",
    "crosstab",
    "privacy",
    "pilot",
    "regression",
    "weights",
    "export_estimates_csv",
    "export_estimates_json",
    "export_reports_csv",
    "export_reports_json",
    "export_design",
]
RESPONDENT_PAGES = ["consent", "respond"]


def test_every_page_of_the_demo_survey_answers_on_the_embedded_sqlite(tmp_path):
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    for command in (["migrate", "--noinput"], ["seed_demo"]):
        done = run_manage(*command, env=env)
        assert done.returncode == 0, done.stderr
    script = PAGES.format(
        researcher_pages=RESEARCHER_PAGES, respondent_pages=RESPONDENT_PAGES
    )
    done = run_manage("shell", "-c", script, env=env)
    assert done.returncode == 0, done.stderr
    statuses = dict(
        line.split() for line in done.stdout.splitlines() if line.count(" ") == 1
    )
    assert statuses == {page: "200" for page in RESEARCHER_PAGES + RESPONDENT_PAGES}
