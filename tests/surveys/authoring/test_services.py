"""Services: questions, budgets, publishing, revisions, duplicate, reorder."""

from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

import ldp
from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question, SpecRevision, Survey

pytestmark = pytest.mark.django_db


def test_survey_create_uses_budget_four_and_a_thousand_respondents(make_survey):
    survey = make_survey()
    assert survey.epsilon_budget == 4.0
    assert survey.planned_respondents == 1000
    assert survey.status == Survey.Status.DRAFT


def test_question_create_stores_the_compiled_spec_at_the_end(survey, add_question):
    question = add_question(survey, text="Third")
    assert question.position == 3
    assert question.spec == ldp.build({"mechanism": "warner", "epsilon": 1.0}).spec
    assert question.options == ["No", "Yes"]


def test_question_create_refuses_fewer_than_two_options(survey, add_question):
    with pytest.raises(ValidationError) as caught:
        add_question(survey, kind="single_choice", options=("Only one",))
    assert "at least 2 options" in str(caught.value.message_dict["options"])
    assert survey.questions.count() == 2


def test_question_create_refuses_duplicate_options(survey, add_question):
    with pytest.raises(ValidationError) as caught:
        add_question(survey, kind="single_choice", options=("Yes", "No", " yes "))
    assert "more than once" in str(caught.value.message_dict["options"])
    assert survey.questions.count() == 2


@pytest.mark.parametrize("epsilon", [0, -1, 10.5])
def test_question_create_refuses_epsilon_outside_zero_to_ten(
    survey, add_question, epsilon
):
    with pytest.raises(ValidationError) as caught:
        add_question(survey, epsilon=epsilon)
    assert "at most 10" in str(caught.value.message_dict["requested_epsilon"])
    assert survey.questions.count() == 2


def test_non_private_question_needs_acknowledgement(survey, add_question):
    with pytest.raises(ValidationError) as caught:
        add_question(survey, text="Age group", is_private=False)
    assert "not_private_acknowledged" in caught.value.message_dict
    assert survey.questions.count() == 2


def test_acknowledged_non_private_question_has_no_spec(survey, add_question):
    question = add_question(
        survey, text="Age group", is_private=False, acknowledged=True
    )
    assert question.spec is None
    assert question.not_private_acknowledged


def test_numeric_range_must_be_whole_steps(survey, add_question):
    with pytest.raises(ValidationError) as caught:
        add_question(
            survey,
            kind="numeric",
            text="Hours",
            low=Decimal(0),
            high=Decimal(10),
            step=Decimal(3),
        )
    assert "whole number of steps" in str(caught.value.message_dict["numeric_step"])


def test_publish_freezes_specs_and_creates_spec_revisions(survey, ada):
    services.survey_publish(survey=survey, user=ada)
    survey.refresh_from_db()
    assert survey.status == Survey.Status.OPEN
    assert survey.published_at is not None
    for question in survey.questions.all():
        revision = question.spec_revisions.get()
        assert revision.revision == 1
        assert revision.spec == question.spec
        assert ldp.build(revision.spec).spec == question.spec


def test_publish_leaves_non_private_questions_without_spec_revisions(
    survey, add_question, ada
):
    plain = add_question(survey, text="Age", is_private=False, acknowledged=True)
    services.survey_publish(survey=survey, user=ada)
    plain.refresh_from_db()
    assert plain.spec is None
    assert not plain.spec_revisions.exists()


def test_publish_refuses_total_epsilon_above_budget(make_survey, add_question, ada):
    survey = make_survey(epsilon_budget=2.5)
    for text in ("One", "Two", "Three"):
        add_question(survey, text=text, epsilon=1.0)
    with pytest.raises(ValidationError, match="above this survey's budget"):
        services.survey_publish(survey=survey, user=ada)
    survey.refresh_from_db()
    assert survey.status == Survey.Status.DRAFT
    assert survey.published_at is None
    assert not SpecRevision.objects.filter(question__survey=survey).exists()


def test_publish_excludes_non_private_questions_from_the_total(
    make_survey, add_question, ada
):
    survey = make_survey(epsilon_budget=1.0)
    add_question(survey, epsilon=1.0)
    add_question(survey, text="Age", is_private=False, acknowledged=True)
    services.survey_publish(survey=survey, user=ada)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.OPEN


def test_publish_refuses_a_survey_without_questions(make_survey, ada):
    survey = make_survey()
    with pytest.raises(ValidationError, match="at least one question"):
        services.survey_publish(survey=survey, user=ada)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT


