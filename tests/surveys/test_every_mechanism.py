"""Every registered mechanism goes through every path of the platform.

Parametrized over ``ldp.mechanisms.registry``: a mechanism added there (its
module, its browser sampler, its test vectors and respondent wording) is
carried through all of it without a change on the Django side, and this test
proves it.  For each mechanism, on a question of the first kind it declares:

1. spec → compile: the builder's privacy settings become its requested spec
   and ldp compiles it, published as the question's spec;
2. the device: the browser modules (``ldp/js``) check the compiled spec to
   the same ε as ldp, word it for the respondent, and replay the mechanism's
   shared test vectors (``ldp/spec/vectors.json``) exactly as Python does;
3. ingest: reports randomized by the Python reference go through the
   collection services (one at a time and in bulk), are stored in the form the
   mechanism declares, and read back on a receipt in the respondent's words;
4. tally: the worker's tally equals ldp's aggregate of the JSON reports;
5. estimate: the estimates export and the dashboard show ldp's estimate,
   under the mechanism's label (translated on the page);
6. export: the raw reports export gives back the reports sent, the
   per-respondent table has the columns the mechanism declares and cells that
   are its reports, and the R script debiases it when it is a frequency oracle.
"""

from __future__ import annotations

import csv
import html
import io
import json
import random
import shutil
import subprocess
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils import translation

import ldp
from ldp.mechanisms import registry
from ldp.spec.ratio import likelihood_ratio, ratio_display
from surveys.analysis.exports import dataset_r, datasets
from surveys.analysis.results import selectors
from surveys.analysis.tallies.services import tallies_refresh
from surveys.authoring import services as authoring
from surveys.authoring.kinds import facts
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection import report_codec
from surveys.collection.models import Report
from surveys.collection.respondent_words import describe_report
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submission_ingest, submissions_ingest_bulk

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "ldp" / "spec" / "vectors.json").read_text())
OPTIONS = ("Never", "Sometimes", "Often", "Always")
ONE_BY_ONE, IN_BULK = 3, 60
DEVICE = """
import { readFileSync } from "node:fs";
import { checkSpec, randomizeWithSource } from "%(root)s/ldp/js/randomizer.js";
import { mechanismSentence } from "%(root)s/ldp/js/wording.js";
const input = JSON.parse(readFileSync(0, "utf8"));
const verdict = checkSpec(input.spec);
const replays = input.groups.map((group) => group.vectors.map((v) => {
  let used = 0;
  const next = () => v.words[used++];
  return { report: randomizeWithSource(group.spec, v.answer, next), used };
}));
console.log(JSON.stringify({
  milli: verdict.epsilonMilli, sentence: mechanismSentence(input.spec), replays,
}));
"""


def _settings(family: type[ldp.Mechanism]) -> PrivacyConfig:
    """The builder's settings for a question of the mechanism's first kind."""
    kind = family.kinds[0]
    found = facts(kind)
    answers: dict[str, Any] = {"options": OPTIONS if found.lists_options else ()}
    if found.grid:
        answers.update(low=Decimal(0), high=Decimal(10), step=Decimal(1))
    if found.several:
        answers["max_selections"] = 2
    return PrivacyConfig(kind=kind, epsilon=1.0, mechanism=family.name, **answers)


def _published(owner, family):
    survey = authoring.survey_create(
        owner=owner, title=f"Under {family.name}", epsilon_budget=5.0
    )
    authoring.question_create(
        survey=survey, text="What is true of you?", privacy=_settings(family)
    )
    return authoring.survey_publish(survey=survey, user=owner)


def _sent(mechanism: ldp.Mechanism, count: int) -> list[Any]:
    """``count`` reports of made-up answers, by the Python reference sampler."""
    rng = random.Random(mechanism.name)
    most = getattr(mechanism, "max_selections", mechanism.k)
    several = "multi_select" in mechanism.kinds
    reports = []
    for i in range(count):
        truth = (
            sorted(rng.sample(range(mechanism.k), i % (most + 1)))
            if several
            else i % mechanism.k
        )
        reports.append(mechanism.randomize_one(truth, lambda: rng.getrandbits(32)))
    return reports


def _response(survey, question, report) -> ResponseIn:
    return ResponseIn(
        idempotency_key=uuid.uuid4(),
        survey_revision=survey.revision,
        reports={question.pk: SentReport(question.spec_revision, report)},
        plain_answers={},
    )


