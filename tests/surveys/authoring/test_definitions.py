"""Survey definitions: export as versioned JSON, import as a new draft."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import jsonschema
import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from surveys.authoring import definitions, services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey

pytestmark = pytest.mark.django_db

SCHEMA = json.loads(
    (
        Path(__file__).resolve().parents[3] / "docs" / "survey-definition.schema.json"
    ).read_text()
)


@pytest.fixture
def study(make_survey, add_question):
    survey = make_survey(
        title="Student life",
        consent_text="Taking part is voluntary.",
        epsilon_budget=6.0,
        completion_code="C0DE42",
        completion_redirect_url="https://app.prolific.com/submissions/complete?cc={code}",
    )
    add_question(survey, epsilon=1.0, mechanism="forced_response")
    services.question_create(
        survey=survey,
        text="Which app do you use most?",
        privacy=PrivacyConfig(
            kind="single_choice", options=("A", "B", "C"), epsilon=1.5
        ),
        optional=True,
        section_title="Apps",
        section_intro="Two questions about apps.",
    )
    services.question_create(
        survey=survey,
        text="Hours online per day",
        privacy=PrivacyConfig(
            kind="numeric",
            low=Decimal(0),
            high=Decimal(12),
            step=Decimal("0.5"),
            epsilon=1.0,
        ),
    )
    add_question(
        survey,
        kind="single_choice",
        text="Which faculty are you in?",
        options=("Arts", "Science"),
        is_private=False,
        acknowledged=True,
    )
    return survey


def _without_ids(document):
    return {k: v for k, v in document.items() if k != "total_epsilon"}


def test_the_definition_validates_against_the_published_schema(study):
    jsonschema.validate(definitions.definition_document(study), SCHEMA)


def test_the_definition_holds_no_owner_link_or_response_data(study):
    text = definitions.definition_json(study)
    assert study.public_token not in text
    assert study.owner.username not in text
    for absent in ("owner", "public_token", "opens_at", "revision", "id"):
        assert f'"{absent}"' not in text


def test_export_then_import_then_export_gives_the_same_document(study, bob):
    first = definitions.definition_document(study)
    copy = definitions.definition_import(owner=bob, document=first)
    second = definitions.definition_document(copy)
    assert second == first
    assert copy.owner == bob
    assert copy.status == Survey.Status.DRAFT
    assert copy.public_token != study.public_token


def test_an_imported_question_compiles_its_own_spec_not_the_documents(study, bob):
    document = definitions.definition_document(study)
    honest = document["questions"][0]["spec"]
    document["questions"][0]["spec"] = {**honest, "epsilon": 0.0001}
    copy = definitions.definition_import(owner=bob, document=document)
    assert copy.questions.order_by("position")[0].spec == honest


def test_an_epsilon_above_the_budget_imports_nothing(study, bob):
    document = definitions.definition_document(study)
    document["survey"]["epsilon_budget"] = 1.0
    with pytest.raises(ValidationError, match="budget"):
        definitions.definition_import(owner=bob, document=document)
    assert not Survey.objects.filter(owner=bob).exists()


def test_a_bad_question_is_named_and_nothing_is_imported(study, bob):
    document = definitions.definition_document(study)
    document["questions"][1]["options"] = ["Only one"]
    document["questions"][2]["kind"] = "essay"
    with pytest.raises(ValidationError) as raised:
        definitions.definition_import(owner=bob, document=document)
    text = " ".join(raised.value.messages)
    assert "Question 2" in text and "at least 2 options" in text
    assert "Question 3" in text and "essay" in text
    assert "Nothing was imported." in text
    assert not Survey.objects.filter(owner=bob).exists()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"\xff\xfe{}", "not UTF-8"),
        (b"{", "not valid JSON"),
        (b'{"format": "other", "version": 1}', "not a Deniable survey definition"),
        (
            b'{"format": "deniable.survey-definition", "version": 99}',
            "version 99",
        ),
        (b'{"x": NaN}', "not valid JSON"),
        (b" " * (definitions.MAX_BYTES + 1), "at most"),
    ],
)
def test_unreadable_files_are_refused_with_the_reason(raw, message):
    with pytest.raises(ValidationError, match=message):
        definitions.parse_definition(raw)


def test_unknown_or_mistyped_fields_are_refused(bob):
    document = {
        "format": definitions.FORMAT,
        "version": 1,
        "survey": {"title": "T", "owner": 3, "epsilon_budget": True},
        "questions": [],
    }
    with pytest.raises(ValidationError) as raised:
        definitions.definition_import(owner=bob, document=document)
    text = " ".join(raised.value.messages)
    assert "unknown fields: owner" in text
    assert "“epsilon_budget” has the wrong type" in text


def test_download_is_an_owner_only_json_attachment(client, ada_client, study, bob):
    url = reverse("authoring:survey_definition", args=[study.pk])
    response = ada_client.get(url)
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    assert json.loads(response.content)["format"] == definitions.FORMAT
    client.force_login(bob)
    assert client.get(url).status_code == 404


def test_upload_creates_a_draft_and_opens_it(ada_client, study, ada):
    body = definitions.definition_json(study).encode()
    response = ada_client.post(
        reverse("authoring:survey_import"),
        {"definition": SimpleUploadedFile("d.json", body, "application/json")},
    )
    copy = Survey.objects.filter(owner=ada).exclude(pk=study.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("authoring:survey_detail", args=[copy.pk])
    assert copy.questions.count() == 4


def test_a_bad_upload_shows_the_problem_and_changes_nothing(ada_client, ada):
    before = Survey.objects.count()
    response = ada_client.post(
        reverse("authoring:survey_import"),
        {"definition": SimpleUploadedFile("d.json", b"{", "application/json")},
    )
    assert response.status_code == 400
    assert "not valid JSON" in response.content.decode()
    assert "Nothing was imported." in response.content.decode()
    assert Survey.objects.count() == before


def test_the_survey_list_and_page_link_to_import_and_download(ada_client, study):
    listing = ada_client.get(reverse("authoring:survey_list")).content.decode()
    assert reverse("authoring:survey_import") in listing
    page = ada_client.get(
        reverse("authoring:survey_detail", args=[study.pk])
    ).content.decode()
    assert reverse("authoring:survey_definition", args=[study.pk]) in page


def test_display_logic_survives_export_and_import(study, bob):
    faculty = study.questions.get(text="Which faculty are you in?")
    services.question_create(
        survey=study,
        text="Science labs: have you faked a result?",
        privacy=PrivacyConfig(kind="yes_no", epsilon=1.0),
        show_if={"question": faculty.pk, "any_of": [1]},
    )
    document = definitions.definition_document(study)
    assert document["questions"][-1]["show_if"] == {
        "question_number": 4,
        "any_of": [1],
    }
    copy = definitions.definition_import(owner=bob, document=document)
    copied = copy.questions.get(position=5)
    assert copied.show_if == {
        "question": copy.questions.get(position=4).pk,
        "any_of": [1],
    }
    assert definitions.definition_document(copy) == document


def test_link_fields_survive_export_and_import(study, bob):
    Survey.objects.filter(pk=study.pk).update(
        link_fields=["PROLIFIC_PID"], link_fields_acknowledged=True
    )
    study.refresh_from_db()
    document = definitions.definition_document(study)
    jsonschema.validate(document, SCHEMA)
    copy = definitions.definition_import(owner=bob, document=document)
    assert copy.link_fields == ["PROLIFIC_PID"]
    assert copy.link_fields_acknowledged


def test_a_survey_without_link_fields_writes_none(study):
    assert "link_fields" not in definitions.definition_document(study)["survey"]


def test_imported_link_fields_without_the_acknowledgement_import_nothing(study, bob):
    document = definitions.definition_document(study)
    document["survey"]["link_fields"] = ["PROLIFIC_PID"]
    with pytest.raises(ValidationError, match="identify respondents"):
        definitions.definition_import(owner=bob, document=document)
    assert not Survey.objects.filter(owner=bob).exists()


def test_typed_words_order_and_quotas_survive_export_and_import(study, bob):
    services.question_create(
        survey=study,
        text="Your colour?",
        privacy=PrivacyConfig(
            kind="single_choice",
            is_private=False,
            options=("Red", "Blue"),
            other_option=True,
        ),
        not_private_acknowledged=True,
        shuffle_options=True,
        quotas={"0": 10, "2": 3},
    )
    services.question_create(
        survey=study,
        text="Anything else?",
        privacy=PrivacyConfig(kind="long_text", is_private=False),
        not_private_acknowledged=True,
    )
    Survey.objects.filter(pk=study.pk).update(shuffle_questions=True)
    study.refresh_from_db()
    document = definitions.definition_document(study)
    jsonschema.validate(document, SCHEMA)
    copy = definitions.definition_import(owner=bob, document=document)
    colour = copy.questions.get(text="Your colour?")
    assert (colour.other_option, colour.shuffle_options, colour.quotas) == (
        True,
        True,
        {"0": 10, "2": 3},
    )
    assert copy.questions.get(text="Anything else?").kind == "long_text"
    assert copy.shuffle_questions
    assert definitions.definition_document(copy) == document


@pytest.mark.parametrize(
    "quotas",
    [{"5": 3}, {"0": "many"}, {"0": True}],
    ids=["no-such-answer", "text", "bool"],
)
def test_a_quota_on_an_answer_the_question_lacks_imports_nothing(study, bob, quotas):
    document = definitions.definition_document(study)
    document["questions"][-1]["quotas"] = quotas  # the unprotected faculty question
    with pytest.raises(ValidationError, match="quota"):
        definitions.definition_import(owner=bob, document=document)
    assert not Survey.objects.filter(owner=bob).exists()


def test_a_survey_without_order_or_quotas_writes_neither(study):
    document = definitions.definition_document(study)
    assert "shuffle_questions" not in document["survey"]
    assert not any(
        {"shuffle_options", "quotas", "other_option"} & set(q)
        for q in document["questions"]
    )
