"""The process-wide cache of compiled mechanisms behind ``compiled_mechanism()``."""

import pytest

import ldp
from surveys.authoring import compiled, services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question

pytestmark = pytest.mark.django_db

WARNER = {"version": ldp.SPEC_VERSION, "mechanism": "warner", "epsilon": 1.0}


@pytest.fixture(autouse=True)
def empty_cache():
    compiled.cache_clear()
    yield
    compiled.cache_clear()


@pytest.fixture
def published(survey, ada):
    return services.survey_publish(survey=survey, user=ada)


def test_same_spec_twice_gives_the_same_compiled_object():
    first = compiled.compiled_mechanism(WARNER)
    assert compiled.compiled_mechanism(dict(WARNER)) is first
    info = compiled.cache_info()
    assert (info.hits, info.misses) == (1, 1)


def test_key_order_does_not_matter():
    reordered = dict(reversed(list(WARNER.items())))
    assert compiled.compiled_mechanism(reordered) is compiled.compiled_mechanism(WARNER)


def test_compiled_mechanism_is_what_ldp_builds():
    mechanism = compiled.compiled_mechanism(WARNER)
    assert mechanism.spec == ldp.build(WARNER).spec
    assert mechanism.epsilon_exact == ldp.build(WARNER).epsilon_exact


def test_changing_a_returned_spec_leaves_the_cached_mechanism_alone():
    spec = compiled.compiled_mechanism(WARNER).spec
    spec["epsilon"] = 5.0
    assert compiled.compiled_mechanism(WARNER).spec["epsilon"] == 1.0


def test_cache_is_bounded():
    assert compiled.cache_info().maxsize == compiled.MECHANISM_CACHE_SIZE
    for step in range(compiled.MECHANISM_CACHE_SIZE + 5):
        compiled.compiled_mechanism(WARNER | {"epsilon": 0.1 + step / 1000})
    assert compiled.cache_info().currsize == compiled.MECHANISM_CACHE_SIZE


def test_invalid_spec_raises_and_is_not_cached():
    with pytest.raises(ValueError, match="epsilon"):
        compiled.compiled_mechanism(WARNER | {"epsilon": -1.0})
    assert compiled.cache_info().currsize == 0


def test_spec_that_is_not_json_gets_ldps_error():
    with pytest.raises(ValueError, match="epsilon"):
        compiled.compiled_mechanism(WARNER | {"epsilon": float("nan")})


def test_questions_with_equal_specs_share_one_compiled_mechanism(published):
    question = published.questions.first()
    again = Question.objects.get(pk=question.pk)
    assert again is not question
    assert again.compiled_mechanism() is question.compiled_mechanism()
    assert question.compiled_mechanism().spec == question.spec


def test_plain_question_has_no_compiled_mechanism(survey, add_question):
    plain = add_question(survey, text="Age", is_private=False, acknowledged=True)
    assert plain.compiled_mechanism() is None


def test_changed_spec_gives_a_new_compiled_mechanism(published):
    question = published.questions.first()
    before = question.compiled_mechanism()
    services.question_update(
        question=question,
        text=question.text,
        privacy=PrivacyConfig("yes_no", epsilon=0.5),
    )
    question.refresh_from_db()
    after = question.compiled_mechanism()
    assert after is not before
    assert after.spec == question.spec
    assert after.epsilon <= 0.5 < before.epsilon


def test_older_spec_revision_gives_the_mechanism_it_was_published_with(
    published, respond
):
    question = published.questions.first()
    before = question.compiled_mechanism()
    respond(published)
    services.question_update(
        question=question,
        text=question.text,
        privacy=PrivacyConfig("yes_no", epsilon=0.5),
    )
    question.refresh_from_db()
    old, new = question.spec_revisions.order_by("revision")
    assert old.compiled_mechanism() is before
    assert new.compiled_mechanism() is question.compiled_mechanism()
    assert old.compiled_mechanism() is not new.compiled_mechanism()
