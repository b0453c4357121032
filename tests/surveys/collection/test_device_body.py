"""The device's allowlist (``static/js/outbox.js``) and the server's agree.

The device builds every body from its own state through ``allowedNames``; the
server's answer form accepts exactly ``expected_fields``.  Both are computed
from the same survey here (the device from the configuration the page gives
it) and must name the same fields, so neither side can drift into sending or
accepting a field the other does not know.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from surveys.authoring.models import Survey
from surveys.collection.forms import ResponseForm

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
OUTBOX = ROOT / "static" / "js" / "outbox.js"


def device_allowed_names(config: dict) -> set[str]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js 20+) is required to run static/js/outbox.js")
    script = (
        f"import {{ allowedNames }} from {json.dumps(OUTBOX.as_uri())};\n"
        "const config = JSON.parse(process.argv[1]);\n"
        "console.log(JSON.stringify([...allowedNames(config)]));\n"
    )
    result = subprocess.run(
        [node, "--input-type=module", "-e", script, json.dumps(config)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return set(json.loads(result.stdout))


@pytest.mark.parametrize("optional", [False, True], ids=["required", "optional"])
@pytest.mark.parametrize(
    "links", [[], ["PROLIFIC_PID", "STUDY_ID"]], ids=["no links", "links"]
)
def test_device_sends_only_the_fields_the_answer_form_expects(
    survey: Survey, optional: bool, links: list[str]
):
    survey.link_fields = links
    survey.save(update_fields=["link_fields"])
    survey.questions.update(optional=optional)
    form = ResponseForm(survey=Survey.objects.get(pk=survey.pk))
    assert device_allowed_names(form.js_config()) == form.expected_fields()
