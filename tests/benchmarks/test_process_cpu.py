"""The benchmarks' CPU-time reader (``benchmarks/process_cpu.py``)."""

from __future__ import annotations

import os
import time

from benchmarks.process_cpu import cpu_seconds


def test_cpu_seconds_of_this_process_grow_with_its_work():
    before = cpu_seconds([os.getpid()])
    deadline = time.process_time() + 0.2
    while time.process_time() < deadline:
        pass
    assert cpu_seconds([os.getpid()]) - before >= 0.1


def test_cpu_seconds_leave_out_a_process_that_does_not_exist():
    assert cpu_seconds([2**22 + 1]) == 0
