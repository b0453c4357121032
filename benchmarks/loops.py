"""Load loops: closed-loop phases and open-loop schedules of actions.

* closed loop (:func:`run_phase`): a fixed number of client threads, each
  starting its next action as soon as the last one ends;
* open loop (:func:`open_loop`): actions started on a schedule fixed in
  advance (:func:`arrivals`: Poisson), each timed from its *scheduled* start,
  so a server that falls behind is charged for the wait it causes (no
  coordinated omission).
"""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np


# --- closed-loop load -----------------------------------------------------------
@dataclass(frozen=True)
class Phase:
    """One timed phase: how many actions completed, in how long."""

    completed: int
    seconds: float
    client_cpu: float  # this process's CPU seconds per wall second
    crashes: tuple[str, ...] = ()  # exceptions raised by the action itself


def run_phase(
    *,
    concurrency: int,
    duration: float,
    max_count: int | None,
    action: Callable[[int], bool],
) -> Phase:
    """``concurrency`` threads each call ``action(thread_index)`` until
    ``duration`` seconds pass or ``max_count`` actions have started.

    ``action`` returns True when it completed its work.
    """
    deadline = time.monotonic() + duration
    started = 0
    completed = 0
    crashes: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def loop(index: int) -> None:
        nonlocal started, completed
        while not stop.is_set() and time.monotonic() < deadline:
            with lock:
                if max_count is not None and started >= max_count:
                    return
                started += 1
            try:
                done = action(index)
            except Exception as error:  # a bug in the client: report, go on
                with lock:
                    crashes.append(f"{type(error).__name__}: {error}")
                continue
            if done:
                with lock:
                    completed += 1

    threads = [
        threading.Thread(target=loop, args=(i,), daemon=True)
        for i in range(concurrency)
    ]
    cpu, wall = time.process_time(), time.perf_counter()
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    finally:
        stop.set()
    wall = time.perf_counter() - wall
    cpu = (time.process_time() - cpu) / wall
    return Phase(completed, wall, cpu, tuple(crashes))


# --- open-loop load -------------------------------------------------------------
@dataclass(frozen=True)
class Timed:
    """One scheduled action: its label, how long after its scheduled start it
    finished (seconds, the wait for a free client included), and whether it
    succeeded."""

    label: str
    seconds: float
    ok: bool


def arrivals(rate: float, duration: float, rng: np.random.Generator) -> list[float]:
    """Poisson arrival times (seconds from the start) at ``rate`` per second."""
    times: list[float] = []
    now = float(rng.exponential(1 / rate))
    while now < duration:
        times.append(now)
        now += float(rng.exponential(1 / rate))
    return times


def open_loop(
    schedule: Iterable[tuple[float, str, Callable[[], bool]]],
    *,
    clients: int = 64,
) -> tuple[list[Timed], float]:
    """Run each ``(at, label, action)`` at ``at`` seconds from now, on a pool
    of ``clients`` threads; ``action()`` returns whether it succeeded.

    Every action is timed from its scheduled start, not from when a thread
    took it: when the server (or the pool) falls behind, the actions queued
    meanwhile are charged for their wait.  Returns the timings and how late
    the schedule ran at worst (seconds a thread took an action after its
    time; large values mean the load generator, not the server, was short).
    """
    timings: list[Timed] = []
    lock = threading.Lock()
    worst_start = 0.0
    start = time.perf_counter() + 0.5

    def run(at: float, label: str, action: Callable[[], bool]) -> None:
        nonlocal worst_start
        scheduled = start + at
        began = time.perf_counter()
        try:
            ok = action()
        except (OSError, http.client.HTTPException):
            ok = False
        finished = time.perf_counter()
        with lock:
            worst_start = max(worst_start, began - scheduled)
            timings.append(Timed(label, finished - scheduled, ok))

    with ThreadPoolExecutor(max_workers=clients) as pool:
        for at, label, action in sorted(schedule, key=lambda item: item[0]):
            delay = start + at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            pool.submit(run, at, label, action)
    return timings, worst_start
