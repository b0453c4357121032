"""Link fields: URL parameters (e.g. PROLIFIC_PID) recorded with each response,
only when the survey declares them, and never without the respondent being told."""

from __future__ import annotations

import io
import logging

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys.analysis.exports import dataset_r, datasets
from surveys.authoring import services as authoring
from surveys.authoring.models import Survey
from surveys.collection.models import LinkValue, Submission
from surveys.redaction import RedactSecretsFilter
from tests.surveys.analysis.conftest import release
from tests.surveys.collection.conftest import JSON, body

pytestmark = pytest.mark.django_db

PID = "5f3a9c2e1b7d4a6e8f0c1d2e"


@pytest.fixture
def panel_survey(survey) -> Survey:
    Survey.objects.filter(pk=survey.pk).update(
        link_fields=["PROLIFIC_PID", "STUDY_ID"], link_fields_acknowledged=True
    )
    survey.refresh_from_db()
    return survey


def consent_url(survey: Survey) -> str:
    return reverse("collection:consent", args=[survey.public_token])


def respond_url(survey: Survey) -> str:
    return reverse("collection:respond", args=[survey.public_token])


# --- the respondent is told, and the values travel in the page --------------------
def test_the_consent_page_shows_the_values_and_says_they_identify_the_respondent(
    client, panel_survey
):
    page = client.get(consent_url(panel_survey), {"PROLIFIC_PID": PID}).content
    page = page.decode()
    assert "data-link-fields" in page
    assert "Your link identifies you to the researcher" in page
    assert f"<code>{PID}</code>" in page
    assert "Nothing else that ties them to you" in page
    assert f'href="{respond_url(panel_survey)}?PROLIFIC_PID={PID}"' in page


def test_without_link_values_the_consent_page_promises_nothing_ties_answers(
    client, panel_survey
):
    page = client.get(consent_url(panel_survey)).content.decode()
    assert "data-link-fields" not in page
    assert "Nothing that ties them to you" in page


def test_the_answer_page_carries_the_values_as_hidden_inputs(client, panel_survey):
    page = client.get(respond_url(panel_survey), {"PROLIFIC_PID": PID}).content
    page = page.decode()
    assert f'name="link_PROLIFIC_PID" value="{PID}"' in page
    assert "It identifies you to the researcher" in page


def test_parameters_the_survey_does_not_declare_are_ignored(client, panel_survey):
    page = client.get(consent_url(panel_survey), {"utm_source": "mail"}).content
    assert b"utm_source" not in page
    assert b"data-link-fields" not in page


def test_a_too_long_value_in_the_link_is_refused_with_a_message(client, panel_survey):
    response = client.get(consent_url(panel_survey), {"PROLIFIC_PID": "x" * 101})
    assert response.status_code == 400
    assert "at most 100 are stored" in response.content.decode()


# --- storing -----------------------------------------------------------------------
def test_a_submission_stores_its_link_values(client, panel_survey):
    data = body(panel_survey, link_PROLIFIC_PID=PID, link_STUDY_ID="s-1")
    assert client.post(respond_url(panel_survey), data, **JSON).status_code == 201
    stored = dict(LinkValue.objects.values_list("name", "value"))
    assert stored == {"PROLIFIC_PID": PID, "STUDY_ID": "s-1"}


def test_an_empty_link_value_is_not_stored(client, panel_survey):
    data = body(panel_survey, link_PROLIFIC_PID="")
    assert client.post(respond_url(panel_survey), data, **JSON).status_code == 201
    assert not LinkValue.objects.exists()


def test_a_link_field_the_survey_does_not_declare_is_refused(client, panel_survey):
    data = body(panel_survey, link_EMAIL="ada@example.org")
    response = client.post(respond_url(panel_survey), data, **JSON)
    assert response.status_code == 400
    assert "records no “EMAIL”" in response.json()["error"]
    assert not Submission.objects.exists()


def test_a_link_value_with_control_characters_is_refused(client, panel_survey):
    data = body(panel_survey, link_PROLIFIC_PID="abc\x00def")
    response = client.post(respond_url(panel_survey), data, **JSON)
    assert response.status_code == 400
    assert not Submission.objects.exists()
    assert not LinkValue.objects.exists()


def test_a_survey_without_link_fields_refuses_any(client, survey):
    data = body(survey, link_PROLIFIC_PID=PID)
    assert client.post(respond_url(survey), data, **JSON).status_code == 400
    assert not Submission.objects.exists()


