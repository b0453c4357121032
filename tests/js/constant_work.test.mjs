// The words consumed per report must not depend on the answer: with the same
// word stream every answer consumes exactly the same number of words (so the
// count has the same distribution whatever the answer, and timing cannot
// reveal the answer through extra draws).
import assert from "node:assert/strict";
import { test } from "node:test";
import { seededWords } from "./support.mjs";
import { randomizeWithSource } from "../../ldp/js/randomizer.js";

const TOP = 4294967295;
const specs = [
  { mechanism: "forced_response", k: 2, weights: { truthful: 2, forced_yes: 1, forced_no: 1 } },
  { mechanism: "warner", k: 2, weights: { keep: 2718281828, flip: 1000000000 } },
  { mechanism: "grr", k: 5, weights: { keep: 3, other: 1 } },
  { mechanism: "grr", k: 100, weights: { keep: 40000000, other: 14000000 } },
  { mechanism: "sue", k: 7, weights: { one_if_one: 5, one_if_zero: 2, total: 7 } },
  { mechanism: "oue", k: 16, weights: { one_if_one: 1500000000, one_if_zero: 800000000, total: 3000000000 } },
  { mechanism: "olh", k: 9, weights: { g: 4, prime: 2147483647, keep: 30, other: 10 } },
  { mechanism: "hadamard", k: 13, weights: { K: 16, keep: 3, flip: 1 } },
  { mechanism: "ordinal", k: 4, weights: { rows: [[6, 3, 2, 1], [3, 6, 2, 1], [1, 2, 6, 3], [1, 2, 3, 6]], total: 12 } },
  { mechanism: "geometric", low: "0", high: "4", step: "1", weights: { kernel: [1, 2, 4, 8, 16, 8, 4, 2, 1], total: 46 } },
  { mechanism: "gaussian", low: "-1", high: "1", step: "0.5", weights: { kernel: [1, 3, 9, 27, 81, 27, 9, 3, 1], total: 161 } },
  { mechanism: "duchi", low: "0", high: "100", step: "5", weights: { base: 1000000, slope: 300000, total: 8000000 } },
  { mechanism: "piecewise", low: "0", high: "2", step: "1", weights: { outputs: 11, width: 3, high: 2000000, low: 700000, starts: [0, 4, 8] } },
  { mechanism: "multi_rr", k: 5, weights: { one_if_one: 2000000000, one_if_zero: 1000000000, total: 3000000001 } },
  { mechanism: "padding_sampling", k: 6, ell: 3, weights: { keep: 50, other: 7 } },
].map((s) => ({ version: 1, epsilon: 1, ...s }));

const LEVELS = { geometric: 5, gaussian: 5, duchi: 21, piecewise: 3 };

// Every answer of a spec: answer indices, grid levels, or for multi-select
// selections of every size from empty to the most allowed.
function answers(s) {
  if (s.mechanism === "multi_rr" || s.mechanism === "padding_sampling") {
    const most = s.ell ?? s.k;
    const out = [[]];
    for (let size = 1; size <= most; size++) {
      out.push([...Array(size).keys()], [...Array(size).keys()].map((i) => s.k - 1 - i));
    }
    return out;
  }
  return [...Array(LEVELS[s.mechanism] ?? s.k).keys()];
}

// A stream mixing uniform words with words at the very top of the range,
// which every bound that does not divide 2^32 rejects.
function stream(seed, length) {
  const rand = seededWords(seed);
  return Array.from({ length }, () => (rand() % 4 === 0 ? TOP - (rand() % 3) : rand()));
}

test("same words consumed for every answer", () => {
  for (const s of specs) {
    for (let seed = 1; seed <= 300; seed++) {
      const words = stream(seed, 200);
      const used = [];
      for (const x of answers(s)) {
        let i = 0;
        randomizeWithSource(s, x, () => words[i++]);
        used.push(i);
      }
      assert.ok(used.every((n) => n === used[0]), `${s.mechanism} seed ${seed}: ${used}`);
    }
  }
});

test("words consumed = number of draws + rejected words", () => {
  const draws = {
    forced_response: 1, warner: 1, grr: 1, olh: 3, hadamard: 2,
    ordinal: 1, geometric: 1, gaussian: 1, duchi: 1, piecewise: 1, padding_sampling: 2,
  };
  for (const s of specs) {
    const n = draws[s.mechanism] ?? s.k;
    let i = 0;
    randomizeWithSource(s, answers(s)[0], () => (i++, 0));
    assert.equal(i, n, s.mechanism);
  }
});
