"""The analysis pages in Spanish and French: translated words, plural forms and
numbers written the reader's way, while ids, input values, chart coordinates
and exports stay the same in every language (real PostgreSQL and Redis)."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation

from ldp.estimators import binned as ldp_binned
from ldp.estimators.channel import result as channel_result
from ldp.estimators.frequency import formulas as frequency_formulas
from ldp.estimators.mean import MeanEstimate
from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob, ResultSnapshot
from surveys.analysis.pages import dashboard, freshness, numbers
from surveys.analysis.reading import latest_results
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import DOCUMENT_FORMAT
from surveys.analysis.tallies import snapshots
from surveys.analysis.wording import english
from tests.conftest import redis_cache
from tests.surveys.analysis.dashboard_support import make_survey

pytestmark = pytest.mark.django_db

# The module's kept survey (tests/surveys/analysis/conftest.py): built and
# answered once, each test reading it inside its own rolled-back transaction.
ANSWERED_RESPONDENTS = 40

TEMPLATES = Path(settings.BASE_DIR) / "templates" / "analysis"
# Page text: anything between tags that holds a letter and is not a variable.
VISIBLE_TEXT = re.compile(r">\s*([^<>{}]*[A-Za-z]{3,}[^<>{}]*)<")
ESTIMATE = re.compile(r'data-field="estimate">([^<]+)<')
N_FIELD = re.compile(r'data-field="n">([^<]+)<')
IDS = re.compile(r'\sid="([^"]+)"')
# Every number that places something in a chart.
COORDINATES = re.compile(r'\s(?:x|y|x1|x2|y1|y2|width|height|points|viewBox)="([^"]*)"')


@pytest.fixture(autouse=True)
def shared(settings, redis_url):
    settings.CACHES = redis_cache(redis_url, prefix="analysis-translations")


@pytest.fixture
def survey(answered):
    """Ada's answered survey of every kind, with 40 respondents."""
    return answered


def _reader(language: str, *, cookie: bool = False) -> Client:
    """A signed-in owner whose browser asks for ``language`` (header or cookie)."""
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    if cookie:
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    client.force_login(get_user_model().objects.get(username="ada"))
    return client


