"""What a screen reader is given: Chromium's accessibility tree of the
respondent's pages and the researcher's results, in English and in French.

NVDA, JAWS, VoiceOver and Orca do not read the markup: they read the roles,
names and descriptions the browser computes and hands to the platform's
accessibility API.  These tests read that same tree (``tests/ax_tree.py``,
through the Chrome DevTools Protocol) and check what a listener would need:
each answer control grouped under its question, the protection wording
reachable as text, the buttons and links named, and on the results page each
chart an image named by its title and described by its desc, each table named by its
caption, each scrolling region focusable and named.  Speech itself is not
checked: no screen reader runs here.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from surveys.authoring.models import Survey
from tests.ax_tree import AXNode, ax_tree
from tests.surveys.analysis.dashboard_support import QUESTIONS, make_survey, simulate
from tests.system.browser.journeys.conftest import DESKTOP, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

LANGUAGES = [("en-US", "en"), ("fr-FR", "fr")]
CONTROLS = ("radio", "checkbox", "textbox", "slider", "spinbutton", "combobox")


def words(language: str) -> dict[str, str]:
    """The site's own words these tests look for, in ``language``."""
    with translation.override(language):
        return {
            "take_part": gettext("Take part"),
            "no_thanks": gettext("No thanks"),
            "before": gettext("Before you start"),
            "send": gettext("Send my answers"),
            "yes": gettext("Yes"),
            "no": gettext("No"),
            "thanks": gettext("Thank you: your answers arrived"),
            "why": gettext("Why this protects you"),
            "withdraw": gettext("Withdraw my answers"),
        }


def test_the_french_words_looked_for_are_translated():
    english, french = words("en"), words("fr")
    assert [k for k in english if english[k] == french[k]] == []


def question_text(text: str, language: str) -> str:
    """A question as the respondent reads it (``offered_in`` translates each
    text as "[code] source")."""
    return text if language == "en" else f"[{language}] {text}"


@pytest.fixture
def study(researcher) -> Survey:
    """One question of each kind (the dashboard tests' survey), offered in
    French, published."""
    return make_survey(researcher, languages=("fr",))


def open_answer_page(browser, live_server, study, locale: str, language: str):
    """The answer page, through the consent page, once the device is ready:
    (context, page, consent page's tree)."""
    context = browser.new_context(viewport=DESKTOP, locale=locale)
    page = context.new_page()
    page.goto(live_server.url + f"/s/{study.public_token}/")
    consent = ax_tree(page)
    page.get_by_role("link", name=words(language)["take_part"]).click()
    expect(page.get_by_role("button", name=words(language)["send"])).to_be_enabled()
    return context, page, consent


def only(nodes: list[AXNode], what: str, tree: AXNode, roles=()) -> AXNode:
    """The one node of ``nodes``; a failure prints what the tree holds."""
    assert len(nodes) == 1, (
        f"expected one {what}, found {len(nodes)}; the tree has:\n"
        + tree.describe(roles)
    )
    return nodes[0]


@pytest.mark.parametrize(("locale", "language"), LANGUAGES)
def test_every_answer_control_is_named_inside_a_group_named_by_its_question(
    live_server, browser, study, locale, language
):
    context, page, _ = open_answer_page(browser, live_server, study, locale, language)
    tree = ax_tree(page)
    grouped = 0
    for number, (text, config) in enumerate(QUESTIONS, start=1):
        wanted = question_text(text, language)
        group = only(
            [g for g in tree.find_all("group") if g.name.endswith(wanted)],
            f"group named {wanted!r}",
            tree,
            ("group", *CONTROLS),
        )
        with translation.override(language):
            legend = gettext("Question %(number)s.") % {"number": number}
        assert group.name == f"{legend} {wanted}"
        controls = [n for n in group.walk() if n.role in CONTROLS]
        assert controls, f"no control in {group.name!r}:\n{group.describe()}"
        unnamed = [n.role for n in controls if not n.name]
        assert unnamed == [], f"unnamed controls in {group.name!r}:\n{group.describe()}"
        grouped += len(controls)
        if config.kind == "yes_no":
            radios = [n.name for n in controls if n.role == "radio"]
            assert sorted(radios) == sorted(
                [words(language)["yes"], words(language)["no"]]
            ), group.describe(CONTROLS)
        elif config.kind in ("single_choice", "ordinal"):
            radios = [n.name for n in controls if n.role == "radio"]
            assert radios == [question_text(o, language) for o in config.options]
        elif config.kind == "multi_select":
            boxes = [n.name for n in controls if n.role == "checkbox"]
            assert boxes == [question_text(o, language) for o in config.options]
    # No answer control outside a question's group (the language picker is the
    # site's own, in the footer).
    main = only(tree.find_all("main"), "main landmark", tree)
    in_main = [n for n in main.walk() if n.role in CONTROLS]
    assert len(in_main) == grouped, main.describe(("group", *CONTROLS))
    context.close()