def test_publish_by_someone_else_is_denied(survey, bob):
    with pytest.raises(PermissionDenied):
        services.survey_publish(survey=survey, user=bob)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT


def test_edit_before_any_response_overwrites_the_published_spec(survey, ada):
    services.survey_publish(survey=survey, user=ada)
    question = survey.questions.first()
    services.question_update(
        question=question,
        text=question.text,
        privacy=PrivacyConfig("yes_no", epsilon=2.0),
    )
    question.refresh_from_db()
    assert question.spec_revision == 1
    assert question.spec_revisions.get().spec["epsilon"] == 2.0
    # Pages opened before the change must not submit under the old spec.
    assert Survey.objects.get(pk=survey.pk).revision == 2


def test_changed_spec_after_a_submission_creates_a_new_revision(survey, ada, respond):
    services.survey_publish(survey=survey, user=ada)
    question = survey.questions.first()
    first = question.spec_revisions.get()
    frozen = dict(first.spec)
    respond(survey)
    services.question_update(
        question=question,
        text=question.text,
        privacy=PrivacyConfig("yes_no", epsilon=0.5),
    )
    question.refresh_from_db()
    assert question.spec_revision == 2
    assert question.spec["epsilon"] == 0.5
    assert question.spec_revisions.get(revision=2).spec == question.spec
    first.refresh_from_db()
    assert first.spec == frozen
    assert Survey.objects.get(pk=survey.pk).revision == 2


def test_text_only_edit_after_a_submission_keeps_the_spec_and_revision(
    survey, ada, respond
):
    services.survey_publish(survey=survey, user=ada)
    respond(survey)
    question = survey.questions.first()
    spec = question.spec
    services.question_update(
        question=question,
        text="Have you ever copied homework?",
        privacy=PrivacyConfig("yes_no"),
    )
    question.refresh_from_db()
    assert question.text == "Have you ever copied homework?"
    assert question.spec == spec
    assert question.spec_revision == 1
    assert question.spec_revisions.count() == 1
    assert Survey.objects.get(pk=survey.pk).revision == 1


def test_kind_cannot_change_after_a_submission(survey, ada, respond):
    services.survey_publish(survey=survey, user=ada)
    respond(survey)
    question = survey.questions.first()
    with pytest.raises(ValidationError, match="kind can't change"):
        services.question_update(
            question=question,
            text=question.text,
            privacy=PrivacyConfig("single_choice", options=("a", "b", "c")),
        )
    assert Question.objects.get(pk=question.pk).kind == "yes_no"


def test_edit_of_a_published_question_above_budget_is_refused(
    make_survey, add_question, ada
):
    survey = make_survey(epsilon_budget=2.0)
    question = add_question(survey, epsilon=1.0)
    add_question(survey, text="Other", epsilon=1.0)
    services.survey_publish(survey=survey, user=ada)
    with pytest.raises(ValidationError, match="above this survey's budget"):
        services.question_update(
            question=question,
            text=question.text,
            privacy=PrivacyConfig("yes_no", epsilon=3.0),
        )
    question.refresh_from_db()
    assert question.requested_epsilon == 1.0
    assert question.spec_revisions.get().spec["epsilon"] == 1.0


def test_budget_of_a_live_survey_cannot_drop_below_its_total(survey, ada):
    services.survey_publish(survey=survey, user=ada)
    with pytest.raises(ValidationError):
        services.survey_update(
            survey=survey,
            title=survey.title,
            description="",
            consent_text="",
            epsilon_budget=1.5,
            planned_respondents=1000,
        )
    assert Survey.objects.get(pk=survey.pk).epsilon_budget == 4.0


def test_question_added_after_a_submission_moves_the_survey_revision(
    survey, add_question, ada, respond
):
    services.survey_publish(survey=survey, user=ada)
    respond(survey)
    question = add_question(survey, text="New one", epsilon=0.5)
    assert question.spec_revisions.get().spec == question.spec
    assert Survey.objects.get(pk=survey.pk).revision == 2


def test_delete_is_refused_once_a_survey_has_responses(survey, ada, respond):
    services.survey_publish(survey=survey, user=ada)
    respond(survey)
    with pytest.raises(ValidationError, match="has responses"):
        services.question_delete(question=survey.questions.first())
    assert survey.questions.count() == 2


def test_delete_renumbers_the_remaining_questions(survey, add_question):
    add_question(survey, text="Third")
    services.question_delete(question=survey.questions.first())
    assert [q.position for q in survey.questions.all()] == [1, 2]


