// Fail closed, batched secure randomness, and a scan of the shipped source.
import assert from "node:assert/strict";
import { test } from "node:test";
import { moduleSource } from "./support.mjs";
import { randomize } from "../../ldp/js/randomizer.js";

const GRR = { version: 1, mechanism: "grr", k: 5, epsilon: 1, weights: { keep: 27, other: 10 } };
// One spec per mechanism added with the ordinal/numeric/multi-select section.
const NEW = [
  [{ mechanism: "ordinal", k: 3, weights: { rows: [[5, 2, 1], [2, 4, 2], [1, 2, 5]], total: 8 } }, 1],
  [{ mechanism: "geometric", low: "0", high: "2", step: "1", weights: { kernel: [1, 2, 4, 2, 1], total: 10 } }, 2],
  [{ mechanism: "gaussian", low: "0", high: "1", step: "0.5", weights: { kernel: [1, 3, 5, 3, 1], total: 13 } }, 0],
  [{ mechanism: "duchi", low: "0", high: "10", step: "5", weights: { base: 3, slope: 2, total: 10 } }, 2],
  [{ mechanism: "piecewise", low: "0", high: "1", step: "1", weights: { outputs: 4, width: 2, high: 3, low: 1, starts: [0, 2] } }, 1],
  [{ mechanism: "multi_rr", k: 3, epsilon_per_option: 1.5, weights: { one_if_one: 3, one_if_zero: 1, total: 4 } }, [0, 2]],
  [{ mechanism: "padding_sampling", k: 4, ell: 2, weights: { keep: 5, other: 1 } }, [3]],
].map(([s, answer]) => [{ version: 1, epsilon: 4.5, ...s }, answer]);
// (ε = 4.5 declared: at least what each toy spec's weights deliver, below
// the device's ceiling, so randomize() accepts them.)

// Run fn with globalThis.crypto replaced by `descriptor` (or deleted when
// undefined), restoring the original afterwards.
function withCrypto(descriptor, fn) {
  const original = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  try {
    if (descriptor === undefined) delete globalThis.crypto;
    else Object.defineProperty(globalThis, "crypto", { configurable: true, ...descriptor });
    return fn();
  } finally {
    Object.defineProperty(globalThis, "crypto", original);
  }
}

test("fails closed when crypto.getRandomValues is missing", () => {
  randomize(GRR, 1); // the pool now holds words: they must not be used
  const cases = [
    undefined, // deleted
    { value: undefined },
    { value: {} },
    { value: { getRandomValues: "not a function" } },
  ];
  for (const descriptor of cases) {
    withCrypto(descriptor, () => {
      assert.equal(globalThis.crypto?.getRandomValues instanceof Function, false);
      assert.throws(() => randomize(GRR, 1), /no secure random source/);
    });
  }
  assert.ok(Number.isInteger(randomize(GRR, 1)), "works again once restored");
});

test("fails closed for every ordinal, numeric and multi-select mechanism", () => {
  for (const [spec, answer] of NEW) {
    randomize(spec, answer); // works with crypto
    withCrypto(undefined, () => {
      assert.throws(() => randomize(spec, answer), /no secure random source/, spec.mechanism);
    });
  }
});

test("a failing secure source propagates; there is no fallback", () => {
  const broken = {
    getRandomValues() {
      throw new Error("entropy unavailable");
    },
  };
  withCrypto({ value: broken }, () => {
    assert.throws(() => {
      for (let i = 0; i < 20000; i++) randomize(GRR, 1); // forces a refill
    }, /entropy unavailable/);
  });
});

test("fetches words in batches of at most 16384 per call", () => {
  const real = globalThis.crypto;
  const sizes = [];
  const counting = {
    getRandomValues(array) {
      sizes.push(array.length);
      return real.getRandomValues(array);
    },
  };
  withCrypto({ value: counting }, () => {
    for (let i = 0; i < 100000; i++) randomize(GRR, i % 5); // ~1 word each
  });
  assert.ok(sizes.length >= 6 && sizes.length <= 8, `calls: ${sizes.length}`);
  assert.ok(sizes.every((n) => n === 16384), `batch sizes ${sizes}`);
});

test("does not touch Math.random", () => {
  const original = Math.random;
  Math.random = () => {
    throw new Error("Math.random used");
  };
  try {
    for (let i = 0; i < 1000; i++) randomize(GRR, i % 5);
    for (const [spec, answer] of NEW) for (let i = 0; i < 100; i++) randomize(spec, answer);
  } finally {
    Math.random = original;
  }
});

// Source with comments removed (the comments explain what we avoid).
function code() {
  return moduleSource()
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .split("\n")
    .map((line) => line.replace(/\/\/.*$/, ""))
    .join("\n");
}

test("source: no Math.random/exp/log, no float noise, no imports", () => {
  const src = code();
  for (const banned of [/Math\.random/, /Math\.exp/, /Math\.log/, /Math\.pow/, /\*\*/,
    /\bimport\b/, /\brequire\s*\(/, /Date\.now|performance\./, /\beval\b|Function\(/]) {
    assert.doesNotMatch(src, banned);
  }
  assert.match(src, /getRandomValues/);
});

test("source: a raw word is reduced only inside the rejection routine", () => {
  const src = code();
  const start = src.indexOf("function uniformBelow(");
  const end = src.indexOf("\n}\n", start);
  assert.ok(start >= 0 && end > start, "uniformBelow is defined");
  const body = src.slice(start, end);
  assert.match(body, /if \(u < limit\) return remainder\(u, S\);/);
  // Outside it, no `%` at all, and the exact remainder only on values
  // uniformBelow already returned: the OLH hash (and remainder's own body).
  const outside = (src.slice(0, start) + src.slice(end))
    .split("\n")
    .filter((line) => line.includes("%") || line.includes("remainder("))
    .map((line) => line.trim());
  assert.deepEqual(outside, [
    "function remainder(r, Q) {",
    "const h = remainder(remainder(a * x + b, w.prime), w.g);",
  ]);
});
