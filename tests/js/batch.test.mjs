// randomizeAll: several answers in one call, with the spec, answer and
// secure-source checks randomize makes, the source checked once per call
// after everything the call reads from its caller.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SpecRefused, randomize, randomizeAll } from "../../ldp/js/randomizer.js";

const GRR = { version: 1, mechanism: "grr", k: 5, epsilon: 1, weights: { keep: 27, other: 10 } };
const MULTI = { version: 1, mechanism: "multi_rr", k: 3, epsilon: 4.5, epsilon_per_option: 1.5, weights: { one_if_one: 3, one_if_zero: 1, total: 4 } };
const GRID = { version: 1, mechanism: "duchi", low: "0", high: "10", step: "5", epsilon: 4.5, weights: { base: 3, slope: 2, total: 10 } };

// Run fn with globalThis.crypto deleted, restoring it afterwards.
function withoutCrypto(fn) {
  const original = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  try {
    delete globalThis.crypto;
    return fn();
  } finally {
    Object.defineProperty(globalThis, "crypto", original);
  }
}

test("randomizeAll returns one valid report per item, in order", () => {
  const reports = randomizeAll([
    { spec: GRR, answer: 4 },
    { spec: MULTI, answer: [0, 2] },
    { spec: GRID, answer: 1 },
    { spec: GRR, answer: 0 },
  ]);
  assert.equal(reports.length, 4);
  assert.ok(Number.isInteger(reports[0]) && reports[0] >= 0 && reports[0] < 5);
  assert.ok(Array.isArray(reports[1]) && reports[1].length === 3 && reports[1].every((b) => b === 0 || b === 1));
  assert.ok(reports[2] === 0 || reports[2] === 1);
  assert.ok(Number.isInteger(reports[3]) && reports[3] >= 0 && reports[3] < 5);
  assert.deepEqual(randomizeAll([]), []);
});

test("randomizeAll keeps the true answer as often as the weights say", () => {
  // P(report = truth) = 27 / (27 + 4 * 10) = 27/67; 5 standard errors.
  const n = 20000;
  const reports = randomizeAll(Array.from({ length: n }, () => ({ spec: GRR, answer: 2 })));
  const kept = reports.filter((y) => y === 2).length;
  const p = 27 / 67;
  assert.ok(Math.abs(kept / n - p) < 5 * Math.sqrt((p * (1 - p)) / n), `kept ${kept} of ${n}`);
});

test("one invalid answer anywhere in the list refuses the whole call", () => {
  const items = [{ spec: GRR, answer: 1 }, { spec: GRR, answer: 5 }];
  assert.throws(() => randomizeAll(items), /answer must be an integer in \[0, 5\), got 5/);
  assert.throws(() => randomizeAll([{ spec: MULTI, answer: [0, 0] }]), /selected more than once/);
  assert.throws(() => randomizeAll([{ spec: MULTI, answer: 1 }]), /list of distinct option indices/);
});

test("a spec the device will not run refuses the whole call", () => {
  const tooStrong = { ...GRR, epsilon: 9, weights: { keep: 1000, other: 1 } };
  assert.throws(() => randomizeAll([{ spec: GRR, answer: 1 }, { spec: tooStrong, answer: 1 }]),
    (error) => error instanceof SpecRefused && error.code === "above_question_ceiling");
});

test("anything but a list of {spec, answer} is refused with its reason", () => {
  assert.throws(() => randomizeAll({ spec: GRR, answer: 1 }), /needs a list of \{spec, answer\}/);
  assert.throws(() => randomizeAll([null]), /item 0 is not a \{spec, answer\}/);
});

test("randomizeAll fails closed when crypto.getRandomValues is missing", () => {
  randomize(GRR, 1); // the pool now holds words: they must not be used
  withoutCrypto(() => {
    assert.throws(() => randomizeAll([{ spec: GRR, answer: 1 }]), /no secure random source/);
    assert.throws(() => randomizeAll([]), /no secure random source/);
  });
  assert.equal(randomizeAll([{ spec: GRR, answer: 1 }]).length, 1, "works again once restored");
});

test("a script run while the call reads its items cannot get past the source check", () => {
  // The last item's answer is a getter that removes the secure source: the
  // check comes after every read, so the call refuses and makes no report.
  const original = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  const hostile = {
    spec: GRR,
    get answer() {
      delete globalThis.crypto;
      return 1;
    },
  };
  try {
    assert.throws(() => randomizeAll([{ spec: GRR, answer: 0 }, hostile]), /no secure random source/);
  } finally {
    Object.defineProperty(globalThis, "crypto", original);
  }
});
