"""The per-respondent table (surveys/analysis/exports/datasets.py) and its files.

Round trips: every file is written, read back (csv, json, pyreadstat) and
compared with what the database holds; the R script's text is parsed and its
formulas evaluated here on the same CSV, which must give the dashboard's
estimates.
"""

from __future__ import annotations

import csv
import io
import json
import re
import uuid
from collections.abc import Iterator
from decimal import Decimal

import numpy as np
import pyreadstat
import pytest
from django.contrib.auth import get_user_model
from django.http import StreamingHttpResponse
from django.urls import reverse

import ldp
from surveys.analysis.exports import (
    dataset_columns,
    dataset_estimates,
    dataset_r,
    datasets,
)
from surveys.analysis.exports.csv_cells import neutralise
from surveys.analysis.reading import latest_results
from surveys.analysis.tallies import services as tally_services
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question, Survey
from surveys.authoring.selectors import question_privacy_config
from surveys.collection.models import PlainAnswer, Report, Submission
from surveys.collection.responses import ResponseIn
from surveys.collection.services import submissions_ingest_bulk
from tests.conftest import module_rows
from tests.surveys.analysis import dashboard_support
from tests.surveys.analysis.conftest import (
    FAMILIES,
    PASSWORD,
    make_survey,
    release,
    submit_bulk,
)
from tests.surveys.stored_reports import payloads

pytestmark = pytest.mark.django_db
COUNT = 120


def _make_surveys() -> dict[str, int]:
    """The module's two surveys and their owners, made once (``module_rows``)."""
    users = get_user_model().objects
    grace = users.create_user("grace", password="correct horse 42")
    ada = users.create_user("ada", password=PASSWORD)
    with pytest.MonkeyPatch.context() as patch:  # tests/surveys/conftest.py
        patch.setattr(tally_services, "LOCK_TIMEOUT_MS", 10_000)
        families = make_survey(grace)
        submit_bulk(families, COUNT)
        release(families)
        student_life = dashboard_support.make_survey(ada)
        dashboard_support.simulate(student_life, 250)
    return {
        "researcher": grace.pk,
        "ada": ada.pk,
        "families": families.pk,
        "student_life": student_life.pk,
    }


@pytest.fixture(scope="module")
def made(django_db_setup, django_db_blocker) -> Iterator[dict[str, int]]:
    yield from module_rows(django_db_blocker, _make_surveys)


@pytest.fixture
def researcher(made, django_user_model):
    return django_user_model.objects.get(pk=made["researcher"])


@pytest.fixture
def ada(made, django_user_model):
    return django_user_model.objects.get(pk=made["ada"])


@pytest.fixture
def families(made):
    """120 submissions to one question of every family, tallied."""
    return Survey.objects.get(pk=made["families"])


@pytest.fixture
def student_life(made):
    """250 simulated respondents to the dashboard's survey, tallied."""
    return Survey.objects.get(pk=made["student_life"])


def _bytes(writer, survey) -> bytes:
    buffer = io.BytesIO()
    writer(survey, buffer)
    return buffer.getvalue()


def _csv_rows(survey) -> list[dict[str, str]]:
    text = _bytes(datasets.write_wide_csv, survey).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def _codebook(survey) -> dict[str, dict]:
    document = json.loads(_bytes(datasets.write_codebook_json, survey))
    return {v["name"]: v for v in document["variables"]}


def _payloads(survey) -> dict[tuple[str, int], object]:
    return {
        (public_id, position): payload
        for public_id, position, payload in payloads(
            Report.objects.filter(question__survey=survey),
            "submission__public_id",
            "question__position",
        )
    }


# Independently of the mechanisms' own column declarations: which columns hold
# one answer index (a factor), one bit per option, or a grid value.
INDEX_MECHANISMS = {"grr", "forced_response", "warner", "ordinal", "padding_sampling"}
BIT_MECHANISMS = {"sue", "oue", "multi_rr"}
KERNEL_MECHANISMS = {"geometric", "gaussian"}


