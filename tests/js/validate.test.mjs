// validateSpec refuses, with a clear message, any spec the module can't run.
import assert from "node:assert/strict";
import { test } from "node:test";
import { randomize, randomizeWithSource, validateSpec } from "../../ldp/js/randomizer.js";

const good = {
  version: 1, mechanism: "grr", k: 5, epsilon: 1, weights: { keep: 27, other: 10 },
};
const with_ = (patch) => ({ ...good, ...patch });

test("accepts a compiled spec and returns k", () => {
  assert.equal(validateSpec(good), 5);
  assert.equal(validateSpec(good, 4), 5);
  assert.equal(validateSpec({ version: 1, mechanism: "warner", epsilon: 1, weights: { keep: 3, flip: 1 } }), 2);
});

test("refuses what it cannot run", () => {
  const cases = [
    [null, /spec must be an object/],
    [with_({ version: 2 }), /version 2 is not supported/],
    [with_({ version: undefined }), /version undefined is not supported/],
    [with_({ mechanism: "laplace" }), /unknown mechanism "laplace"/],
    [with_({ mechanism: "__proto__" }), /unknown mechanism/],
    [with_({ weights: undefined }), /no weights object/],
    [with_({ weights: { keep: 27 } }), /weights.other must be an integer >= 1, got undefined/],
    [with_({ weights: { keep: 27, other: 0 } }), /weights.other must be an integer >= 1, got 0/],
    [with_({ weights: { keep: 2.5, other: 1 } }), /weights.keep must be an integer >= 1, got 2.5/],
    [with_({ weights: { keep: "27", other: 1 } }), /weights.keep must be an integer >= 1/],
    [with_({ weights: { keep: 2 ** 32, other: 1 } }), /exceeds 2\^32/],
    [with_({ k: 1 }), /k must be an integer in \[2, 4096\]/],
    [with_({ k: 5000 }), /k must be an integer in \[2, 4096\]/],
    [{ ...good, mechanism: "warner", k: 3, weights: { keep: 3, flip: 1 } }, /k must be 2/],
    [{ ...good, mechanism: "hadamard", k: 5, weights: { K: 4, keep: 3, flip: 1 } }, /weights.K must be 8/],
    [{ ...good, mechanism: "oue", k: 5, weights: { one_if_one: 4, one_if_zero: 1, total: 4 } }, /one_if_one = 4 must be below total/],
    [{ ...good, mechanism: "olh", weights: { g: 4, prime: 7, keep: 3, other: 1 } }, /weights.prime must be 2147483647/],
    [{ ...good, mechanism: "olh", weights: { g: 70000, prime: 2147483647, keep: 3, other: 1 } }, /weights.g must be in/],
  ];
  for (const [spec, message] of cases) {
    assert.throws(() => validateSpec(spec), message, JSON.stringify(spec));
    assert.throws(() => randomize(spec, 0), message);
  }
});

test("refuses answers outside [0, k)", () => {
  for (const answer of [-1, 5, 1.5, "1", true, null, NaN]) {
    assert.throws(() => validateSpec(good, answer), /answer must be an integer in \[0, 5\)/);
    assert.throws(() => randomize(good, answer), /answer must be an integer/);
  }
});

test("refuses a source that does not return 32-bit words", () => {
  for (const word of [-1, 2 ** 32, 0.5, "7", undefined]) {
    assert.throws(() => randomizeWithSource(good, 0, () => word), /not a 32-bit word/);
  }
});

// ------------------------------------ ordinal, numeric and multi-select

