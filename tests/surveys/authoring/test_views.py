"""Builder pages: forms, the preview endpoint, publishing and reordering."""

import re

import pytest
from django.test import Client
from django.urls import reverse

import ldp
from ldp.exact import display_epsilon_significant as epsilon_text
from surveys.analysis.tallies.services import tallies_refresh
from surveys.analysis.tallies.snapshots import snapshot_refresh
from surveys.authoring import services
from surveys.authoring.models import Question, Survey

pytestmark = pytest.mark.django_db

QUESTION = {
    "kind": "single_choice",
    "text": "How often do you drink?",
    "options": "Never\nMonthly\nWeekly\nDaily",
    "protection": "protected",
    "requested_epsilon": "1.0",
    "mechanism": "",
}


def _detail(survey):
    return reverse("authoring:survey_detail", kwargs={"pk": survey.pk})


def test_survey_list_shows_status_responses_and_total_epsilon(
    ada_client, survey, ada, respond
):
    services.survey_publish(survey=survey, user=ada)
    respond(survey)
    # Released as a worker would (the release rule is tested with the results).
    tallies_refresh(survey_id=survey.pk)
    snapshot_refresh(survey_id=survey.pk)
    html = ada_client.get(reverse("authoring:survey_list")).content.decode()
    total = (
        ldp.build(survey.questions.all()[0].spec).epsilon_exact
        + ldp.build(survey.questions.all()[1].spec).epsilon_exact
    )
    assert "Open" in html
    assert '<td data-label="Responses">1</td>' in html
    assert ldp.exact.display_epsilon(total) in html


def test_create_survey_with_defaults_and_redirect_to_builder(ada_client, ada):
    response = ada_client.post(
        reverse("authoring:survey_create"),
        {
            "title": "Campus health",
            "epsilon_budget": "4",
            "planned_respondents": "1000",
        },
    )
    survey = Survey.objects.get(owner=ada)
    assert response.status_code == 302
    assert response["Location"] == _detail(survey)
    assert (survey.epsilon_budget, survey.planned_respondents) == (4.0, 1000)


def test_create_survey_form_offers_budget_four_and_thousand_respondents(ada_client):
    html = ada_client.get(reverse("authoring:survey_create")).content.decode()
    assert 'name="epsilon_budget" value="4.0"' in html
    assert 'name="planned_respondents" value="1000"' in html


