"""The builder in French: the device's words and the builder's own strings.

"Respondents read" is worded by the device module in the page's language;
the builder's UI strings come from the djangojs catalog, fetched with its
integrity hash.  The language is set as ``tests.browser.served_in_language``
describes.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from tests.browser import served_in_language
from tests.surveys.authoring.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_builder_preview_speaks_french(live_server, browser, django_user_model):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = services.survey_create(owner=ada, title="Langues", epsilon_budget=10)
    protected = services.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no", epsilon=1.0),
    )
    plain = services.question_create(
        survey=survey,
        text="Which year are you in?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("First", "Second")
        ),
        not_private_acknowledged=True,
    )
    context = browser.new_context(locale="fr-FR")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    page.wait_for_url("**/surveys/")

    def edit(question) -> str:
        return live_server.url + reverse(
            "authoring:question_edit",
            kwargs={"pk": survey.pk, "question_pk": question.pk},
        )

    for question in (protected, plain):
        context.route(edit(question), served_in_language("fr"))
    page.goto(edit(protected))
    expect(page.locator("#preview-sentence")).to_contain_text("fois sur")
    page.goto(edit(plain))
    expect(page.locator("#preview-epsilon")).to_have_text("non protégée (0)")
    expect(page.locator("#preview-sentence")).to_have_text(
        "Non protégée\u00a0: envoyée et enregistrée exactement comme vous répondez."
    )
    assert errors == []
    context.close()