// Declared ε values are at least what each toy spec's weights deliver (the
// device refuses a spec whose weights deliver more than it declares).
const ORDINAL = {
  version: 1, mechanism: "ordinal", k: 3, epsilon: 2,
  weights: { rows: [[5, 2, 1], [2, 4, 2], [1, 2, 5]], total: 8 },
};
const GEOMETRIC = {
  version: 1, mechanism: "geometric", low: "0", high: "10", step: "5", epsilon: 4.5,
  weights: { kernel: [1, 2, 4, 2, 1], total: 10 },
};
const DUCHI = { ...GEOMETRIC, mechanism: "duchi", weights: { base: 3, slope: 2, total: 10 } };
const PIECEWISE = {
  ...GEOMETRIC, mechanism: "piecewise",
  weights: { outputs: 7, width: 3, high: 5, low: 2, starts: [0, 2, 4] },
};
const MULTI = {
  version: 1, mechanism: "multi_rr", k: 4, epsilon: 4.5, epsilon_per_option: 1.1,
  weights: { one_if_one: 3, one_if_zero: 1, total: 4 },
};
const PADDING = { version: 1, mechanism: "padding_sampling", k: 5, ell: 2, epsilon: 1.5, weights: { keep: 9, other: 2 } };
const weights = (s, patch) => ({ ...s, weights: { ...s.weights, ...patch } });

test("accepts the new mechanisms and returns k or the grid's m", () => {
  assert.equal(validateSpec(ORDINAL, 2), 3);
  assert.equal(validateSpec(GEOMETRIC, 2), 3);
  assert.equal(validateSpec({ ...GEOMETRIC, mechanism: "gaussian" }, 0), 3);
  assert.equal(validateSpec(DUCHI, 1), 3);
  assert.equal(validateSpec(PIECEWISE, 1), 3);
  assert.equal(validateSpec(MULTI, []), 4);
  assert.equal(validateSpec(MULTI, [3, 0, 1, 2]), 4);
  assert.equal(validateSpec(PADDING, [4, 1]), 5);
  assert.equal(validateSpec(PADDING, []), 5);
  // Decimal grids are computed exactly: 0.1 .. 0.3 by 0.1 is 3 levels.
  const tenths = { ...GEOMETRIC, low: "0.1", high: "0.3", step: "0.1" };
  assert.equal(validateSpec(tenths), 3);
  const negative = { ...DUCHI, low: "-2.5", high: "97.5", step: "0.1", weights: { base: 1, slope: 1, total: 1002 } };
  assert.equal(validateSpec(negative), 1001);
});

test("refuses malformed ordinal, numeric and multi-select specs", () => {
  const cases = [
    [{ ...ORDINAL, k: 102 }, /k must be an integer in \[2, 101\]/],
    [weights(ORDINAL, { rows: [[5, 2, 1], [2, 4, 2]] }), /weights.rows must be a list of k = 3 rows/],
    [weights(ORDINAL, { rows: [[5, 2, 1], [2, 4, 2], [1, 2, 6]] }), /weights.rows\[2\] sums to 9, not total = 8/],
    [weights(ORDINAL, { rows: [[5, 2, 1], [2, 6, 0], [1, 2, 5]] }), /weights.rows\[1\]\[2\] must be an integer in \[1, total\], got 0/],
    [weights(ORDINAL, { rows: [[5, 2, 1], [2, 4], [1, 2, 5]] }), /weights.rows\[1\] must be a list of 3 integers/],
    [{ ...GEOMETRIC, low: 0 }, /low must be a decimal string/],
    [{ ...GEOMETRIC, step: "1e1" }, /step must be a decimal string/],
    [{ ...GEOMETRIC, step: "0" }, /need step > 0 dividing high - low > 0/],
    [{ ...GEOMETRIC, step: "3" }, /need step > 0 dividing high - low > 0/],
    [{ ...GEOMETRIC, high: "0" }, /need step > 0 dividing high - low > 0/],
    [{ ...GEOMETRIC, high: "1001", step: "1" }, /grid has 1002 levels; at most 1001 allowed/],
    [weights(GEOMETRIC, { kernel: [1, 2, 4, 2] }), /weights.kernel must be a list of 5 integers, got 4 items/],
    [weights(GEOMETRIC, { total: 11 }), /weights.kernel sums to 10, not total = 11/],
    [weights(GEOMETRIC, { kernel: [1, 2, 4.5, 2, 0.5] }), /weights.kernel\[2\] must be an integer/],
    [weights({ ...GEOMETRIC, mechanism: "gaussian" }, { kernel: undefined }), /weights.kernel must be a list/],
    [weights(GEOMETRIC, { total: 2 ** 32 + 1 }), /total = 4294967297 exceeds 2\^32/],
    [weights(DUCHI, { total: 11 }), /must equal 2\*base \+ \(m-1\)\*slope = 10/],
    [weights(DUCHI, { slope: 0 }), /weights.slope must be an integer >= 1, got 0/],
    [weights(PIECEWISE, { width: 7 }), /weights.width = 7 must be below outputs = 7/],
    [weights(PIECEWISE, { starts: [0, 2] }), /weights.starts must be a list of m = 3 integers/],
    [weights(PIECEWISE, { starts: [0, 2, 5] }), /weights.starts\[2\] must be an integer in \[0, outputs - width = 4\], got 5/],
    [weights(PIECEWISE, { starts: [0, -1, 4] }), /weights.starts\[1\] must be an integer/],
    [weights(PIECEWISE, { high: 2 ** 31 }), /exceeds 2\^32/],
    [{ ...MULTI, k: 65 }, /k must be an integer in \[2, 64\]/],
    [weights(MULTI, { one_if_zero: 4 }), /one_if_zero = 4 must be below total/],
    [{ ...PADDING, ell: 0 }, /ell must be an integer in \[1, k = 5\], got 0/],
    [{ ...PADDING, ell: 6 }, /ell must be an integer in \[1, k = 5\], got 6/],
    [{ ...PADDING, ell: undefined }, /ell must be an integer/],
    [weights(PADDING, { other: 2 ** 30 }), /keep \+ \(k\+ell-1\)\*other = .* exceeds 2\^32/],
  ];
  for (const [spec, message] of cases) {
    assert.throws(() => validateSpec(spec), message, JSON.stringify(spec));
    assert.throws(() => randomize(spec, 0), message);
  }
});