def test_withdrawing_a_submission_deletes_its_link_values(client, panel_survey):
    data = body(panel_survey, link_PROLIFIC_PID=PID)
    client.post(respond_url(panel_survey), data, **JSON)
    Submission.objects.get().delete()
    assert not LinkValue.objects.exists()


# --- logs never hold them -----------------------------------------------------------
def test_a_respondent_pages_query_string_is_redacted_from_logs():
    record = logging.LogRecord(
        "gunicorn.access",
        logging.INFO,
        __file__,
        1,
        '"GET /s/abc/respond/?PROLIFIC_PID=%s HTTP/1.1" 200',
        (PID,),
        None,
    )
    RedactSecretsFilter().filter(record)
    assert PID not in record.getMessage()
    assert "/s/abc/respond/?[redacted]" in record.getMessage()


# --- exports -------------------------------------------------------------------------
def _submit_with(client, survey, pid: str) -> None:
    data = body(survey, link_PROLIFIC_PID=pid)
    assert client.post(respond_url(survey), data, **JSON).status_code == 201
    release(survey)  # as the tasks the submission announced would


def test_the_wide_export_has_a_text_column_per_link_field(client, panel_survey):
    _submit_with(client, panel_survey, "=cmd|' /C calc'!A0")
    _submit_with(client, panel_survey, PID)
    lines = list(datasets.wide_csv_lines(panel_survey))
    header = lines[0].rstrip("\r\n").split(",")
    assert header[1:3] == ["link_PROLIFIC_PID", "link_STUDY_ID"]
    text = "".join(lines)
    assert PID in text
    assert "'=cmd" in text  # a formula is neutralised, as every text cell is
    kinds = {v.name: v for v in datasets.variables(panel_survey)}
    assert kinds["link_PROLIFIC_PID"].text
    assert "identifies the respondent" in kinds["link_PROLIFIC_PID"].label


@pytest.mark.parametrize("writer", ["write_sav", "write_dta"])
def test_spss_and_stata_files_hold_link_values_as_strings(
    client, panel_survey, writer, tmp_path
):
    import pyreadstat

    _submit_with(client, panel_survey, PID)
    buffer = io.BytesIO()
    getattr(datasets, writer)(panel_survey, buffer)
    path = tmp_path / ("data.sav" if writer == "write_sav" else "data.dta")
    path.write_bytes(buffer.getvalue())
    read = pyreadstat.read_sav if writer == "write_sav" else pyreadstat.read_dta
    frame, meta = read(str(path))
    assert frame["link_PROLIFIC_PID"].tolist() == [PID]
    assert frame["link_STUDY_ID"].tolist() == [""]
    assert (
        "identifies the respondent" in meta.column_names_to_labels["link_PROLIFIC_PID"]
    )


def test_the_r_script_reads_link_fields_as_text(panel_survey):
    script = dataset_r.r_script(panel_survey)
    assert '"link_PROLIFIC_PID" = "character"' in script


# --- declaring them ------------------------------------------------------------------
def test_link_fields_need_the_researchers_acknowledgement(researcher):
    with pytest.raises(ValidationError, match="identify respondents to you"):
        authoring.survey_create(
            owner=researcher, title="Panel", link_fields=["PROLIFIC_PID"]
        )


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["1abc"], "not a link field name"),
        (["has space"], "not a link field name"),
        (["A", "a"], "named once"),
        ([f"F{i}" for i in range(6)], "at most 5"),
    ],
)
def test_bad_link_field_names_are_refused(researcher, names, message):
    with pytest.raises(ValidationError, match=message):
        authoring.survey_create(
            owner=researcher,
            title="Panel",
            link_fields=names,
            link_fields_acknowledged=True,
        )
    assert not Survey.objects.filter(title="Panel").exists()


def test_the_settings_form_takes_names_separated_by_commas(client, researcher):
    client.force_login(researcher)
    response = client.post(
        reverse("authoring:survey_create"),
        {
            "title": "Panel study",
            "epsilon_budget": "4",
            "planned_respondents": "500",
            "link_fields": "PROLIFIC_PID, STUDY_ID",
            "link_fields_acknowledged": "on",
        },
    )
    assert response.status_code == 302
    created = Survey.objects.get(title="Panel study")
    assert created.link_fields == ["PROLIFIC_PID", "STUDY_ID"]
