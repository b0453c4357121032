"""The survey option "save and finish later on the same device": off unless
the researcher turns it on, given to the respondent's device, and carried by
survey definitions only when on."""

import json
import re

import jsonschema
import pytest
from django.test import Client
from django.urls import reverse

from surveys.authoring import definitions, services
from surveys.authoring.models import Survey
from tests.surveys.authoring.test_definitions import SCHEMA

pytestmark = pytest.mark.django_db

SETTINGS = {
    "title": "Campus health",
    "epsilon_budget": "4",
    "planned_respondents": "1000",
}


def _device_config(survey) -> dict:
    html = Client().get(reverse("collection:respond", args=[survey.public_token]))
    found = re.search(
        r'<script id="device-config" type="application/json">(.*?)</script>',
        html.content.decode(),
        re.S,
    )
    return json.loads(found.group(1))


def test_a_new_survey_does_not_offer_save_and_resume(ada_client, ada):
    ada_client.post(reverse("authoring:survey_create"), SETTINGS)
    assert Survey.objects.get(owner=ada).save_resume is False


def test_the_settings_page_turns_save_and_resume_on_and_the_device_is_told(
    ada_client, ada, survey
):
    url = reverse("authoring:survey_edit", kwargs={"pk": survey.pk})
    assert (
        "save and finish later on the same device"
        in ada_client.get(url).content.decode()
    )
    ada_client.post(url, {**SETTINGS, "save_resume": "on"})
    survey.refresh_from_db()
    assert survey.save_resume is True
    services.survey_publish(survey=survey, user=ada)
    assert _device_config(survey)["save_resume"] is True


def test_a_survey_without_save_and_resume_tells_the_device_so(ada, survey):
    services.survey_publish(survey=survey, user=ada)
    assert _device_config(survey)["save_resume"] is False


def test_a_definition_carries_save_and_resume_only_when_on(ada, survey):
    assert "save_resume" not in definitions.definition_document(survey)["survey"]
    Survey.objects.filter(pk=survey.pk).update(save_resume=True)
    survey.refresh_from_db()
    document = definitions.definition_document(survey)
    jsonschema.validate(document, SCHEMA)
    assert document["survey"]["save_resume"] is True
    assert definitions.definition_import(owner=ada, document=document).save_resume
