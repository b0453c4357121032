"""The researcher's import page and the import's result page."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from surveys.authoring.imports.parsed import MAX_BYTES
from surveys.authoring.models import Question, Survey
from tests.surveys.authoring.imports.workbooks import STUDENT_LIFE, fixture

pytestmark = pytest.mark.django_db
URL = reverse("authoring:questionnaire_import")


def _upload(client, name: str, raw: bytes):
    return client.post(URL, {"questionnaire": SimpleUploadedFile(name, raw)})


def test_the_surveys_list_links_to_the_import_page(ada_client):
    page = ada_client.get(reverse("authoring:survey_list")).content.decode()
    assert f'href="{URL}"' in page
    assert "Import a questionnaire (XLSForm, LimeSurvey)" in page


def test_an_uploaded_xlsform_opens_its_result_page_listing_what_was_left_out(
    ada_client,
):
    response = _upload(ada_client, "student-life.xlsx", STUDENT_LIFE)
    survey = Survey.objects.get()
    report = reverse("authoring:survey_import_report", args=[survey.pk])
    assert response.status_code == 302 and response["Location"] == report
    page = ada_client.get(report).content.decode()
    assert "Imported from XLSForm (student-life.xlsx)" in page
    assert "1 item not imported" in page
    assert "device or time metadata (start)" in page
    assert "Imported without its condition “${age} &gt; 20”" in page


def test_the_result_page_suggests_the_builders_recommended_protection(ada_client):
    _upload(ada_client, "student-life.xlsx", STUDENT_LIFE)
    survey = Survey.objects.get()
    page = ada_client.get(
        reverse("authoring:survey_import_report", args=[survey.pk])
    ).content.decode()
    drinks = survey.questions.get(text="How often do you drink?")
    assert reverse("authoring:question_edit", args=[survey.pk, drinks.pk]) in page
    assert "Protect “How often do you drink?”" in page
    # The faculty and "cheated" questions decide what is shown: keep them open.
    assert page.count("Keep it unprotected: it decides which questions") == 2
    assert "Protecting every question below as suggested would total ε" in page


def test_the_builder_page_links_an_imported_survey_to_its_result_page(ada_client):
    _upload(ada_client, "survey.lss", fixture("citric_survey.lss"))
    survey = Survey.objects.get()
    page = ada_client.get(
        reverse("authoring:survey_detail", args=[survey.pk])
    ).content.decode()
    assert "Imported from LimeSurvey: every question arrived unprotected." in page
    assert reverse("authoring:survey_import_report", args=[survey.pk]) in page


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("notes.txt", b"hello", "is neither an XLSForm (.xlsx) nor a LimeSurvey"),
        ("form.xlsx", b"PK\x03\x04broken", "not a readable Excel workbook"),
        ("s.lss", b"<document><broken", "not well-formed XML"),
        ("big.xlsx", b"0" * (MAX_BYTES + 1), "a questionnaire file is at most"),
    ],
    ids=["wrong-format", "broken-zip", "broken-xml", "too-big"],
)
def test_a_bad_file_is_refused_on_the_page_with_nothing_created(
    ada_client, name, raw, message
):
    response = _upload(ada_client, name, raw)
    assert response.status_code == 400
    page = response.content.decode()
    assert message in page and "Nothing was imported." in page
    assert 'role="alert"' in page
    assert not Survey.objects.exists() and not Question.objects.exists()


def test_the_import_page_is_translated(ada_client):
    page = ada_client.get(URL, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Importer un questionnaire" in page
