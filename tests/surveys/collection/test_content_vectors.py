"""The content hash is the same on the server and on the device.

``tests/fixtures/content_vectors.json`` holds objects, their canonical text
and its SHA-256; ``surveys/collection/content.py`` must write that text and
hash, and the device (``static/js/ledger.js``, run by Node) must hash the text
to the same value and refuse a changed text.  The answer page embeds each
protected question's content object exactly as the module makes it.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse

from surveys.collection import content
from tests.system.conftest import make_survey
from tests.system.device import CONFIG_BLOCK

ROOT = Path(__file__).resolve().parents[3]
VECTORS = json.loads(
    (ROOT / "tests" / "fixtures" / "content_vectors.json").read_text("utf-8")
)["vectors"]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_each_shared_vector_has_the_servers_canonical_text_and_hash(vector) -> None:
    assert content.canonical_json(vector["object"]).decode() == vector["canonical"]
    assert content.content_hash(vector["object"]) == vector["sha256"]


@pytest.mark.parametrize("name", ["content_hash.test.mjs", "ledger.test.mjs"])
def test_the_devices_content_hash_and_memory_pass_their_node_tests(name) -> None:
    node = shutil.which("node")
    assert node, "node (Node.js 20+) is required to test the device's memory"
    result = subprocess.run(
        [node, "--test", str(ROOT / "tests" / "js" / name)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.django_db
def test_the_answer_page_embeds_each_protected_questions_content_object(
    client, django_user_model
) -> None:
    survey = make_survey(
        django_user_model.objects.create_user("ada", password="x" * 20)
    )
    page = client.get(reverse("collection:respond", args=[survey.public_token]))
    config = json.loads(html.unescape(CONFIG_BLOCK.search(page.text).group(2)))
    questions = {q.pk: q for q in survey.questions.all()}
    assert len(config["questions"]) == 3
    for entry in config["questions"]:
        embedded = entry["content"]
        made = content.question_content(questions[entry["id"]], "en")
        assert embedded == content.ContentObject(entry["id"], "en", made).as_json()
        assert content.content_hash(json.loads(embedded["text"])) == embedded["hash"]
