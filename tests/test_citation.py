"""CITATION.cff: a valid Citation File Format 1.2.0 file naming this version."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_file_has_the_fields_cff_1_2_0_requires():
    citation = _citation()
    assert citation["cff-version"] == "1.2.0"
    assert isinstance(citation["message"], str) and citation["message"].strip()
    assert isinstance(citation["title"], str) and citation["title"].strip()
    assert citation["authors"]
    for author in citation["authors"]:
        assert author.get("name") or author.get("family-names")
    assert citation["type"] in ("software", "dataset")


def test_citation_file_names_the_version_and_licence_of_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    citation = _citation()
    assert citation["version"] == project["version"]
    assert citation["license"] == project["license"]
