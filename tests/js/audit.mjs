// Statistical audit, Node side: run the SHIPPED randomizer (or a mutant of
// it) with real crypto randomness and print outcome counts as JSON. The
// Python side (tests/ldp/test_js_audit.py) turns counts into ε lower bounds,
// goodness-of-fit tests and gates.
//
// Usage: node audit.mjs MODULE_PATH N < specs.json
//   specs.json: a JSON list, each item a compiled spec (inputs: every answer
//   0 … k-1) or {"spec": compiled spec, "inputs": [answers]} (grid levels,
//   or selections for multi-select).
// Output: a JSON list, one entry per spec, each {"inputs": [counts per x]}
// (or {"error": message} if the module threw). Counts per input x:
//   forced_response, warner, grr: "hist"[y] = #reports equal to y
//   sue, oue: "hist"[pattern] with pattern = sum of bit_i << i
//   hadamard: "hist"[2 j + bit]
//   olh: "support"[v] = #(y == h(v)); "joint"[v*k + w] = #(y == h(v) and
//        h(v) != h(w)); "offset"[d] = #((y - h(x)) mod g == d)
//   ordinal, geometric, gaussian, duchi, piecewise, padding_sampling:
//        "hist"[y] = #reports equal to y
//   multi_rr: "hist"[pattern] with pattern = sum of bit_i << i
//   every entry: "invalid" = #reports outside the output domain.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [modulePath, nArg] = process.argv.slice(2);
const N = Number(nArg);
const { randomize } = await import(pathToFileURL(resolve(modulePath)).href);
const specs = JSON.parse(readFileSync(0, "utf8"));

const isBit = (b) => b === 0 || b === 1;

function countHist(spec, x, size, index) {
  const hist = new Array(size).fill(0);
  let invalid = 0;
  for (let n = 0; n < N; n++) {
    const i = index(randomize(spec, x));
    if (Number.isInteger(i) && i >= 0 && i < size) hist[i]++;
    else invalid++;
  }
  return { hist, invalid };
}

function countOlh(spec, x) {
  const { g, prime } = spec.weights;
  const k = spec.k;
  const support = new Array(k).fill(0);
  const joint = new Array(k * k).fill(0);
  const offset = new Array(g).fill(0);
  const h = new Array(k);
  let invalid = 0;
  for (let n = 0; n < N; n++) {
    const r = randomize(spec, x);
    const [a, b, y] = r;
    if (r.length !== 3 || !(a >= 0 && a < prime && b >= 0 && b < prime && y >= 0 && y < g)) {
      invalid++;
      continue;
    }
    for (let v = 0; v < k; v++) h[v] = ((a * v + b) % prime) % g;
    offset[(y - h[x] + g) % g]++;
    for (let v = 0; v < k; v++) {
      if (y !== h[v]) continue;
      support[v]++;
      for (let w = 0; w < k; w++) if (h[w] !== h[v]) joint[v * k + w]++;
    }
  }
  return { support, joint, offset, invalid };
}

// Number of possible reports of a mechanism with one integer report.
function outputCount(spec) {
  const w = spec.weights;
  switch (spec.mechanism) {
    case "forced_response": case "warner": return 2;
    case "grr": case "ordinal": return spec.k;
    case "geometric": case "gaussian": return (w.kernel.length + 1) / 2;
    case "duchi": return 2;
    case "piecewise": return w.outputs;
    case "padding_sampling": return spec.k + spec.ell;
  }
  return undefined;
}

function countInput(spec, x) {
  const k = spec.k ?? 2;
  const size = outputCount(spec);
  if (size !== undefined) {
    return countHist(spec, x, size, (y) => (typeof y === "number" ? y : -1));
  }
  switch (spec.mechanism) {
    case "sue":
    case "oue":
    case "multi_rr":
      return countHist(spec, x, 2 ** k, (bits) =>
        bits.length === k && bits.every(isBit) ? bits.reduce((p, b, i) => p + b * 2 ** i, 0) : -1);
    case "hadamard": {
      const K = spec.weights.K;
      return countHist(spec, x, 2 * K, ([j, bit]) =>
        Number.isInteger(j) && j >= 0 && j < K && isBit(bit) ? 2 * j + bit : -1);
    }
    case "olh":
      return countOlh(spec, x);
  }
  throw new Error(`no audit for ${spec.mechanism}`);
}

const out = specs.map((item) => {
  try {
    const spec = item.spec ?? item;
    const inputs = item.inputs ?? Array.from({ length: spec.k ?? 2 }, (_, x) => x);
    return { inputs: inputs.map((x) => countInput(spec, x)) };
  } catch (err) {
    return { error: String(err && err.message ? err.message : err) };
  }
});
process.stdout.write(JSON.stringify(out));
