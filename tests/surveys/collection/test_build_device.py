"""``manage.py build_device`` writes a folder any institution can host: the
independent device's files byte for byte, and their fingerprints."""

from __future__ import annotations

import base64
import hashlib
import re

from django.core.management import call_command

from surveys.collection import assets

ROW = re.compile(r"^\| `([^`]+)` \| `(sha384-[A-Za-z0-9+/=]+)` \|$", re.MULTILINE)


def test_the_bundle_holds_every_device_file_byte_for_byte(tmp_path):
    call_command("build_device", str(tmp_path))
    for script in assets.independent_bundle():
        assert (tmp_path / script.name).read_bytes() == script.source, script.name


def test_the_bundles_fingerprints_are_the_files_sha384(tmp_path):
    call_command("build_device", str(tmp_path))
    listed = dict(ROW.findall((tmp_path / "FINGERPRINTS.md").read_text("utf-8")))
    assert set(listed) == {s.name for s in assets.independent_bundle()}
    for name, value in listed.items():
        digest = hashlib.sha384((tmp_path / name).read_bytes()).digest()
        assert value == "sha384-" + base64.b64encode(digest).decode("ascii")


def test_the_device_imports_only_files_in_its_bundle():
    names = {s.name for s in assets.independent_bundle()}
    for script in assets.independent_bundle():
        if not script.name.endswith(".js"):
            continue
        imported = re.findall(r'^import .* from "\./([^"]+)";$', script.text, re.M)
        assert set(imported) <= names, script.name
    page = (assets.DEVICE_DIR / "index.html").read_text("utf-8")
    for linked in re.findall(r'(?:src|href)="([^"]+)"', page):
        assert linked in names | {"RELEASES.md"}, linked
