"""What each tier of a run cost, printed at its end against the tier's allowance.

Every test belongs to one tier, the first of ``TIERS`` it is marked with
(``tests/conftest.py`` marks them; docs/testing.md, section 7); unmarked
tests are the fast lane.  For each test the hooks below record its seconds
(setup, call and teardown, as ``--durations`` counts them) and the CPU seconds
its pytest process and the subprocesses it waited for spent meanwhile;
pytest-xdist carries both to the main process with the reports.  At the end
of the run a table gives, per tier, the tests, the summed seconds, the CPU
seconds and the tier's allowance (README, "Tests").

The allowances guard the suite's total (30 minutes on two cores) without a
timed test: a tier over its allowance is named in the summary, and nothing
fails, because a busy machine is not a fault of the code.  Seconds are summed
over tests, so on two xdist workers a tier's wall time is about half its sum.
CPU seconds of servers that a session keeps (PostgreSQL, Redis, the Node
audit process) are not in any test's figure.

With ``TEST_TIMES=FILE`` every report also appends a line to FILE (node id,
phase, tier, seconds, CPU seconds), to find what a tier's time is spent on.
"""

from __future__ import annotations

import os
from collections import defaultdict

import pytest

# Most specific first: a browser test is also a servers test, and every one
# of these is also ``slow``.
TIERS = ("browser", "servers", "statistical", "sweeps", "slow")
FAST = "fast"
# Summed test seconds a tier may take in the whole suite (README, "Tests").
ALLOWANCE_SECONDS = {
    FAST: 200,
    "sweeps": 450,
    "slow": 280,
    "statistical": 840,
    "servers": 300,
    "browser": 420,
}


def tier_of(item: pytest.Item) -> str:
    """The first tier of ``TIERS`` that ``item`` is marked with, else the fast lane."""
    for tier in TIERS:
        if item.get_closest_marker(tier):
            return tier
    return FAST


def _cpu_seconds() -> float:
    """User and system CPU of this process and of the children it waited for."""
    spent = os.times()
    return spent.user + spent.system + spent.children_user + spent.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Attach the tier and the phase's CPU seconds to each phase's report."""
    outcome = yield
    report = outcome.get_result()
    report.tier = tier_of(item)
    started = item.stash.get(_PHASE_CPU, None)
    report.cpu_seconds = _cpu_seconds() - started if started is not None else 0.0


_PHASE_CPU = pytest.StashKey[float]()


def _phase_start(item: pytest.Item) -> None:
    item.stash[_PHASE_CPU] = _cpu_seconds()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _phase_start(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    _phase_start(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    _phase_start(item)


class TierTotals:
    """Tests, summed seconds and CPU seconds per tier, from the run's reports."""

    def __init__(self) -> None:
        self.log = os.environ.get("TEST_TIMES")
        self.tests: dict[str, set[str]] = defaultdict(set)
        self.seconds: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        tier = getattr(report, "tier", None)
        if tier is None:
            return
        self.tests[tier].add(report.nodeid)
        self.seconds[tier] += report.duration
        self.cpu[tier] += getattr(report, "cpu_seconds", 0.0)
        if self.log:
            with open(self.log, "a", encoding="utf-8") as out:
                out.write(
                    f"{report.nodeid}\t{report.when}\t{tier}\t"
                    f"{report.duration:.3f}\t{report.cpu_seconds:.3f}\n"
                )

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.tests:
            return
        write = terminalreporter.write_line
        terminalreporter.section("time per tier (allowances: README, Tests)")
        write(f"{'tier':<12}{'tests':>7}{'seconds':>10}{'CPU s':>9}{'allowance':>11}")
        over = []
        for tier in (FAST, *reversed(TIERS)):
            if tier not in self.tests:
                continue
            allowance = ALLOWANCE_SECONDS[tier]
            write(
                f"{tier:<12}{len(self.tests[tier]):>7}{self.seconds[tier]:>10.0f}"
                f"{self.cpu[tier]:>9.0f}{allowance:>11}"
            )
            if self.seconds[tier] > allowance:
                over.append(tier)
        for tier in over:
            write(
                f"tier {tier!r} took {self.seconds[tier]:.0f} s, over its allowance "
                f"of {ALLOWANCE_SECONDS[tier]} s: make its tests cheaper, or move "
                "time from another tier's allowance (README, Tests)",
                yellow=True,
                bold=True,
            )


def pytest_configure(config: pytest.Config) -> None:
    """Register the totals on the process that prints the summary."""
    if not hasattr(config, "workerinput"):  # not an xdist worker
        config.pluginmanager.register(TierTotals(), "tier-totals")