def _decode(mechanism: str, row: dict[str, str], base: str, book: dict, spec: dict):
    """The stored payload, rebuilt from one CSV row's cells."""
    if mechanism in INDEX_MECHANISMS:
        by_label = {
            label: int(code) for code, label in book[base]["value_labels"].items()
        }
        return by_label[row[base]]
    if mechanism in BIT_MECHANISMS:
        names = sorted(
            (n for n in row if n.startswith(f"{base}_opt")),
            key=lambda n: int(n.rsplit("opt", 1)[1]),
        )
        return [int(row[n]) for n in names]
    if mechanism == "olh":
        return [int(row[f"{base}_{part}"]) for part in "aby"]
    if mechanism == "hadamard":
        return [int(row[f"{base}_j"]), int(row[f"{base}_bit"])]
    if mechanism in KERNEL_MECHANISMS:
        level = (Decimal(row[base]) - Decimal(spec["low"])) / Decimal(spec["step"])
        assert level == level.to_integral_value()
        return int(level)
    return int(row[base])  # duchi, piecewise: the report itself


def test_wide_columns_of_every_family_decode_to_the_stored_payloads(families):
    book = _codebook(families)
    payloads = _payloads(families)
    rows = _csv_rows(families)
    assert len(rows) == COUNT
    for family, _, _ in FAMILIES:
        question = families.questions.get(text=f"Question under {family}")
        base = f"q{question.position}"
        for row in rows:
            stored = payloads[(row[datasets.ID_COLUMN], question.position)]
            decoded = _decode(family, row, base, book, question.spec)
            assert decoded == stored, (family, row[datasets.ID_COLUMN])


def test_wide_csv_has_one_row_per_submission_keyed_by_its_public_id(families):
    rows = _csv_rows(families)
    public_ids = set(
        Submission.objects.filter(survey=families).values_list("public_id", flat=True)
    )
    assert [r[datasets.ID_COLUMN] for r in rows] == sorted(public_ids)
    header = list(rows[0])
    assert not any("time" in name or "date" in name for name in header)
    internal = {str(pk) for pk in Submission.objects.values_list("pk", flat=True)}
    assert not internal & {r[datasets.ID_COLUMN] for r in rows}


def test_unprotected_answers_are_written_with_their_labels(student_life):
    question = student_life.questions.get(is_private=False)
    rows = _csv_rows(student_life)
    stored = dict(
        PlainAnswer.objects.filter(question=question).values_list(
            "submission__public_id", "value"
        )
    )
    options = list(question.options)
    for row in rows:
        assert row[f"q{question.position}"] == options[stored[row["respondent"]]]


def test_plain_multi_select_and_numeric_answers_become_indicators_and_numbers(
    ada, tmp_path
):
    survey = authoring.survey_create(owner=ada, title="Plain", epsilon_budget=1.0)
    for config in (
        PrivacyConfig(kind="multi_select", is_private=False, options=("A", "B", "C")),
        PrivacyConfig(
            kind="numeric",
            is_private=False,
            low=Decimal(0),
            high=Decimal(10),
            step=Decimal("0.5"),
        ),
    ):
        authoring.question_create(
            survey=survey, text="Plain", privacy=config, not_private_acknowledged=True
        )
    survey = authoring.survey_publish(survey=survey, user=ada)
    first, second = survey.questions.all()
    submissions_ingest_bulk(
        survey=survey,
        responses=[
            ResponseIn(
                idempotency_key=uuid.uuid4(),
                survey_revision=survey.revision,
                reports={},
                plain_answers={first.pk: [0, 2], second.pk: "7.5"},
            )
        ],
    )
    release(survey)  # exports show released submissions only
    (row,) = _csv_rows(survey)
    assert [row[f"q{first.position}_opt{i}"] for i in (1, 2, 3)] == ["1", "0", "1"]
    assert row[f"q{second.position}"] == "7.5"
    frame, meta = pyreadstat.read_sav(
        _to_path(tmp_path, _bytes(datasets.write_sav, survey), ".sav")
    )
    assert meta.variable_value_labels[f"q{first.position}_opt1"] == {
        0.0: "not selected",
        1.0: "selected",
    }
    assert frame[f"q{second.position}"].tolist() == [7.5]