def _get(client: Client, name: str, *args, query: str = "") -> str:
    response = client.get(reverse(name, args=args) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_every_analysis_template_with_visible_text_loads_i18n():
    missing = [
        path.name
        for path in sorted(TEMPLATES.glob("*.html"))
        if VISIBLE_TEXT.search(path.read_text(encoding="utf-8"))
        and "{% load i18n" not in path.read_text(encoding="utf-8")
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("language", "cookie", "heading", "nav", "freshness"),
    [
        (
            "es",
            False,
            "Resultados: Student life",
            "Tablas cruzadas y desgloses",
            "Calculados hace",
        ),
        (
            "fr",
            False,
            "Résultats\u00a0: Student life",
            "Tableaux croisés et ventilations",
            "Calculés il y a",
        ),
        (
            "es",
            True,
            "Resultados: Student life",
            "Tablas cruzadas y desgloses",
            "Calculados hace",
        ),
        (
            "fr",
            True,
            "Résultats\u00a0: Student life",
            "Tableaux croisés et ventilations",
            "Calculés il y a",
        ),
    ],
)
def test_the_dashboard_reads_in_the_readers_language(
    survey, language, cookie, heading, nav, freshness
):
    page = _get(_reader(language, cookie=cookie), "analysis:dashboard", survey.pk)
    assert f"<h1>{heading}</h1>" in page
    assert nav in page
    assert freshness in page
    assert "Every protected answer was randomized" not in page


@pytest.mark.parametrize("language", ["es", "fr"])
def test_dashboard_shares_have_a_decimal_comma_and_the_same_digits(survey, language):
    english = _get(_reader("en"), "analysis:dashboard", survey.pk)
    other = _get(_reader(language), "analysis:dashboard", survey.pk)
    shares = ESTIMATE.findall(english)
    assert shares and all(re.fullmatch(r"-?\d+\.\d%", s) for s in shares)
    translated = ESTIMATE.findall(other)
    assert [s.replace(",", ".").replace("\u00a0", "") for s in translated] == shares
    assert all("," in s and "." not in s for s in translated)


@pytest.mark.parametrize(
    ("language", "yes", "no"), [("es", "Sí", "No"), ("fr", "Oui", "Non")]
)
def test_yes_no_answers_on_the_dashboard_are_in_the_readers_language(
    survey, language, yes, no
):
    page = html.unescape(_get(_reader(language), "analysis:dashboard", survey.pk))
    rows = re.findall(r'<th scope="row"[^>]*>\s*([^<]+?)\s*</th>', page)
    assert yes in rows and no in rows, rows
    assert "Yes" not in rows, rows
    # The chart's bars are named the same way.
    assert re.search(rf"<title>{yes}\W", page), "no chart bar named " + yes


@pytest.mark.parametrize(
    ("language", "exact"),
    [("es", "intervalo del 95\u00a0% (exacto)"), ("fr", "(exact)")],
)
def test_interval_methods_on_the_dashboard_are_in_the_readers_language(
    survey, language, exact
):
    english = html.unescape(_get(_reader("en"), "analysis:dashboard", survey.pk))
    page = html.unescape(_get(_reader(language), "analysis:dashboard", survey.pk))
    methods = set(re.findall(r"95% interval \(([^)]+)\)", english))
    assert methods and methods <= set(dashboard.METHOD_WORDS), methods
    with translation.override(language):
        for method in methods:
            assert f"({dashboard.method_shown(method)})" in page
    assert "exact" in methods  # a protected yes/no question's share
    assert exact in page.lower()


def test_every_method_an_estimator_names_has_words_for_the_page():
    named = {*frequency_formulas.METHODS, *MeanEstimate.interval_methods}
    named |= {*channel_result.INTERVAL_METHODS, ldp_binned.METHOD}
    assert named <= set(dashboard.METHOD_WORDS)


@pytest.mark.parametrize("language", ["es", "fr"])
def test_dashboard_ids_counts_and_chart_coordinates_do_not_change_with_the_language(
    survey, language
):
    english = _get(_reader("en"), "analysis:dashboard", survey.pk)
    other = _get(_reader(language), "analysis:dashboard", survey.pk)
    assert IDS.findall(other) == IDS.findall(english)
    assert N_FIELD.findall(other) == N_FIELD.findall(english)
    assert COORDINATES.findall(english)
    assert COORDINATES.findall(other) == COORDINATES.findall(english)
    live = re.compile(r'data-live-url="([^"]+)" data-poll-seconds="(\d+)"')
    assert live.findall(other) == live.findall(english)


@pytest.mark.parametrize(
    "name", ["analysis:export_estimates_csv", "analysis:export_estimates_json"]
)
def test_an_estimates_export_is_byte_identical_whatever_the_language(survey, name):
    bodies = {
        language: _reader(language).get(reverse(name, args=[survey.pk])).content
        for language in ("en", "es", "fr")
    }
    assert bodies["en"]
    assert bodies["es"] == bodies["en"]
    assert bodies["fr"] == bodies["en"]


def test_french_and_english_readers_never_get_each_others_page(survey):
    english, french = _reader("en"), _reader("fr")
    for _ in range(2):
        en_page = _get(english, "analysis:dashboard", survey.pk)
        fr_page = _get(french, "analysis:dashboard", survey.pk)
        assert "Results: Student life" in en_page
        assert "Résultats" not in en_page and "Consistante" not in en_page
        assert "Résultats\u00a0: Student life" in fr_page
        assert "Results: Student life" not in fr_page
        assert "Respondents</dt>" in en_page and "Répondants</dt>" in fr_page
        assert "Répondants" not in en_page and "Respondents</dt>" not in fr_page


def test_french_and_english_readers_never_get_each_others_results_fragment(survey):
    english, french = _reader("en"), _reader("fr")
    url = reverse("analysis:dashboard_live", args=[survey.pk])
    for _ in range(2):  # the second round is served from the cached fragments
        en_live = english.get(url).json()
        fr_live = french.get(url).json()
        assert "Standard error" in en_live["html"]
        assert "Erreur type" not in en_live["html"]
        assert "Erreur type" in fr_live["html"]
        assert "Standard error" not in fr_live["html"]
        assert fr_live["freshness"].startswith("calculés il y a")
        assert en_live["freshness"].startswith("computed")
        assert fr_live["responses"] == en_live["responses"]


def test_freshness_uses_the_languages_plural_forms(survey):
    results = latest_results(survey)
    three_days = results.computed_at + timedelta(days=3, hours=1)
    with translation.override("es"):
        words = freshness.freshness(results, now=three_days)
        assert words == "calculados hace 3 días a partir de 40 respuestas"
    with translation.override("fr"):
        words = freshness.freshness(results, now=three_days)
        assert words == "calculés il y a 3 jours à partir de 40 réponses"


def test_numbers_on_the_dashboard_follow_the_language():
    with translation.override("fr"):
        assert numbers.percent(0.1234) == "12,3\u00a0%"
        assert numbers.points(0.088) == "8,8 points de pourcentage"
        assert numbers.grouped(4812) == "4\xa0812"
    with translation.override("es"):
        assert numbers.percent(0.1234) == "12,3\u00a0%"
        assert numbers.number(2.5) == "2,500"
    with translation.override("en"):
        assert numbers.percent(0.1234) == "12.3%"
        assert numbers.grouped(4812) == "4,812"


@pytest.mark.parametrize(
    ("name", "query", "words", "value"),
    [
        (
            "analysis:privacy",
            "?k=1000",
            "Confidentialité de cette enquête",
            'name="k" value="1000"',
        ),
        ("analysis:pilot", "", "Pilote simulé", 'name="n" id="id_n" value="500"'),
        (
            "analysis:crosstab",
            "",
            "Deux questions protégées ensemble",
            'name="a" id="id_a"',
        ),
        (
            "analysis:regression",
            "",
            "Régression avec une variable expliquée randomisée",
            'id="id_outcome"',
        ),
        ("analysis:weights", "", "Marges de la population", 'id="weights-form"'),
    ],
)
def test_other_analysis_pages_read_in_french_with_their_inputs_unchanged(
    survey, name, query, words, value
):
    page = _get(_reader("fr"), name, survey.pk, query=query)
    assert words in page
    assert value in page


def test_a_pilot_number_input_round_trips_in_spanish(survey):
    reader = _reader("es")
    page = _get(reader, "analysis:pilot", survey.pk, query="?n=1200")
    assert 'name="n" id="id_n" value="1200"' in page
    assert "Resultados con n = 1200 encuestados simulados" in page
    page = _get(reader, "analysis:pilot", survey.pk, query="?n=1")
    assert "Resultados con n = 1 encuestado simulado" in page


def test_the_api_tokens_page_reads_in_spanish_and_french(ada):
    spanish = _get(_reader("es"), "analysis:api_tokens")
    assert "<h1>Tokens de API</h1>" in spanish
    assert "Nombre (para qué sirve el token)" in spanish
    french = _get(_reader("fr"), "analysis:api_tokens")
    assert "<h1>Jetons d’API</h1>" in french
    assert "Créer un jeton" in french
    assert 'name="name"' in french and 'name="days"' in french


def test_a_job_status_is_worded_in_the_readers_language(survey):
    client = _reader("fr")
    questions = list(survey.questions.filter(is_private=True)[:2])
    page = _get(
        client,
        "analysis:crosstab",
        survey.pk,
        query=f"?a={questions[0].pk}&b={questions[1].pk}",
    )
    assert "Répondants ayant répondu aux deux" in page
    job = AnalysisJob.objects.get(survey=survey, kind=AnalysisJob.Kind.CROSSTAB)
    status = client.get(reverse("analysis:job_status", args=[survey.pk, job.pk]))
    assert status.json()["status"] == "done"  # the code stays English
    assert status.json()["status_label"] == "terminé"


def test_a_job_run_for_a_french_reader_is_stored_for_every_reader(survey):
    questions = list(survey.questions.filter(is_private=True)[:2])
    query = f"?a={questions[0].pk}&b={questions[1].pk}"
    _get(_reader("fr"), "analysis:crosstab", survey.pk, query=query)
    english = _get(_reader("en"), "analysis:crosstab", survey.pk, query=query)
    cells = re.findall(r'data-field="cell">([^<]+)<', english)
    assert cells and all(re.fullmatch(r"-?\d+\.\d%", cell) for cell in cells)


@pytest.fixture
def unanswered(ada):
    """A published survey no one has answered: every question warns."""
    return make_survey(ada, title="Nobody yet")


def test_snapshot_warnings_and_mechanism_names_follow_the_readers_language(
    unanswered,
):
    french = html.unescape(_get(_reader("fr"), "analysis:dashboard", unanswered.pk))
    assert "Pas encore de rapports." in french
    assert "No reports yet." not in french
    assert "Réponse randomisée de Warner" in french
    assert "Réponse randomisée généralisée" in french
    spanish = html.unescape(_get(_reader("es"), "analysis:dashboard", unanswered.pk))
    assert "Aún no hay informes." in spanish
    assert "Respuesta aleatorizada de Warner" in spanish


def test_snapshot_warnings_and_mechanism_names_stay_english_in_english_and_exports(
    unanswered,
):
    english = html.unescape(_get(_reader("en"), "analysis:dashboard", unanswered.pk))
    assert "No reports yet." in english
    assert "Warner randomized response" in english
    exported = (
        _reader("fr")
        .get(reverse("analysis:export_estimates_csv", args=[unanswered.pk]))
        .content.decode()
    )
    assert "No reports yet." in exported and "Pas encore" not in exported
    assert "Warner randomized response" in exported
    document = (
        _reader("fr")
        .get(reverse("analysis:export_estimates_json", args=[unanswered.pk]))
        .json()
    )
    question = document["questions"][0]
    assert question["warnings"] == ["No reports yet."]
    assert "design" not in question
    assert list(question)[-4:] == [
        "distribution",
        "consistent_method",
        "estimate_kind",
        "item_counts",
    ]


def test_an_older_snapshot_is_shown_translated_and_recomputed(unanswered):
    _get(_reader("en"), "analysis:dashboard", unanswered.pk)  # stores the snapshot
    snapshot = ResultSnapshot.objects.get(survey=unanswered)
    # As the previous release stored it: English sentences, no design.
    for question in snapshot.document["questions"]:
        question["warnings"] = [english(w) for w in question["warnings"]]
        question.pop("design")
    snapshot.document["format"] = 5
    snapshot.save()
    state = selectors.latest_results(survey=unanswered)
    assert state.stale  # a worker stores it again in this release's format
    with translation.override("fr"):
        card = dashboard.question_card(state.results.questions[0])
    assert card.warnings == ["Pas encore de rapports."]
    snapshots.snapshot_refresh(survey_id=unanswered.pk)
    stored = ResultSnapshot.objects.get(survey=unanswered).document
    assert stored["format"] == DOCUMENT_FORMAT
    assert stored["questions"][0]["warnings"] == [{"code": "no-reports"}]


def _by_mechanism(survey, name: str):
    return survey.questions.get(spec__mechanism=name)


@pytest.mark.parametrize(
    ("language", "reason"),
    [
        ("fr", "Les tableaux croisés demandent un mécanisme à canal fini"),
        ("es", "Las tablas cruzadas necesitan un mecanismo de canal finito"),
        ("en", "Cross-tabs need a finite-channel mechanism"),
    ],
)
def test_a_failed_jobs_reason_is_shown_in_the_readers_language(
    survey, language, reason
):
    a, b = _by_mechanism(survey, "grr"), _by_mechanism(survey, "oue")
    page = html.unescape(
        _get(
            _reader(language),
            "analysis:crosstab",
            survey.pk,
            query=f"?a={a.pk}&b={b.pk}",
        )
    )
    assert reason in page
    job = AnalysisJob.objects.get(survey=survey, kind=AnalysisJob.Kind.CROSSTAB)
    assert job.status == AnalysisJob.Status.FAILED
    # Stored once for every reader: English text, and the note it is worded from.
    assert job.error.startswith("Cross-tabs need a finite-channel mechanism")
    assert job.failure["code"] == "refused"


def test_an_unexpected_job_failure_shows_a_generic_message_never_the_error(survey):
    question = _by_mechanism(survey, "grr")
    job = AnalysisJob.objects.create(  # params a breakdown cannot read
        survey=survey,
        kind=AnalysisJob.Kind.BREAKDOWN,
        params={"a": question.pk, "b": question.pk},
        watermark=0,
    )
    jobs.job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.FAILED
    assert job.error == "The analysis failed unexpectedly; ask for it again."
    with translation.override("fr"):
        assert job.failure_shown == (
            "L’analyse a échoué de manière inattendue\u00a0; redemandez-la."
        )
    assert "KeyError" not in job.error and "Traceback" not in job.error


def test_a_pilot_refusal_is_in_the_readers_language_with_its_numbers(survey):
    reader = _reader("fr")
    page = _get(reader, "analysis:pilot", survey.pk, query="?n=0")
    shown = html.unescape(page).replace("\u00a0", " ")
    assert "n vaut « 0 » ; accepté : un nombre entier de 1 à 100 000." in shown
    private = survey.questions.filter(is_private=True).first()
    page = _get(
        reader, "analysis:pilot", survey.pk, query=f"?n=10&share-{private.pk}=a,b"
    )
    shown = html.unescape(page).replace("\u00a0", " ")
    assert "« a,b » n’est pas une liste de pourcentages" in shown
    assert not AnalysisJob.objects.filter(kind=AnalysisJob.Kind.PILOT).exists()