def test_bad_survey_budget_shows_an_error_tied_to_the_field(ada_client, ada):
    response = ada_client.post(
        reverse("authoring:survey_create"),
        {"title": "X", "epsilon_budget": "0", "planned_respondents": "1000"},
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert (
        'aria-describedby="id_epsilon_budget_helptext id_epsilon_budget_error"' in html
    )
    assert 'id="id_epsilon_budget_error"' in html
    assert not Survey.objects.filter(owner=ada).exists()


def test_add_question_creates_it_with_the_recommended_spec(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    response = ada_client.post(url, QUESTION)
    assert response.status_code == 302
    question = survey.questions.get()
    assert question.options == ["Never", "Monthly", "Weekly", "Daily"]
    assert question.spec == ldp.recommend(k=4, epsilon=1.0).spec


def test_add_question_with_one_option_shows_the_error_and_saves_nothing(
    ada_client, make_survey
):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    response = ada_client.post(url, {**QUESTION, "options": "Only"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "at least 2 options" in html
    assert 'aria-invalid="true"' in html
    assert 'id="id_options_error"' in html
    assert not survey.questions.exists()


def test_plain_question_without_acknowledgement_is_refused(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    response = ada_client.post(url, {**QUESTION, "protection": "plain"})
    assert "Tick the box" in response.content.decode()
    assert not survey.questions.exists()


def test_question_page_renders_the_preview_without_javascript(ada_client, survey):
    question = survey.questions.get(kind="single_choice")
    url = reverse(
        "authoring:question_edit", kwargs={"pk": survey.pk, "question_pk": question.pk}
    )
    html = ada_client.get(url).content.decode()
    mechanism = ldp.build(question.spec)
    assert (
        f'<dd id="preview-epsilon">{epsilon_text(mechanism.epsilon_exact)}</dd>' in html
    )
    margin = ldp.margin_of_error(mechanism, survey.planned_respondents, 0.95)
    assert f"±{-(-margin * 1000 // 1) / 10:.1f} percentage points" in html


def test_update_preview_button_renders_without_saving(ada_client, survey):
    question = survey.questions.get(kind="single_choice")
    url = reverse(
        "authoring:question_edit", kwargs={"pk": survey.pk, "question_pk": question.pk}
    )
    data = {**QUESTION, "requested_epsilon": "3", "preview": "1"}
    html = ada_client.post(url, data).content.decode()
    expected = epsilon_text(
        ldp.build(ldp.recommend(k=4, epsilon=3.0).spec).epsilon_exact
    )
    assert f'<dd id="preview-epsilon">{expected}</dd>' in html
    assert Question.objects.get(pk=question.pk).requested_epsilon == 1.0


def test_preview_endpoint_numbers_equal_ldp(ada_client, make_survey):
    survey = make_survey(planned_respondents=750)
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    data = ada_client.get(url, {**QUESTION, "requested_epsilon": "0.7"}).json()
    mechanism = ldp.build(ldp.recommend(k=4, epsilon=0.7).spec)
    assert data["ok"] is True
    assert data["epsilon"] == mechanism.epsilon
    assert data["epsilon_display"] == epsilon_text(mechanism.epsilon_exact)
    assert data["margin"] == ldp.margin_of_error(mechanism, 750, 0.95)
    assert data["n"] == 750
    assert data["n_for_five_points"] == ldp.sample_size(mechanism, 0.05, 0.95)
    assert data["mechanism"] == mechanism.name
    assert data["spec"] == mechanism.spec
    assert data["plain_words"]


def test_preview_endpoint_adds_the_other_questions_to_the_survey_total(
    ada_client, survey
):
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    data = ada_client.get(url, {**QUESTION, "requested_epsilon": "2.5"}).json()
    exact = sum(ldp.build(q.spec).epsilon_exact for q in survey.questions.all())
    exact += ldp.build(ldp.recommend(k=4, epsilon=2.5).spec).epsilon_exact
    assert data["survey_total_display"] == ldp.exact.display_epsilon(exact)
    assert data["over_budget"] is True


def test_preview_endpoint_reports_field_errors(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    data = ada_client.get(url, {**QUESTION, "requested_epsilon": "11"}).json()
    assert data["ok"] is False
    assert "requested_epsilon" in data["errors"]


def test_publish_button_refuses_over_budget_with_a_message(
    ada_client, make_survey, add_question
):
    survey = make_survey(epsilon_budget=1.5)
    add_question(survey, text="One")
    add_question(survey, text="Two")
    url = reverse("authoring:survey_publish", kwargs={"pk": survey.pk})
    response = ada_client.post(url, follow=True)
    assert "above this survey&#x27;s budget" in response.content.decode()
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT


def test_publish_button_opens_the_survey(ada_client, survey):
    url = reverse("authoring:survey_publish", kwargs={"pk": survey.pk})
    ada_client.post(url)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.OPEN


def test_move_down_button_reorders_and_returns_to_the_question(ada_client, survey):
    first, second = survey.questions.all()
    url = reverse(
        "authoring:question_move", kwargs={"pk": survey.pk, "question_pk": first.pk}
    )
    response = ada_client.post(url, {"direction": "down"})
    assert response["Location"].endswith(f"#question-{first.pk}")
    assert list(survey.questions.all()) == [second, first]


def test_move_needs_post(ada_client, survey):
    first = survey.questions.first()
    url = reverse(
        "authoring:question_move", kwargs={"pk": survey.pk, "question_pk": first.pk}
    )
    assert ada_client.get(url).status_code == 405


def test_forms_are_refused_without_csrf_token(ada):
    client = Client(enforce_csrf_checks=True)
    client.force_login(ada)
    response = client.post(
        reverse("authoring:survey_create"),
        {"title": "X", "epsilon_budget": "4", "planned_respondents": "10"},
    )
    assert response.status_code == 403
    assert not Survey.objects.filter(owner=ada).exists()


def test_delete_asks_for_confirmation_then_deletes(ada_client, survey):
    first = survey.questions.first()
    url = reverse(
        "authoring:question_delete", kwargs={"pk": survey.pk, "question_pk": first.pk}
    )
    assert "Delete this question?" in ada_client.get(url).content.decode()
    assert survey.questions.filter(pk=first.pk).exists()
    ada_client.post(url)
    assert not survey.questions.filter(pk=first.pk).exists()


def test_duplicate_button_opens_the_new_draft(ada_client, survey):
    url = reverse("authoring:survey_duplicate", kwargs={"pk": survey.pk})
    response = ada_client.post(url)
    copy = Survey.objects.exclude(pk=survey.pk).get()
    assert response["Location"] == _detail(copy)
    assert copy.questions.count() == 2


def test_close_and_reopen_buttons(ada_client, survey, ada):
    services.survey_publish(survey=survey, user=ada)
    ada_client.post(reverse("authoring:survey_close", kwargs={"pk": survey.pk}))
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.CLOSED
    ada_client.post(reverse("authoring:survey_reopen", kwargs={"pk": survey.pk}))
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.OPEN


def test_builder_marks_plain_questions_not_protected_and_lists_them(
    ada_client, survey, add_question
):
    add_question(survey, text="Your age group", is_private=False, acknowledged=True)
    html = ada_client.get(_detail(survey)).content.decode()
    assert "Not protected" in html
    assert re.search(r"Not protected questions</h2>.*Your age group", html, re.S)


def test_builder_pages_use_no_inline_script_or_style(ada_client, survey):
    question = survey.questions.first()
    pages = [
        reverse("authoring:survey_list"),
        _detail(survey),
        reverse("authoring:survey_edit", kwargs={"pk": survey.pk}),
        reverse("authoring:question_create", kwargs={"pk": survey.pk}),
        reverse(
            "authoring:question_edit",
            kwargs={"pk": survey.pk, "question_pk": question.pk},
        ),
    ]
    for url in pages:
        html = ada_client.get(url).content.decode()
        assert "<style" not in html
        assert " style=" not in html
        for tag in re.findall(r"<script[^>]*>", html):
            assert 'src="/static/' in tag, f"{url}: inline script {tag}"


def test_question_page_loads_the_builder_script(ada_client, survey):
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    assert 'src="/static/js/builder.js"' in ada_client.get(url).content.decode()


def test_preview_endpoint_shows_a_plain_question_before_acknowledgement(
    ada_client, make_survey
):
    survey = make_survey(planned_respondents=400)
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    data = ada_client.get(url, {**QUESTION, "protection": "plain"}).json()
    assert data["ok"] is True
    assert data["is_private"] is False
    assert data["margin"] == ldp.margin_of_error(None, 400, 0.95)


def test_open_survey_shows_the_respondents_link(ada_client, survey, ada):
    services.survey_publish(survey=survey, user=ada)
    html = ada_client.get(_detail(survey)).content.decode()
    link = reverse("collection:consent", args=[survey.public_token])
    assert f'href="{link}"' in html


def test_published_survey_links_to_its_results_dashboard(ada_client, survey, ada):
    services.survey_publish(survey=survey, user=ada)
    html = ada_client.get(_detail(survey)).content.decode()
    assert f'href="{reverse("analysis:dashboard", args=[survey.pk])}"' in html


def test_draft_survey_has_no_results_link(ada_client, survey):
    html = ada_client.get(_detail(survey)).content.decode()
    assert f'href="{reverse("analysis:dashboard", args=[survey.pk])}"' not in html


def test_error_summary_links_to_each_field_in_error(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    html = ada_client.post(url, {**QUESTION, "text": ""}).content.decode()
    assert '<a href="#id_text">Question: This field is required.</a>' in html


def test_missing_question_text_still_renders_the_preview(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    html = ada_client.post(url, {**QUESTION, "text": ""}).content.decode()
    expected = epsilon_text(
        ldp.build(ldp.recommend(k=4, epsilon=1.0).spec).epsilon_exact
    )
    assert f'<dd id="preview-epsilon">{expected}</dd>' in html
    assert not survey.questions.exists()