def _to_path(folder, data: bytes, suffix: str) -> str:
    path = folder / f"{uuid.uuid4().hex}{suffix}"
    path.write_bytes(data)
    return str(path)


def test_bom_option_starts_the_csv_with_a_utf8_byte_order_mark(student_life):
    plain = _bytes(datasets.write_wide_csv, student_life)
    marked = _bytes(datasets.write_wide_csv_bom, student_life)
    assert not plain.startswith(b"\xef\xbb\xbf")
    assert marked == b"\xef\xbb\xbf" + plain
    assert marked.decode("utf-8-sig") == plain.decode("utf-8")


def test_text_cells_a_spreadsheet_would_run_are_neutralised(student_life):
    rows = _csv_rows(student_life)
    grr = student_life.questions.get(text__startswith="=HYPERLINK")
    cells = {row[f"q{grr.position}"] for row in rows}
    assert "'-Very high" in cells
    assert not any(c.startswith(("=", "-", "+", "@")) for c in cells)
    codebook = _bytes(datasets.write_codebook_csv, student_life).decode()
    questions = {r["question"] for r in csv.DictReader(io.StringIO(codebook))}
    assert f"'{grr.text}" in questions


def test_codebook_lists_every_column_with_epsilon_and_how_to_debias(families):
    header = list(_csv_rows(families)[0])
    text = _bytes(datasets.write_codebook_csv, families).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    # The estimate columns are in the SPSS and Stata files only.
    assert [r["name"] for r in rows if r["kind"] != "estimate"] == header
    assert list(rows[0]) == datasets.CODEBOOK_COLUMNS
    for row in rows:
        if row["protected"] == "yes":
            exact = Decimal(row["epsilon_exact"])
            assert row["epsilon"] == f"{float(exact):.3g}"
            assert Decimal(row["epsilon"]) != exact  # rounded, the exact kept apart
            assert "not the respondent's answer" in row["label"]
            assert row["debias"]
    by_name = {r["name"]: r for r in rows}
    warner = families.questions.get(text="Question under warner")
    assert by_name[f"q{warner.position}"]["value_labels"] == "0=No; 1=Yes"
    assert "p = " in by_name[f"q{warner.position}"]["debias"]


def test_codebook_json_and_csv_describe_the_same_variables(families):
    book = _codebook(families)
    text = _bytes(datasets.write_codebook_csv, families).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(book) == [r["name"] for r in rows]
    for row in rows:
        assert book[row["name"]]["epsilon_exact"] == row["epsilon_exact"]


def _without_estimates(survey, items: list, meta=None) -> list:
    """``items`` (a file's column names, or with ``meta`` its labels) less
    the estimate columns the released results add (``dataset_estimates``)."""
    found = dataset_columns.blocks(survey)
    extra = {
        v.name
        for e in dataset_estimates.estimate_columns(survey, found)
        for v in e.variables
    }
    names = meta.column_names if meta is not None else items
    return [item for item, name in zip(items, names, strict=True) if name not in extra]


def test_sav_round_trip_keeps_values_variable_and_value_labels(families, tmp_path):
    path = _to_path(tmp_path, _bytes(datasets.write_sav, families), ".sav")
    frame, meta = pyreadstat.read_sav(path)
    columns = datasets.variables(families)
    assert _without_estimates(families, meta.column_names) == [v.name for v in columns]
    assert _without_estimates(families, meta.column_labels, meta) == [
        datasets.spss_variable_label(v.label) for v in columns
    ]
    rows = _csv_rows(families)
    assert frame["respondent"].tolist() == [r["respondent"] for r in rows]
    for variable in columns[1:]:
        assert meta.variable_measure[variable.name] == variable.measure
        if variable.value_labels:
            labels = meta.variable_value_labels[variable.name]
            assert labels == {
                float(k): datasets.spss_value_label(v)
                for k, v in variable.value_labels.items()
            }
        for value, row in zip(frame[variable.name], rows, strict=True):
            cell = row[variable.name]
            if variable.factor:
                cell = str(_code(variable, cell))
            assert value == float(cell)