test("refuses answers outside the levels and bad selections", () => {
  for (const spec of [ORDINAL, GEOMETRIC, DUCHI, PIECEWISE]) {
    for (const answer of [-1, 3, 1.5, "1", true, null, [1]]) {
      assert.throws(() => validateSpec(spec, answer), /answer must be an integer in \[0, 3\)/);
      assert.throws(() => randomize(spec, answer), /answer must be an integer/);
    }
  }
  const selections = [
    [MULTI, 1, /answer must be a list of distinct option indices in \[0, 4\), got 1/],
    [MULTI, [0, 4], /answer\[1\] = 4 is not an option index in \[0, 4\)/],
    [MULTI, [-1], /answer\[0\] = -1 is not an option index/],
    [MULTI, [1.5], /answer\[0\] = 1.5 is not an option index/],
    [MULTI, [true], /answer\[0\] = true is not an option index/],
    [MULTI, ["2"], /answer\[0\] = "2" is not an option index/],
    [MULTI, [2, 0, 2], /option 2 is selected more than once/],
    [MULTI, [0, 1, 2, 3, 0], /at most 4 options may be selected, got 5/],
    [PADDING, [0, 1, 2], /at most 2 options may be selected, got 3/],
    [PADDING, [3, 3], /option 3 is selected more than once/],
    [PADDING, [5], /answer\[0\] = 5 is not an option index in \[0, 5\)/],
    [PADDING, null, /answer must be a list/],
  ];
  for (const [spec, answer, message] of selections) {
    assert.throws(() => validateSpec(spec, answer), message, JSON.stringify(answer));
    assert.throws(() => randomize(spec, answer), message);
  }
});

test("multi-select randomizing leaves the caller's selection untouched", () => {
  const selection = [4, 0];
  randomize(PADDING, selection);
  randomize(MULTI, [3, 1]);
  assert.deepEqual(selection, [4, 0]);
});

test("randomize reads a spec once per page and still checks every answer", () => {
  let reads = 0;
  const spec = new Proxy(structuredClone(good), {
    get(target, key, receiver) {
      reads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  randomize(spec, 1);
  const afterFirst = reads;
  assert.ok(afterFirst > 0);
  for (let i = 0; i < 100; i++) randomize(spec, i % 5);
  assert.equal(reads, afterFirst, "the checked copy is sampled; the spec is not read again");
  assert.throws(() => randomize(spec, 5), /answer must be an integer in \[0, 5\)/);
  assert.throws(() => randomize(spec, 1.5), /answer must be an integer/);
});
