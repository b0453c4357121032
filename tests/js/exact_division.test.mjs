// The randomizer's integer division without `%` on doubles (quotient and
// remainder, read from the shipped source) is exact: checked against BigInt.
import assert from "node:assert/strict";
import { test } from "node:test";
import { moduleSource } from "./support.mjs";

function shippedFunction(name) {
  const src = moduleSource();
  const start = src.indexOf(`function ${name}(`);
  const end = src.indexOf("\n}\n", start);
  assert.ok(start >= 0 && end > start, `${name} is defined`);
  return src.slice(start, end + 2);
}

// quotient and remainder as shipped, in a scope of their own.
const { quotient, remainder } = new Function(
  `${shippedFunction("quotient")}\n${shippedFunction("remainder")}\n` +
    "return { quotient, remainder };",
)();

function check(r, Q) {
  const q = BigInt(r) / BigInt(Q);
  assert.equal(quotient(r, Q), Number(q), `quotient(${r}, ${Q})`);
  assert.equal(remainder(r, Q), Number(BigInt(r) - q * BigInt(Q)), `remainder(${r}, ${Q})`);
}

// A deterministic 32-bit generator (xorshift), so a failure is reproducible.
function words(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

test("quotient and remainder are exact for words against every bound size", () => {
  const next = words(20261127);
  for (let i = 0; i < 200000; i++) {
    const bits = 1 + (i % 32);
    const Q = 1 + (next() % 2 ** bits);
    check(next(), Q);
  }
});

test("quotient and remainder are exact next to multiples up to 2^53", () => {
  const next = words(7);
  for (let i = 0; i < 50000; i++) {
    const Q = 1 + (next() % 2 ** (1 + (i % 32)));
    const most = Math.floor((2 ** 53 - Q) / Q) - 1;
    const k = Math.floor((next() / 2 ** 32) * most);
    for (const r of [k * Q - 1, k * Q, k * Q + 1]) if (r >= 0 && r + Q <= 2 ** 53) check(r, Q);
  }
});

test("quotient and remainder are exact at the ends of the word range", () => {
  for (const Q of [1, 2, 3, 7, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32]) {
    for (const r of [0, 1, Q - 1, Q, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 52 - 1, 2 ** 53 - Q]) {
      if (r >= 0 && r + Q <= 2 ** 53) check(r, Q);
    }
  }
});
