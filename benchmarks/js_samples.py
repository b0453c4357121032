"""Browser randomizer speed: reports per second per mechanism, in Node and Chromium.

Usage::

    python benchmarks/js_samples.py [--samples N]

Runs the shipped ``ldp/js/randomizer.js`` (drawing from
``crypto.getRandomValues``) in Node (``node`` on PATH) and in headless
Chromium (Playwright with ``chromium`` on PATH, the module served from a
local HTTP server on 127.0.0.1), with the same timing code in both.  For each
mechanism it draws N reports of one fixed answer (every sampler does the same
work whatever the answer), after a warm-up, and keeps the best of three
timings; a timing draws batches of N reports until at least 10 ms have passed,
so a tiny N still gives a rate.  Two ways, each with its own columns:

- *per call*: N calls of ``randomize(spec, answer)``, one report each: each
  call checks the spec's cache, the answer and the secure source (a read of
  ``globalThis.crypto``, in a browser a call into its bindings);
- *batch*: one call of ``randomizeAll(items)`` with the N {spec, answer}
  items (the list is built once, before timing), which checks every answer,
  each spec once and the secure source once per call (the way the answer
  page randomizes all its answers).

Baseline, measured in the same run in each runtime with the same timing:
``crypto.getRandomValues`` filling N 32-bit words, 16,384 words a call (the
randomizer's own batch).  The ratio is baseline words/s ÷ reports/s: the time
of one report in units of the time to draw one random 32-bit word (a mechanism
drawing w words a report can never go below about w).

Prints one plain-text table, a row per mechanism and a ``baseline`` row (words
per second, the same figure in both ways' columns); exits 2 with a message on
stderr if node or Chromium is missing.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import ldp

ROOT = Path(__file__).resolve().parent.parent
JS_DIR = ROOT / "ldp" / "js"
MODULE = JS_DIR / "randomizer.js"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPEAT = 3
BATCH_WORDS = 16384  # the randomizer's getRandomValues batch
MIN_MS = 10.0

GRID = {"low": "0", "high": "100", "step": "1"}
# (row name, requested spec, answer): one spec per mechanism family.
CASES: list[tuple[str, dict[str, Any], Any]] = [
    (
        "forced_response",
        {
            "mechanism": "forced_response",
            "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
        },
        1,
    ),
    ("warner", {"mechanism": "warner", "epsilon": 1.0}, 1),
    ("grr", {"mechanism": "grr", "k": 16, "epsilon": 1.0}, 3),
    ("sue", {"mechanism": "sue", "k": 16, "epsilon": 1.0}, 3),
    ("oue", {"mechanism": "oue", "k": 16, "epsilon": 1.0}, 3),
    ("olh", {"mechanism": "olh", "k": 16, "epsilon": 1.0}, 3),
    ("hadamard", {"mechanism": "hadamard", "k": 16, "epsilon": 1.0}, 3),
    ("ordinal", {"mechanism": "ordinal", "k": 5, "epsilon": 1.0}, 2),
    ("geometric", {"mechanism": "geometric", **GRID, "epsilon": 1.0}, 50),
    ("gaussian", {"mechanism": "gaussian", **GRID, "epsilon": 1.0}, 50),
    ("duchi", {"mechanism": "duchi", **GRID, "epsilon": 1.0}, 50),
    ("piecewise", {"mechanism": "piecewise", **GRID, "epsilon": 1.0}, 50),
    ("multi_rr", {"mechanism": "multi_rr", "k": 6, "epsilon": 2.0}, [0, 3]),
    (
        "padding_sampling",
        {"mechanism": "padding_sampling", "k": 6, "ell": 3, "epsilon": 1.0},
        [0, 3],
    ),
]

# The timing code, one function text evaluated unchanged in both runtimes.
BENCH_JS = """(randomize, randomizeAll, cryptoObj, items, samples, repeat,
    batchWords, minMs) => {
  const time = (run, unit) => {
    let best = Infinity;
    for (let r = 0; r < repeat; r++) {
      let done = 0;
      const t0 = performance.now();
      let ms = 0;
      do {
        run();
        done += unit;
        ms = performance.now() - t0;
      } while (ms < minMs);
      best = Math.min(best, ms / done);
    }
    return 1000 / best;
  };
  let sink = 0;
  const rates = items.map(({ spec, answer }) => {
    for (let i = 0; i < Math.min(samples, 2000); i++) randomize(spec, answer);
    return time(() => {
      for (let i = 0; i < samples; i++) {
        const y = randomize(spec, answer);
        sink ^= typeof y === "number" ? y : y.length;
      }
    }, samples);
  });
  const batchRates = items.map(({ spec, answer }) => {
    const batch = Array.from({ length: samples }, () => ({ spec, answer }));
    randomizeAll(batch.slice(0, Math.min(samples, 2000)));
    return time(() => {
      const ys = randomizeAll(batch);
      const y = ys[ys.length - 1];
      sink ^= typeof y === "number" ? y : y.length;
    }, samples);
  });
  const buffer = new Uint32Array(batchWords);
  const baseline = time(() => {
    for (let left = samples; left > 0; left -= batchWords) {
      cryptoObj.getRandomValues(
        left >= batchWords ? buffer : buffer.subarray(0, left));
      sink ^= buffer[0];
    }
  }, samples);
  return { rates, batchRates, baseline, sink };
}"""

NODE_SCRIPT = f"""
import {{ readFileSync }} from "node:fs";
const job = JSON.parse(readFileSync(0, "utf8"));
const {{ randomize, randomizeAll }} = await import(job.module);
const bench = {BENCH_JS};
const out = bench(randomize, randomizeAll, globalThis.crypto, job.items, job.samples,
  job.repeat, job.batchWords, job.minMs);