def _device(spec: dict, groups: list[dict]) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js 20+) is required to test the browser modules")
    result = subprocess.run(
        [node, "--input-type=module", "-e", DEVICE % {"root": ROOT}],
        input=json.dumps({"spec": spec, "groups": groups}),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def _download(client, name, survey) -> str:
    response = client.get(reverse(f"analysis:{name}", args=[survey.pk]))
    assert response.status_code == 200
    if isinstance(response, StreamingHttpResponse):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def _check_device(mechanism: ldp.Mechanism) -> None:
    groups = [g for g in VECTORS["groups"] if g["spec"]["mechanism"] == mechanism.name]
    assert groups, f"ldp/spec/vectors.json has no vectors for {mechanism.name}"
    device = _device(mechanism.spec, groups)
    shown = ratio_display(likelihood_ratio(mechanism.spec))
    assert (
        device["milli"]
        == int(Decimal(shown) * 1000)
        == int(Decimal(mechanism.epsilon_display) * 1000)
    )
    assert device["sentence"].strip()
    for group, replays in zip(groups, device["replays"], strict=True):
        reference = ldp.build(group["spec"])
        for vector, replay in zip(group["vectors"], replays, strict=True):
            draw = iter(vector["words"]).__next__
            again = reference.randomize_one(vector["answer"], draw)
            assert again == replay["report"] == vector["report"]
            assert replay["used"] == vector["used"]


def _check_ingest(survey, question, mechanism, sent) -> None:
    for report in sent[:ONE_BY_ONE]:
        submission_ingest(survey=survey, response=_response(survey, question, report))
    submissions_ingest_bulk(
        survey=survey,
        responses=[_response(survey, question, r) for r in sent[ONE_BY_ONE:]],
    )
    stored = list(Report.objects.filter(question=question).order_by("id"))
    assert len(stored) == len(sent)
    column = mechanism.storage.column
    for row in stored:
        assert (row.value is not None, row.bits is not None) == (
            column == "value",
            column == "bits",
        )
    decoded = [report_codec.decode(question.spec, r.value, r.bits) for r in stored]
    assert sorted(map(json.dumps, decoded)) == sorted(map(json.dumps, sent))
    for report in decoded[:10]:
        assert describe_report(question, report, question.spec)
        with translation.override("fr"):
            assert describe_report(question, report, question.spec)


def _check_exports(client, survey, question, mechanism, sent) -> None:
    raw = json.loads(_download(client, "export_reports_json", survey))
    assert sorted(json.dumps(r["report"]) for r in raw["reports"]) == sorted(
        map(json.dumps, sent)
    )
    buffer = io.BytesIO()
    datasets.write_wide_csv(survey, buffer)
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue().decode("utf-8"))))
    names = [f"q{question.position}{c.suffix}" for c in mechanism.export_columns()]
    assert [n for n in rows[0] if n.startswith(f"q{question.position}")] == names
    assert len(rows) == len(sent)
    script = dataset_r.r_script(survey)
    if mechanism.r_estimator is None:
        assert "not a frequency question; estimate it with ldp" in script
    else:
        assert f"<- {mechanism.r_estimator.name}(d, " in script


@pytest.mark.parametrize("family", registry.MECHANISMS, ids=registry.names())
def test_every_registered_mechanism_goes_through_every_path(
    family, django_user_model, client
):
    owner = django_user_model.objects.create_user("ada", password="x" * 12)
    client.force_login(owner)
    survey = _published(owner, family)
    question = survey.questions.get()
    # 1. spec → compile.
    mechanism = ldp.build(question.spec)
    assert isinstance(mechanism, family)
    assert question.spec == mechanism.spec
    # 2. the device.
    _check_device(mechanism)
    # 3. ingest.
    sent = _sent(mechanism, ONE_BY_ONE + IN_BULK)
    _check_ingest(survey, question, mechanism, sent)
    # 4. tally.
    tallies_refresh(survey_id=survey.pk)
    (tally,) = selectors.survey_tallies(survey_id=survey.pk).values()
    expected = mechanism.aggregate(sent)
    assert tally.n == expected.n and np.array_equal(tally.counts, expected.counts)
    # 5. estimate.
    document = json.loads(_download(client, "export_estimates_json", survey))
    (estimates,) = document["questions"]
    np.testing.assert_allclose(
        estimates["estimate"], mechanism.estimate(expected).estimate, rtol=1e-9
    )
    url = reverse("analysis:dashboard", args=[survey.pk])
    assert family.label in html.unescape(client.get(url).content.decode())
    with translation.override("fr"):
        label = translation.gettext(family.label)
    assert label != family.label
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="fr")
    assert label in html.unescape(page.content.decode())
    # 6. export.
    _check_exports(client, survey, question, mechanism, sent)