def test_move_up_swaps_with_the_previous_question(survey):
    first, second = survey.questions.all()
    services.question_move(question=second, direction="up")
    assert list(survey.questions.all()) == [second, first]


def test_move_down_past_the_end_changes_nothing(survey):
    first, second = survey.questions.all()
    services.question_move(question=second, direction="down")
    assert list(survey.questions.all()) == [first, second]


def test_move_refuses_an_unknown_direction(survey):
    with pytest.raises(ValidationError):
        services.question_move(question=survey.questions.first(), direction="left")


def test_duplicate_makes_a_draft_with_copied_questions_and_no_responses(
    survey, ada, respond
):
    services.survey_publish(survey=survey, user=ada)
    respond(survey)
    copy = services.survey_duplicate(survey=survey, user=ada)
    assert copy.pk != survey.pk
    assert copy.status == Survey.Status.DRAFT
    assert copy.title == "Copy of Student life"
    assert copy.public_token != survey.public_token
    assert not copy.submissions.exists()
    originals = list(survey.questions.all())
    copies = list(copy.questions.all())
    assert [q.text for q in copies] == [q.text for q in originals]
    assert [q.spec for q in copies] == [q.spec for q in originals]
    assert not SpecRevision.objects.filter(question__survey=copy).exists()


def test_close_and_reopen(survey, ada):
    services.survey_publish(survey=survey, user=ada)
    services.survey_close(survey=survey, user=ada)
    closed = Survey.objects.get(pk=survey.pk)
    assert closed.status == Survey.Status.CLOSED
    assert closed.closed_at is not None
    services.survey_reopen(survey=survey, user=ada)
    reopened = Survey.objects.get(pk=survey.pk)
    assert reopened.status == Survey.Status.OPEN
    assert reopened.closed_at is None


def test_closing_a_draft_is_refused(survey, ada):
    with pytest.raises(ValidationError, match="Only an open survey"):
        services.survey_close(survey=survey, user=ada)
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT


def test_publish_is_refused_once_responses_exist(survey, ada, respond):
    services.survey_publish(survey=survey, user=ada)
    respond(survey)
    with pytest.raises(ValidationError, match="frozen"):
        services.survey_publish(survey=survey, user=ada)


def test_republish_before_any_response_overwrites_the_spec_revision(survey, ada):
    services.survey_publish(survey=survey, user=ada)
    question = survey.questions.first()
    Question.objects.filter(pk=question.pk).update(requested_epsilon=0.25)
    services.survey_publish(survey=survey, user=ada)
    revision = question.spec_revisions.get()
    assert revision.revision == 1
    assert revision.spec["epsilon"] == 0.25
    assert Question.objects.get(pk=question.pk).spec == revision.spec
    assert Survey.objects.get(pk=survey.pk).revision == 2


def test_text_only_edit_of_an_open_survey_keeps_its_revision(survey, ada):
    services.survey_publish(survey=survey, user=ada)
    question = survey.questions.first()
    services.question_update(
        question=question, text="Reworded?", privacy=PrivacyConfig("yes_no")
    )
    assert Survey.objects.get(pk=survey.pk).revision == 1


def test_editing_a_draft_keeps_revision_one_and_writes_no_spec_revision(survey):
    question = survey.questions.first()
    services.question_update(
        question=question,
        text=question.text,
        privacy=PrivacyConfig("yes_no", epsilon=2),
    )
    question.refresh_from_db()
    assert question.spec["epsilon"] == 2.0
    assert not question.spec_revisions.exists()
    assert Survey.objects.get(pk=survey.pk).revision == 1


def test_multi_select_limit_above_the_number_of_options_is_refused(
    survey, add_question
):
    with pytest.raises(ValidationError) as caught:
        add_question(
            survey,
            kind="multi_select",
            text="Which apps do you use?",
            options=("A", "B", "C"),
            max_selections=4,
        )
    assert "allowed: 1 to 3" in str(caught.value.message_dict["max_selections"])
    assert survey.questions.count() == 2


def test_multi_select_question_stores_its_limit_and_padded_spec(survey, add_question):
    question = add_question(
        survey,
        kind="multi_select",
        text="Which apps do you use?",
        options=("A", "B", "C", "D", "E", "F"),
        max_selections=2,
        mechanism="padding_sampling",
    )
    assert question.max_selections == 2
    assert question.spec["ell"] == 2
