// Shared vectors (ldp/spec/vectors.json, made by the Python reference): the
// browser module fed the same words must give the same report and consume
// exactly the same number of words.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { VECTORS_PATH, wordSource } from "./support.mjs";
import { randomize, randomizeWithSource, validateSpec } from "../../ldp/js/randomizer.js";

const document = JSON.parse(readFileSync(VECTORS_PATH, "utf8"));
const rejected = new Set();

test("vectors file covers every mechanism", () => {
  const mechanisms = new Set(document.groups.map((g) => g.spec.mechanism));
  assert.deepEqual([...mechanisms].sort(), [
    "duchi", "forced_response", "gaussian", "geometric", "grr", "hadamard", "multi_rr",
    "olh", "ordinal", "oue", "padding_sampling", "piecewise", "sue", "warner",
  ]);
});

for (const group of document.groups) {
  test(`vectors reproduce exactly: ${group.name}`, () => {
    validateSpec(group.spec);
    assert.ok(group.vectors.length > 0);
    for (const [i, v] of group.vectors.entries()) {
      const next = wordSource(v.words);
      const report = randomizeWithSource(group.spec, v.answer, next);
      const where = `${group.name} vector ${i} (answer ${JSON.stringify(v.answer)}, words ${v.words})`;
      assert.deepEqual(report, v.report, where);
      assert.equal(next.used(), v.used, `${where}: words consumed`);
      if (v.used > draws(group.spec)) rejected.add(group.spec.mechanism);
    }
  });
}

test("randomize with real crypto gives reports shaped like the vectors", () => {
  // Specs above the device's ceiling are refused before any draw (see
  // device_check.test.mjs); every other vector spec randomizes.
  const shape = (r) => (Array.isArray(r) ? `list of ${r.length}` : typeof r);
  let randomized = 0;
  for (const group of document.groups) {
    const aboveCeiling = group.check.verdict === "above_question_ceiling";
    for (const v of group.vectors) {
      if (aboveCeiling) {
        assert.throws(() => randomize(group.spec, v.answer), { code: "above_question_ceiling" });
        continue;
      }
      const report = randomize(group.spec, v.answer);
      assert.equal(shape(report), shape(v.report), group.name);
      randomized += 1;
    }
  }
  assert.ok(randomized > 0);
});

test("every mechanism that can reject has vectors that exercise rejection", () => {
  // A bound that divides 2^32 (e.g. total = 2^32 for unary) never rejects.
  const canReject = new Set(document.groups
    .filter((g) => bounds(g.spec).some((S) => 2 ** 32 % S !== 0))
    .map((g) => g.spec.mechanism));
  assert.ok(canReject.size >= 5);
  assert.deepEqual([...rejected].sort(), [...canReject].sort());
});

// The contract's uniform_below bounds, in order.
function bounds(spec) {
  const w = spec.weights;
  switch (spec.mechanism) {
    case "forced_response": return [w.truthful + w.forced_yes + w.forced_no];
    case "warner": return [w.keep + w.flip];
    case "grr": return [w.keep + (spec.k - 1) * w.other];
    case "sue": case "oue": return new Array(spec.k).fill(w.total);
    case "olh": return [w.prime, w.prime, w.keep + (w.g - 1) * w.other];
    case "hadamard": return [w.K, w.keep + w.flip];
    case "ordinal": case "geometric": case "gaussian": case "duchi": return [w.total];
    case "piecewise": return [w.width * w.high + (w.outputs - w.width) * w.low];
    case "multi_rr": return new Array(spec.k).fill(w.total);
    case "padding_sampling": return [spec.ell, w.keep + (spec.k + spec.ell - 1) * w.other];
  }
  throw new Error(spec.mechanism);
}

const draws = (spec) => bounds(spec).length;