out.runtime = "node " + process.version;
process.stdout.write(JSON.stringify(out));
"""

PAGE_SCRIPT = f"""async (job) => {{
  const {{ randomize, randomizeAll }} = await import(job.module);
  const bench = {BENCH_JS};
  const out = bench(randomize, randomizeAll, crypto, job.items, job.samples, job.repeat,
    job.batchWords, job.minMs);
  const brand = navigator.userAgent.match(/(HeadlessChrome|Chrome)\\/[0-9.]+/);
  out.runtime = brand ? brand[0] : navigator.userAgent;
  return out;
}}"""


class Missing(Exception):
    """A runtime the benchmark needs is not installed."""


def mechanisms() -> list[ldp.Mechanism]:
    return [ldp.build({"version": 1, **request}) for _, request, _ in CASES]


def domain(mechanism: ldp.Mechanism) -> str:
    """The mechanism's input domain: grid levels m, answers k (and ℓ)."""
    if hasattr(mechanism, "m"):
        return f"m={mechanism.m}"
    if mechanism.name == "padding_sampling":
        return f"k={mechanism.k},ell={mechanism.ell}"
    return f"k={mechanism.k}"


def job(module: str, samples: int) -> dict[str, Any]:
    return {
        "module": module,
        "items": [
            {"spec": mechanism.spec, "answer": answer}
            for mechanism, (_, _, answer) in zip(mechanisms(), CASES, strict=True)
        ],
        "samples": samples,
        "repeat": REPEAT,
        "batchWords": BATCH_WORDS,
        "minMs": MIN_MS,
    }


def find_node() -> str:
    path = shutil.which("node")
    if path is None:
        raise Missing(
            "node (Node.js 20+) is not on PATH; install it to benchmark the "
            "randomizer in Node"
        )
    return path


def find_chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        raise Missing(
            "Chromium is not installed (no `chromium` on PATH); install it "
            "(Debian: apt-get install chromium) to benchmark the randomizer "
            "in a browser"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        raise Missing(
            "the Playwright Python package is not installed; "
            'pip install -e ".[dev]" installs it'
        ) from None
    return path


def run_node(node: str, samples: int) -> dict[str, Any]:
    result = subprocess.run(
        [node, "--input-type=module", "-e", NODE_SCRIPT],
        input=json.dumps(job(MODULE.as_uri(), samples)),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"node failed: {result.stderr.strip()[-800:]}")
    return json.loads(result.stdout)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve_js() -> Iterator[str]:
    """``ldp/js`` over HTTP on 127.0.0.1 (a free port), in a thread."""
    handler = functools.partial(_QuietHandler, directory=str(JS_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def run_chromium(chromium: str, samples: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with serve_js() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page()
            page.goto(base + "/")
            return page.evaluate(PAGE_SCRIPT, job(base + "/randomizer.js", samples))
        finally:
            browser.close()


COLUMNS = [
    "node_per_s",
    "node_ratio",
    "node_batch_per_s",
    "node_batch_ratio",
    "chromium_per_s",
    "chromium_ratio",
    "chromium_batch_per_s",
    "chromium_batch_ratio",
]


def table(node: dict[str, Any], chromium: dict[str, Any], samples: int) -> str:
    lines = [
        f"JS randomizer reports per second, N = {samples} reports per "
        f"mechanism, best of {REPEAT}",
        f"runtimes: {node['runtime']}, {chromium['runtime']}",
        f"baseline: crypto.getRandomValues filling N 32-bit words, {BATCH_WORDS} "
        "a call (words/s); ratio = baseline words/s / reports/s (one report's "
        "time in units of one word's)",
        "per_s: one randomize() call per report; batch_per_s: one "
        "randomizeAll() call for the N reports",
        "",
    ]
    header = f"{'mechanism':<17} {'domain':<10} " + " ".join(
        f"{column:>{max(len(column), 12)}}" for column in COLUMNS
    )
    lines += [header, "-" * len(header)]
    # Per runtime, the per-call and the batch rates, each with its ratio.
    series = [
        (runtime[key], runtime["baseline"])
        for runtime in (node, chromium)
        for key in ("rates", "batchRates")
    ]
    names = [name for name, _, _ in CASES]
    domains = [domain(mechanism) for mechanism in mechanisms()]
    for index, (name, where) in enumerate(
        [*zip(names, domains, strict=True), ("baseline", "words")]
    ):
        cells = []
        for (rates, baseline), column in zip(series, COLUMNS[::2], strict=True):
            rate = baseline if name == "baseline" else rates[index]
            ratio_width = max(len(column.replace("per_s", "ratio")), 12)
            cells += [
                f"{rate:>{max(len(column), 12)}.0f}",
                f"{baseline / rate:>{ratio_width}.1f}",
            ]
        lines.append(f"{name:<17} {where:<10} " + " ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--samples",
        type=int,
        default=100_000,
        help="reports per mechanism per timing (default 100000)",
    )
    args = parser.parse_args(argv)
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    try:
        node, chromium = find_node(), find_chromium()
    except Missing as missing:
        print(f"js_samples: {missing}", file=sys.stderr)
        return 2
    print(
        table(
            run_node(node, args.samples),
            run_chromium(chromium, args.samples),
            args.samples,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
