"""The public ldp API is documented in numpydoc style, and its examples run.

``numpydoc.validate`` checks every object in ``ldp.__all__`` and the public
methods and properties of the result classes and of ``Mechanism``; every
``Examples`` section in ``ldp`` runs as a doctest (seeded, so the printed
numbers are exact).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
from functools import cached_property
from typing import Any

import numpy as np
import pytest
from numpydoc.validate import validate

import ldp
from ldp.estimators.crosstab import CrossTabEstimate

IGNORED = {
    "ES01": "an extended summary is optional: Notes carry the formulas",
    "SA01": "See Also is optional",
}
"""numpydoc checks not applied; every other check is."""

CLASS_IGNORED = {
    "PR01": "dataclass fields are documented under Attributes, not Parameters",
}
"""Further checks not applied to class docstrings."""

RESULT_CLASSES = (
    ldp.FrequencyEstimate,
    ldp.MultiSelectEstimate,
    ldp.ChannelEstimate,
    ldp.MeanEstimate,
    ldp.SupportCounts,
    ldp.Recommendation,
    CrossTabEstimate,
    ldp.LogisticRegressionResult,
    ldp.LinearRegressionResult,
    ldp.RegressionTable,
    ldp.WeightedEstimate,
    ldp.CalibrationWeights,
)


def _is_member(value: Any) -> bool:
    return inspect.isfunction(value) or isinstance(value, property | cached_property)


def _public_members(cls: type) -> list[str]:
    """Public methods and properties defined on ``cls`` or its ldp bases."""
    names = []
    for base in cls.__mro__:
        if not base.__module__.startswith("ldp"):
            continue
        for name, value in vars(base).items():
            if not name.startswith("_") and _is_member(value):
                names.append(f"{base.__module__}.{base.__qualname__}.{name}")
    return names


def _public_api() -> tuple[list[str], set[str]]:
    names, classes = [], set()
    for name in ldp.__all__:
        obj = getattr(ldp, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            names.append(f"{obj.__module__}.{obj.__qualname__}")
            if inspect.isclass(obj):
                classes.add(names[-1])
    for cls in (*RESULT_CLASSES, ldp.Mechanism):
        names.extend(_public_members(cls))
    return sorted(set(names)), classes


PUBLIC_API, CLASSES = _public_api()


def test_the_public_api_list_covers_the_estimate_interface():
    for member in ("confidence_interval", "consistent", "mean", "to_dict"):
        for cls in (ldp.FrequencyEstimate, ldp.MultiSelectEstimate):
            assert f"{cls.__module__}.{cls.__qualname__}.{member}" in PUBLIC_API
    assert "ldp.mechanisms.base.Mechanism.estimate" in PUBLIC_API
    assert "ldp.mechanisms.reports.ReportHandling.aggregate" in PUBLIC_API
    assert "ldp.estimators.base.Estimate" in CLASSES


@pytest.mark.parametrize("name", PUBLIC_API)
def test_public_docstring_passes_numpydoc_validation(name):
    result = validate(name)
    ignored = IGNORED | (CLASS_IGNORED if name in CLASSES else {})
    errors = [f"{code}: {message}" for code, message in result["errors"]]
    assert [e for e in errors if e[:4] not in ignored] == []


def _ldp_modules() -> list[str]:
    names = ["ldp"]
    for info in pkgutil.walk_packages(ldp.__path__, "ldp."):
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("module_name", _ldp_modules())
def test_examples_in_the_module_run_as_doctests(module_name):
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    globs = {"np": np, **vars(module)}
    for test in finder.find(module, module_name, globs=globs):
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} doctest failure(s) printed above"


@pytest.mark.parametrize(
    "module_name",
    [
        "ldp.estimators.frequency.result",
        "ldp.estimators.multiselect.result",
        "ldp.estimators.channel.result",
        "ldp.estimators.mean",
    ],
)
def test_every_result_module_has_examples(module_name):
    module = importlib.import_module(module_name)
    tests = doctest.DocTestFinder().find(module, module_name)
    assert sum(len(test.examples) for test in tests) >= 5
