"""Every sentence on a researcher's page is in the page's language.

Each researcher page is rendered in English and in Spanish or French for the
same survey.  A sentence the two renders share word for word, that reads as
English (several English function words) and that is not the researcher's own
text (titles, questions, answer labels: those are theirs, written once), is an
English sentence built in Python that escaped translation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from surveys.authoring.models import Survey
from surveys.collection import demo
from surveys.invitations import recipient_list
from tests.conftest import module_rows

pytestmark = pytest.mark.django_db

ENGLISH_WORDS = frozenset(
    {
        "the", "and", "of", "is", "are", "was", "with", "your", "this", "that",
        "from", "for", "not", "be", "to", "it", "its", "which", "by", "an",
        "has", "have", "than", "only", "at", "as", "or",
    }
)  # fmt: skip
WORD = re.compile(r"[A-Za-z]+")
SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")
ESCAPED = re.compile(r"\\u([0-9a-fA-F]{4})")


class _Text(HTMLParser):
    """Visible text nodes (no script, style, code or pre), whitespace folded."""

    SKIP = frozenset({"script", "style", "code", "pre", "textarea", "svg"})

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.nodes: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        text = " ".join(data.split())
        if text and not self.depth:
            self.nodes.append(text)


def sentences(html: str) -> set[str]:
    """The page's visible sentences (a translated label beside an English
    sentence in one text node must not hide it)."""
    parser = _Text()
    parser.feed(html)
    found = set()
    for node in parser.nodes:
        node = ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), node)
        found.update(part for part in SENTENCE_END.split(node) if part)
    return found


def reads_as_english(text: str) -> bool:
    words = [w.lower() for w in WORD.findall(text)]
    return len(words) >= 4 and sum(w in ENGLISH_WORDS for w in words) >= 2


def researchers_own(survey) -> list[str]:
    own = [survey.title, survey.description, survey.consent_text]
    for question in survey.questions.all():
        own += [question.text, question.help_text, question.section_title]
        own += [str(label) for label in question.options or ()]
    return [text for text in own if text]


@pytest.fixture(scope="module")
def kept_study(django_db_setup, django_db_blocker) -> Iterator[tuple[int, int]]:
    """The demo survey with 60 respondents and a recipient, made once for the
    module (``module_rows``): the pks of its owner and of the survey."""

    def make() -> tuple[int, int]:
        owner = get_user_model().objects.create_user("ada", password="correct horse 42")
        survey, _ = demo.demo_survey(owner=owner)
        demo.simulate_respondents(survey=survey, count=60)
        recipient_list.recipients_add(survey=survey, emails=["ana@example.org"])
        return owner.pk, survey.pk

    yield from module_rows(django_db_blocker, make)


@pytest.fixture
def study(kept_study):
    """The kept owner and survey read anew, with an empty cache (keys name the
    survey, and a test's own rows are rolled back after it)."""
    owner_pk, survey_pk = kept_study
    cache.clear()
    return get_user_model().objects.get(pk=owner_pk), Survey.objects.get(pk=survey_pk)


def pages(survey) -> dict[str, str]:
    first = survey.questions.filter(is_private=True).first()
    age = survey.questions.get(is_private=False, kind="single_choice")
    hours = survey.questions.filter(is_private=True, kind="numeric").first()
    weights = reverse("analysis:weights", args=[survey.pk])
    return {
        # The weights page with its finished table (the job runs at once).
        "weighted": f"{weights}?weigh=1&margin-{age.pk}=25,25,30,20",
        "bins": reverse("analysis:question_bins", args=[survey.pk, hours.pk]),
        "dashboard": reverse("analysis:dashboard", args=[survey.pk]),
        "results": reverse("analysis:dashboard_live", args=[survey.pk]),
        "privacy": reverse("analysis:privacy", args=[survey.pk]),
        "crosstab": reverse("analysis:crosstab", args=[survey.pk]),
        "builder": reverse("authoring:survey_detail", args=[survey.pk]),
        "question": reverse("authoring:question_edit", args=[survey.pk, first.pk]),
        "mailings": reverse("collection:recipients", args=[survey.pk]),
        "regression": reverse("analysis:regression", args=[survey.pk]),
        "weights": reverse("analysis:weights", args=[survey.pk]),
        "pilot": reverse("analysis:pilot", args=[survey.pk]),
        "languages": reverse("authoring:survey_languages", args=[survey.pk]),
        "audit": reverse("audit_log"),
    }


def untranslated(owner, survey, name: str, language: str) -> list[str]:
    url = pages(survey)[name]
    rendered = {}
    for code in ("en", language):
        client = Client(HTTP_ACCEPT_LANGUAGE=code)
        client.force_login(owner)
        response = client.get(url)
        assert response.status_code == 200, (name, code, response.status_code)
        rendered[code] = sentences(response.content.decode())
    own = researchers_own(survey)
    return sorted(
        text
        for text in rendered["en"] & rendered[language]
        if reads_as_english(text)
        and not any(mine in text or text in mine for mine in own)
    )


@pytest.mark.parametrize("language", ["es", "fr"])
@pytest.mark.parametrize(
    "name",
    [
        "dashboard",
        "results",
        "privacy",
        "crosstab",
        "builder",
        "question",
        "mailings",
        "regression",
        "weights",
        "weighted",
        "bins",
        "pilot",
        "languages",
        "audit",
    ],
)
def test_no_english_sentence_is_left_on_a_researchers_page(study, name, language):
    owner, survey = study
    assert untranslated(owner, survey, name, language) == []