def test_sav_cuts_long_labels_to_spss_limits_within_a_character(ada, tmp_path):
    text = "Wie oft ärgern Sie sich über " + "sehr lange Fragen, " * 25
    options = ("Ö" * 200, "ß" * 199 + "x")
    survey = authoring.survey_create(owner=ada, title="Long", epsilon_budget=2.0)
    authoring.question_create(
        survey=survey,
        text=text[:500],
        privacy=PrivacyConfig(
            kind="single_choice", options=options, epsilon=1.0, mechanism="grr"
        ),
    )
    survey = authoring.survey_publish(survey=survey, user=ada)
    submit_bulk(survey, 3)
    release(survey)
    frame, meta = pyreadstat.read_sav(
        _to_path(tmp_path, _bytes(datasets.write_sav, survey), ".sav")
    )
    (question,) = survey.questions.all()
    name = f"q{question.position}"
    label = meta.column_labels[1]
    assert len(label.encode()) <= 256 and label.endswith("…")
    assert _codebook(survey)[name]["label"].startswith(label[:-1])
    values = meta.variable_value_labels[name]
    assert values[0.0] == "Ö" * 58 + "…"  # 116 bytes of Ö, then the ellipsis
    assert all(len(v.encode()) <= 120 for v in values.values())
    assert _codebook(survey)[name]["value_labels"]["0"] == options[0]
    assert len(frame) == 3


def _code(variable, label: str) -> int:
    """The code of a CSV label (CSV cells are neutralised, labels in files not)."""
    return {neutralise(v): k for k, v in variable.value_labels.items()}[label]


def test_dta_round_trip_keeps_values_and_labels_within_stata_limits(
    student_life, tmp_path
):
    path = _to_path(tmp_path, _bytes(datasets.write_dta, student_life), ".dta")
    frame, meta = pyreadstat.read_dta(path)
    columns = datasets.variables(student_life)
    names = _without_estimates(student_life, meta.column_names)
    labels = _without_estimates(student_life, meta.column_labels, meta)
    assert names == [v.name for v in columns]
    assert all(len(n) <= 32 for n in meta.column_names)
    assert all(len(label) <= 80 for label in meta.column_labels)
    long = [v for v in columns if len(v.label) > 80]
    assert long, "the fixture has labels longer than Stata allows"
    assert labels == datasets.stata_labels(columns)
    assert len(set(meta.column_labels)) == len(meta.column_labels)
    for variable, label in zip(columns, labels, strict=True):
        if variable.question:
            assert label.startswith(variable.question[:20])
        if variable.protected:
            assert label.endswith(f"[randomized, eps={variable.epsilon}]")
    rows = _csv_rows(student_life)
    for variable in columns[1:]:
        if variable.value_labels:
            assert meta.variable_value_labels[variable.name] == {
                int(k): v for k, v in variable.value_labels.items()
            }
        for value, row in zip(frame[variable.name], rows, strict=True):
            cell = row[variable.name]
            expected = _code(variable, cell) if variable.factor else float(cell)
            assert value == expected


# --- the R script ------------------------------------------------------------------
CALL = re.compile(
    r'^estimates\[\["\w+"\]\] <- (estimate_\w+)\(d, (.*)\)$', re.MULTILINE
)


def _r_value(text: str):
    text = text.strip()
    if text.startswith("c("):
        return [_r_value(part) for part in _split(text[2:-1])]
    if text.startswith('"'):
        return json.loads(text)
    if text in ("TRUE", "FALSE", "NULL"):
        return {"TRUE": True, "FALSE": False, "NULL": None}[text]
    return float(text)


def _split(text: str) -> list[str]:
    """Top-level comma-separated parts (commas inside strings or c() stay)."""
    parts, depth, quoted, start, i = [], 0, False, 0, 0
    while i < len(text):
        char = text[i]
        if quoted:
            if char == "\\":
                i += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p for p in (p.strip() for p in parts) if p]