@pytest.mark.parametrize(("locale", "language"), LANGUAGES)
def test_each_protected_questions_wording_and_epsilon_are_readable_text(
    live_server, browser, study, locale, language
):
    context, page, _ = open_answer_page(browser, live_server, study, locale, language)
    # The details under each question ("Details"), opened as a listener would.
    for summary in page.locator("fieldset details > summary").all():
        summary.click()
    tree = ax_tree(page)
    for text, config in QUESTIONS:
        wanted = question_text(text, language)
        (group,) = [g for g in tree.find_all("group") if g.name.endswith(wanted)]
        said = group.text()
        if config.is_private:
            # The device's summary ("Strong protection. Your device reports
            # ...") and, once the details are open, its ε.
            assert re.search(r"\bprotection\b", said, re.IGNORECASE), said
            assert re.search(r"ε\s*=\s*\d", said), said
        else:
            assert "ε" not in said, said
    # The whole survey's protection, above the questions.
    (main,) = tree.find_all("main")
    overall = main.text().split(question_text(QUESTIONS[0][0], language))[0]
    assert re.search(r"\bprotection\b", overall, re.IGNORECASE), overall
    context.close()


@pytest.mark.parametrize(("locale", "language"), LANGUAGES)
def test_the_consent_page_and_send_button_are_named_in_the_language(
    live_server, browser, study, locale, language
):
    said = words(language)
    context, page, consent = open_answer_page(
        browser, live_server, study, locale, language
    )
    title = question_text("Student life", language)
    assert ("heading", title) in consent.pairs(), consent.describe()
    only(consent.find_all("region", said["before"]), "consent region", consent)
    links = {name for role, name in consent.pairs() if role == "link"}
    assert {said["take_part"], said["no_thanks"]} <= links, consent.describe(("link",))
    answer = ax_tree(page)
    send = only(answer.find_all("button", said["send"]), "send button", answer)
    assert send.name == said["send"]
    assert send.focusable
    context.close()


@pytest.mark.parametrize(("locale", "language"), LANGUAGES)
def test_the_receipt_reads_its_heading_sections_and_each_answer_sent(
    live_server, browser, study, locale, language
):
    said = words(language)
    context, page, _ = open_answer_page(browser, live_server, study, locale, language)
    for text, config in QUESTIONS:
        group = page.get_by_role("group", name=question_text(text, language))
        if config.kind == "numeric":
            group.get_by_role("textbox").fill("3")
        elif config.kind == "multi_select":
            group.get_by_role("checkbox").first.check()
        else:
            group.get_by_role("radio").first.check()
    page.get_by_role("button", name=said["send"]).click()
    page.wait_for_url("**/s/receipt/**")
    tree = ax_tree(page)
    headings = [name for role, name in tree.pairs() if role == "heading"]
    assert headings[:1] == [said["thanks"]], tree.describe(("heading",))
    assert said["why"] in headings, tree.describe(("heading",))
    only(tree.find_all("link", said["withdraw"]), "withdraw link", tree)
    receipt = only(
        [
            node
            for node in tree.find_all("list")
            if len(node.find_all("listitem")) == len(QUESTIONS)
        ],
        "list of the answers sent",
        tree,
        ("list", "listitem"),
    )
    items = receipt.find_all("listitem")
    for item in items:
        assert len(item.text()) > 20, item.describe()
    # A yes/no answer is read in the page's language.
    yes_no = {said["yes"], said["no"]}
    first = items[0].text()
    assert any(word in first for word in yes_no), first
    context.close()


