"""The device's wording per language: time to word a survey, against English.

Usage::

    python benchmarks/wording_languages.py [--rounds N]

Runs the shipped ``ldp/js/wording.js`` in Node (``node`` on PATH): for every
runnable spec of the shared test vectors, the question's words
(``describeQuestion``: label, main sentence, odds, ε) and the one-question
survey's (``describeSurvey``), N rounds, best of three timings, for each
language the device knows.

Baseline, measured in the same run with the same timing: the same work in
English (``wordingFor("en")``).  The ratio is the language's time over
English's: what writing numbers with ``Intl.NumberFormat`` and choosing plural
forms costs beyond English's own (which uses them too).  A last row gives the
module's size and the time to import it afresh (one new module instance).
``--module`` measures another copy of ``wording.js`` (an earlier release's, with
English alone, gives a before/after comparison of the English row).

Prints one plain-text table; exits 2 with a message on stderr if node is
missing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDING = ROOT / "ldp" / "js" / "wording.js"
RANDOMIZER = ROOT / "ldp" / "js" / "randomizer.js"
VECTORS = ROOT / "ldp" / "spec" / "vectors.json"
REPEAT = 3

SCRIPT = """
import { readFileSync } from "node:fs";
const [wordingUrl, randomizerUrl, vectorsPath, rounds, repeat] = process.argv.slice(1);
const { checkSpec, checkSurvey } = await import(randomizerUrl);
const started = performance.now();
const wording = await import(wordingUrl + "?fresh");
const importMs = performance.now() - started;
const groups = JSON.parse(readFileSync(vectorsPath, "utf8")).groups
  .filter((g) => g.check.verdict === "ok");
const cases = groups.map((g) => [g.spec, checkSpec(g.spec), checkSurvey([g.spec], 0)]);
function time(words) {
  let best = Infinity;
  for (let r = 0; r < Number(repeat); r++) {
    const start = performance.now();
    let length = 0;
    for (let i = 0; i < Number(rounds); i++) {
      for (const [spec, verdict, survey] of cases) {
        const q = words.describeQuestion(spec, verdict);
        length += q.sentence.length + words.describeSurvey(survey).odds.length;
      }
    }
    best = Math.min(best, performance.now() - start);
    if (length === 0) throw new Error("no words");
  }
  return best;
}
// A module from before the languages (no wordingFor) is English alone.
const languages = wording.SUPPORTED_LANGUAGES ?? ["en"];
const wordsOf = (language) =>
  wording.wordingFor ? wording.wordingFor(language) : wording;
for (const language of languages) time(wordsOf(language)); // warm-up, every language
const rows = {};
for (const language of languages) rows[language] = Infinity;
for (let pass = 0; pass < 3; pass++) {
  for (const language of languages) {
    rows[language] = Math.min(rows[language], time(wordsOf(language)));
  }
}
console.log(JSON.stringify({ rows, importMs, specs: cases.length }));
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument(
        "--module",
        type=Path,
        default=WORDING,
        help="a wording.js to measure instead of the shipped one (e.g. an "
        "earlier release's, for a before/after comparison)",
    )
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        print("node (Node.js 20+) is required", file=sys.stderr)
        return 2
    done = subprocess.run(
        [
            node,
            "--input-type=module",
            "-e",
            SCRIPT,
            args.module.resolve().as_uri(),
            RANDOMIZER.as_uri(),
            str(VECTORS),
            str(args.rounds),
            str(REPEAT),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    rows = result["rows"]
    words = args.rounds * result["specs"]
    print(f"wording of {result['specs']} vector specs x {args.rounds} rounds")
    print(f"{'language':<10}{'ms':>10}{'µs/spec':>10}{'ratio':>8}")
    for language, ms in rows.items():
        per = 1000 * ms / words
        print(f"{language:<10}{ms:>10.1f}{per:>10.2f}{ms / rows['en']:>8.2f}")
    size = args.module.stat().st_size
    print(f"module: {size:,} bytes, imported in {result['importMs']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