def _calls(script: str) -> list[tuple[str, object, dict]]:
    calls = []
    for function, arguments in CALL.findall(script):
        parts = _split(arguments)
        named = dict(p.split(" = ", 1) for p in parts[1:])
        calls.append(
            (function, _r_value(parts[0]), {k: _r_value(v) for k, v in named.items()})
        )
    return calls


FACTOR = re.compile(
    r'^d\[\["(\w+)"\]\] <- factor\(d\[\["\1"\]\], levels = (c\(.*\)), '
    r"labels = (c\(.*\))\)$",
    re.MULTILINE,
)


def _factors(script: str) -> dict[str, dict[str, str]]:
    """Each factor of the script: CSV cell (level) -> its label."""
    return {
        name: dict(zip(_r_value(levels), _r_value(labels), strict=True))
        for name, levels, labels in FACTOR.findall(script)
    }


def _as_read(script: str, rows: list[dict]) -> list[dict]:
    """The CSV rows as the script sees them once its factors are made."""
    factors = _factors(script)
    return [
        {k: factors[k].get(v, v) if k in factors else v for k, v in row.items()}
        for row in rows
    ]


def _parity(x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    while np.any(x > 0):
        out ^= x & 1
        x = x >> 1
    return out


def _evaluate(function: str, columns, args: dict, rows: list[dict]) -> list[float]:
    """What the R helper of that name computes (dataset_r.r_helpers()), in numpy."""
    first = columns if isinstance(columns, str) else columns[0]
    kept = [r for r in rows if r[first] != ""]
    n = len(kept)
    labels = args["labels"]
    if function == "estimate_levels":
        counts = np.array([sum(r[first] == label for r in kept) for label in labels])
    elif function == "estimate_bits":
        counts = np.array([sum(int(r[c]) for r in kept) for c in columns])
    elif function == "estimate_olh":
        a, b, y = (np.array([float(r[c]) for r in kept]) for c in columns)
        counts = np.array(
            [
                np.sum(np.mod(np.mod(a * v + b, 2147483647), args["g"]) == y)
                for v in range(len(labels))
            ]
        )
    else:
        j, bit = (np.array([int(r[c]) for r in kept]) for c in columns)
        counts = np.array(
            [np.sum(bit == 1 - _parity(j & v)) for v in range(len(labels))]
        )
    p, q = np.asarray(args["p"]), np.asarray(args["q"])
    scale = args.get("scale", 1.0)
    return list(scale * (counts / n - q) / (p - q))


@pytest.mark.parametrize("fixture", ["families", "student_life"])
def test_r_script_names_only_columns_of_the_csv_and_levels_of_the_codebook(
    request, fixture
):
    survey = request.getfixturevalue(fixture)
    script = dataset_r.r_script(survey)
    rows = _csv_rows(survey)
    header = list(rows[0])
    classes = re.search(r"colClasses = c\((.*?)\n  \)", script, re.DOTALL).group(1)
    named = re.findall(r'"([^"]+)" = "(\w+)"', classes)
    assert [name for name, _ in named] == header
    book = _codebook(survey)
    factors = _factors(script)
    assert set(factors) == {n for n, v in book.items() if v["factor"]}
    for name, levels in factors.items():
        assert list(levels.values()) == list(book[name]["value_labels"].values())
        assert {r[name] for r in rows} - {""} <= set(levels)
    for _, columns, _ in _calls(script):
        for column in [columns] if isinstance(columns, str) else columns:
            assert column in header


FREQUENCY = {"warner", "forced_response", "grr", "oue", "sue", "olh", "hadamard"}
FREQUENCY |= {"multi_rr", "padding_sampling"}


@pytest.mark.parametrize("fixture", ["families", "student_life"])
def test_r_script_formulas_reproduce_the_dashboard_estimates(request, fixture):
    survey = request.getfixturevalue(fixture)
    script = dataset_r.r_script(survey)
    rows = _as_read(script, _csv_rows(survey))
    results = latest_results(survey)
    by_name = {f"q{q.position}": q for q in results.questions}
    calls = [c for c in _calls(script) if c[0] != "estimate_channel"]
    assert len(calls) == sum(q.mechanism in FREQUENCY for q in results.questions)
    for function, columns, args in calls:
        first = columns if isinstance(columns, str) else columns[0]
        expected = by_name[first.split("_")[0]]
        assert args["labels"] == expected.labels
        np.testing.assert_allclose(
            _evaluate(function, columns, args, rows),
            expected.estimate,
            rtol=1e-9,
            atol=1e-12,
        )


def test_r_script_keeps_a_title_with_line_breaks_inside_its_comment(families):
    Survey.objects.filter(pk=families.pk).update(title="Two\nlines\r\nstop()")
    families.refresh_from_db()
    script = dataset_r.r_script(families)
    assert (
        script.splitlines()[0] == f"# Deniable survey {families.pk}: Two lines stop()"
    )
    assert not any(line.startswith("stop()") for line in script.splitlines())


def test_r_script_uses_each_answers_p_and_q_when_they_differ(researcher):
    """A forced-response design with unequal forced parts: p* and q* differ for
    "yes" and "no", and the script carries both."""
    survey = make_survey(researcher, FAMILIES[1:2], plain=False)
    question = survey.questions.get()
    spec = ldp.build(
        {
            "mechanism": "forced_response",
            "design": {"truthful": "1/2", "forced_yes": "1/3", "forced_no": "1/6"},
        }
    ).spec
    Question.objects.filter(pk=question.pk).update(spec=spec)
    question.spec_revisions.update(spec=spec)
    submit_bulk(survey, 60)
    release(survey)

    script = dataset_r.r_script(survey)
    ((function, columns, args),) = _calls(script)
    mechanism = ldp.build(spec)
    assert args["p"] == list(mechanism.p_star) and args["q"] == list(mechanism.q_star)
    assert args["q"][0] != args["q"][1]
    expected = latest_results(survey).questions[0].estimate
    rows = _as_read(script, _csv_rows(survey))
    np.testing.assert_allclose(
        _evaluate(function, columns, args, rows), expected, rtol=1e-9
    )
    book = _codebook(survey)
    assert "(per answer)" in book[f"q{question.position}"]["debias"]


# --- views -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "suffix", "streamed"),
    [
        ("export_wide_csv", "wide.csv", True),
        ("export_wide_csv_bom", "wide-bom.csv", True),
        ("export_sav", "wide.sav", True),
        ("export_dta", "wide.dta", True),
        ("export_codebook_csv", "codebook.csv", False),
        ("export_codebook_json", "codebook.json", False),
        ("export_r", "wide.R", False),
    ],
)
def test_dataset_view_sends_the_writers_file_as_an_attachment(
    ada_client, student_life, tmp_path, name, suffix, streamed
):
    response = ada_client.get(reverse(f"analysis:{name}", args=[student_life.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="survey-{student_life.pk}-{suffix}"'
    )
    assert isinstance(response, StreamingHttpResponse) == streamed
    body = b"".join(response.streaming_content) if streamed else response.content
    writer = datasets.DATASET_WRITERS[name.removeprefix("export_")]
    if suffix.endswith((".sav", ".dta")):
        reader = pyreadstat.read_sav if suffix.endswith(".sav") else pyreadstat.read_dta
        frame, _ = reader(_to_path(tmp_path, body, suffix[-4:]))
        assert len(frame) == 250
    else:
        assert body == _bytes(writer, student_life)


def test_dashboard_links_every_dataset_format(ada_client, student_life):
    page = ada_client.get(
        reverse("analysis:dashboard", args=[student_life.pk])
    ).content.decode()
    for fmt in datasets.DATASET_WRITERS:
        assert reverse(f"analysis:export_{fmt}", args=[student_life.pk]) in page


# --- spec revisions ---------------------------------------------------------------
def _revise(survey, **changes):
    question = survey.questions.get()
    config = question_privacy_config(question)
    authoring.question_update(
        question=question,
        text=question.text,
        privacy=PrivacyConfig(**{**config.__dict__, **changes}),
    )
    survey.refresh_from_db()


def test_spec_revisions_get_a_revision_column_and_other_layouts_columns_apart(
    researcher,
):
    survey = make_survey(researcher, FAMILIES[2:3], plain=False)  # GRR, 4 options
    submit_bulk(survey, 12)
    _revise(survey, epsilon=0.5)  # same layout: same column, revision 2
    submit_bulk(survey, 7, seed=2)
    _revise(survey, mechanism="oue")  # bits: columns of their own, revision 3
    submit_bulk(survey, 5, seed=3)
    release(survey)
    question = survey.questions.get()
    base = f"q{question.position}"

    rows = _csv_rows(survey)
    book = _codebook(survey)
    payloads = _payloads(survey)
    revisions = dict(
        Report.objects.filter(question=question).values_list(
            "submission__public_id", "spec_revision"
        )
    )
    assert len(rows) == 24
    assert f"{base}_rev" in rows[0] and f"{base}_r1_rev" in rows[0]
    for row in rows:
        revision = revisions[row["respondent"]]
        stored = payloads[(row["respondent"], question.position)]
        if revision == 3:
            assert row[f"{base}_rev"] == "3" and row[f"{base}_r1"] == ""
            assert _decode("oue", row, base, book, question.spec) == stored
        else:
            assert row[f"{base}_r1_rev"] == str(revision)
            assert row[f"{base}_opt1"] == ""
            assert _decode("grr", row, f"{base}_r1", book, question.spec) == stored

    # The R script estimates the current revision, as the dashboard does.
    script = dataset_r.r_script(survey)
    ((function, columns, args),) = _calls(script)
    assert args["revision_column"] == f"{base}_rev" and args["revision"] == 3
    current = [r for r in _as_read(script, rows) if r[f"{base}_rev"] == "3"]
    expected = latest_results(survey).questions[0]
    np.testing.assert_allclose(
        _evaluate(function, columns, args, current), expected.estimate, rtol=1e-9
    )


@pytest.mark.parametrize("fmt", sorted(datasets.DATASET_WRITERS))
def test_writer_reports_progress_up_to_the_whole(student_life, fmt):
    shares: list[float] = []
    datasets.DATASET_WRITERS[fmt](student_life, io.BytesIO(), shares.append)
    assert shares[-1] == 1.0
    assert shares == sorted(shares)


def test_a_long_protected_question_keeps_its_text_first_in_its_stata_label():
    question = "Have you ever " + "x" * 60 + " during the last twelve months?"
    variable = datasets.Variable(
        name="q1",
        question_id=1,
        position=1,
        question=question,
        kind="yes_no",
        protected=True,
        epsilon="1.1",
        label=(
            "randomized report (GRR, eps=1.1): not the respondent's answer: " + question
        ),
    )
    label = datasets.stata_variable_label(variable)
    assert len(label) == 80
    assert label.startswith(question[:50]) and "…" in label
    assert label.endswith(" [randomized, eps=1.1]")


def test_sav_document_and_columns_give_each_scale_and_number_mean(
    student_life, tmp_path
):
    results = latest_results(student_life)
    path = tmp_path / "wide.sav"
    path.write_bytes(_bytes(datasets.write_sav, student_life))
    frame, meta = pyreadstat.read_sav(str(path))
    document = " ".join(meta.notes)
    means = [q for q in results.questions if q.mean is not None and q.distribution]
    assert means
    for q in means:
        base = f"q{q.position}"
        assert set(frame[f"{base}_mean"]) == {q.mean}
        assert set(frame[f"{base}_mean_lo"]) == {q.mean_interval.low}
        assert set(frame[f"{base}_mean_hi"]) == {q.mean_interval.high}
        assert f"{base} (" in document and f"debiased mean {q.mean:.6g}" in document
    assert all(len(line.encode()) <= 80 for line in meta.notes)