# --- The researcher's results -------------------------------------------------


@pytest.fixture
def results_page(live_server, browser, study):
    """Opens the results of ``study`` (80 simulated respondents) in ``language``."""
    simulate(study, 80)

    def open_in(language: str):
        context = browser.new_context(viewport=DESKTOP, locale="en-US")
        page = context.new_page()
        sign_in(page, live_server.url)
        context.add_cookies(
            [
                {
                    "name": settings.LANGUAGE_COOKIE_NAME,
                    "value": language,
                    "url": live_server.url,
                }
            ]
        )
        page.goto(live_server.url + reverse("analysis:dashboard", args=[study.pk]))
        assert page.locator("html").get_attribute("lang") == language
        return page

    return open_in


def squash(text: str) -> str:
    """Whitespace as the accessibility tree writes it: runs of ASCII white
    space made one space (no-break spaces stay)."""
    return re.sub(r"[ \t\n\r\f]+", " ", text).strip()


CHART_TEXTS = """() => Array.from(document.querySelectorAll("svg.chart")).map(
  (svg) => [svg.querySelector("title").textContent,
            svg.querySelector("desc").textContent])"""
CAPTIONS = """() => Array.from(document.querySelectorAll("main table")).map(
  (t) => t.caption ? t.caption.textContent : null)"""
SCROLLERS = """() => document.querySelectorAll(
  ".table-scroll[tabindex='0'], .chart-figure[tabindex='0']").length"""


@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_chart_is_an_image_named_by_its_title_and_described_by_its_desc(
    results_page, language
):
    page = results_page(language)
    tree = ax_tree(page)
    charts = page.evaluate(CHART_TEXTS)
    images = tree.find_all("image")
    # One chart per protected question (the plain one has a table only).
    assert len(charts) == len([c for _, c in QUESTIONS if c.is_private]), charts
    assert len(images) == len(charts), tree.describe(("image", "figure"))
    for (title, desc), image in zip(charts, images, strict=True):
        assert image.name == squash(title), tree.describe(("image",))
        assert image.description == squash(desc)
    with translation.override(language):
        first = gettext("Estimated shares for “%(text)s”") % {"text": QUESTIONS[0][0]}
    assert images[0].name.startswith(first), images[0].name


@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_results_table_is_named_by_its_caption(results_page, language):
    page = results_page(language)
    tree = ax_tree(page)
    captions = page.evaluate(CAPTIONS)
    tables = tree.find_all("table")
    assert None not in captions
    assert len(tables) == len(captions) >= len(QUESTIONS)
    assert [t.name for t in tables] == [squash(c) for c in captions], tree.describe(
        ("table",)
    )


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_scrolling_region_takes_focus_and_has_a_name(results_page, language):
    page = results_page(language)
    tree = ax_tree(page)
    (main,) = tree.find_all("main")
    scrollers = [
        node
        for node in main.walk()
        if node.focusable and node.role in ("region", "figure")
    ]
    assert len(scrollers) == page.evaluate(SCROLLERS) > len(QUESTIONS)
    unnamed = [node.role for node in scrollers if not node.name]
    assert unnamed == [], main.describe(("region", "figure"))
    # A chart's figure is named by the chart's title, then its caption.
    figures = [node.name for node in scrollers if node.role == "figure"]
    titles = [squash(title) for title, _ in page.evaluate(CHART_TEXTS)]
    assert len(figures) == len(titles)
    for name, title in zip(figures, titles, strict=True):
        assert name.startswith(title) and len(name) > len(title), name
