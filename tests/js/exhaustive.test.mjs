// Exhaustive word test: in a 16-bit test build of the shipped module (the
// word space 2^32 replaced by 2^16, the OLH prime by 65521, the largest prime
// below 2^16), feed every one of the 2^16 words to one draw of a report while
// the other draws are fixed. The accepted words must give each residue of the
// draw's bound S exactly m = floor(2^16 / S) times, so the output histogram
// must equal m x the integer weights: exact integer equality, no statistics.
import assert from "node:assert/strict";
import { test } from "node:test";
import { importSource, moduleSource, replaceOnce } from "./support.mjs";

const SPACE = 65536;
const PRIME16 = 65521;

async function build16() {
  let src = moduleSource();
  src = replaceOnce(src, "const WORD_SPACE = 4294967296;", `const WORD_SPACE = ${SPACE};`);
  src = replaceOnce(src, "const OLH_PRIME = 2147483647;", `const OLH_PRIME = ${PRIME16};`);
  return importSource(src, "build16");
}
const mod = await build16();

const spec = (mechanism, k, weights) => ({ version: 1, mechanism, k, epsilon: 1, weights });

// Run every word u in [0, 2^16) as draw number `position`; the other draws get
// the words in `fixed` (which must be accepted words). Returns the reports of
// the accepted words and the number of rejected ones (a rejected word makes
// the sampler take one extra word).
function enumerate(s, answer, position, fixed, draws) {
  const reports = [];
  let rejected = 0;
  for (let u = 0; u < SPACE; u++) {
    const words = [...fixed.slice(0, position), u, ...fixed.slice(position), 0];
    let i = 0;
    const report = mod.randomizeWithSource(s, answer, () => words[i++]);
    if (i === draws) reports.push(report);
    else {
      assert.equal(i, draws + 1, "a rejected word costs exactly one extra word");
      rejected++;
    }
  }
  return { reports, rejected };
}

function histogram(values, n) {
  const h = new Array(n).fill(0);
  for (const v of values) h[v]++;
  return h;
}

function checkRejections(rejected, S) {
  assert.equal(rejected, SPACE % S, `exactly 2^16 mod ${S} words are rejected`);
}

test("forced response and warner: histogram equals m x weights", () => {
  for (const w of [{ truthful: 2, forced_yes: 1, forced_no: 1 }, { truthful: 5, forced_yes: 3, forced_no: 4 }]) {
    const s = spec("forced_response", 2, w);
    const S = w.truthful + w.forced_yes + w.forced_no;
    const m = Math.floor(SPACE / S);
    for (const x of [0, 1]) {
      const { reports, rejected } = enumerate(s, x, 0, [], 1);
      checkRejections(rejected, S);
      const yes = w.forced_yes + (x === 1 ? w.truthful : 0);
      assert.deepEqual(histogram(reports, 2), [m * (S - yes), m * yes]);
    }
  }
  const w = { keep: 11, flip: 4 };
  const m = Math.floor(SPACE / 15);
  for (const x of [0, 1]) {
    const { reports, rejected } = enumerate(spec("warner", 2, w), x, 0, [], 1);
    checkRejections(rejected, 15);
    assert.deepEqual(histogram(reports, 2), x === 1 ? [m * 4, m * 11] : [m * 11, m * 4]);
  }
});

test("grr: histogram equals m x weights for every answer", () => {
  for (const [k, P, Q] of [[2, 3, 1], [5, 7, 3], [100, 250, 3]]) {
    const S = P + (k - 1) * Q;
    const m = Math.floor(SPACE / S);
    for (let x = 0; x < k; x += k > 5 ? 33 : 1) {
      const { reports, rejected } = enumerate(spec("grr", k, { keep: P, other: Q }), x, 0, [], 1);
      checkRejections(rejected, S);
      const want = Array.from({ length: k }, (_, y) => m * (y === x ? P : Q));
      assert.deepEqual(histogram(reports, k), want);
    }
  }
});

test("sue/oue: each bit's histogram equals m x weights, other bits untouched", () => {
  for (const [mech, k, A1, A0, S] of [["sue", 4, 5, 2, 7], ["oue", 3, 50, 13, 100]]) {
    const s = spec(mech, k, { one_if_one: A1, one_if_zero: A0, total: S });
    const m = Math.floor(SPACE / S);
    for (let x = 0; x < k; x++) {
      for (let pos = 0; pos < k; pos++) {
        // Fixed word 0 gives v = 0 < A, so every other bit is 1.
        const { reports, rejected } = enumerate(s, x, pos, new Array(k - 1).fill(0), k);
        checkRejections(rejected, S);
        const A = pos === x ? A1 : A0;
        assert.deepEqual(histogram(reports.map((r) => r[pos]), 2), [m * (S - A), m * A]);
        for (const r of reports) r.forEach((bit, i) => i === pos || assert.equal(bit, 1));
      }
    }
  }
});

test("olh: hash seeds uniform over the prime, value histogram equals m x weights", () => {
  const g = 5, P = 9, Q = 2, S = P + (g - 1) * Q;
  const s = spec("olh", 6, { g, prime: PRIME16, keep: P, other: Q });
  const m = Math.floor(SPACE / S);
  for (const x of [0, 3, 5]) {
    // a and b: every value in [0, prime) exactly once (m = 1).
    for (const pos of [0, 1]) {
      const { reports, rejected } = enumerate(s, x, pos, [12345, 777], 3);
      checkRejections(rejected, PRIME16);
      const h = histogram(reports.map((r) => r[pos]), PRIME16);
      assert.ok(h.every((c) => c === 1), "each seed value exactly once");
    }
    // y: for a few fixed seeds, exact weights around h = ((a x + b) mod p) mod g.
    for (const [a, b] of [[0, 0], [1, 4], [65520, 65520], [31337, 4242]]) {
      const { reports, rejected } = enumerate(s, x, 2, [a, b], 3);
      checkRejections(rejected, S);
      const hx = ((a * x + b) % PRIME16) % g;
      for (const r of reports) assert.deepEqual(r.slice(0, 2), [a, b]);
      const want = Array.from({ length: g }, (_, y) => m * (y === hx ? P : Q));
      assert.deepEqual(histogram(reports.map((r) => r[2]), g), want);
    }
  }
});

test("hadamard: row histogram uniform, bit histogram equals m x weights", () => {
  const P = 11, F = 4, K = 8;
  const s = spec("hadamard", 5, { K, keep: P, flip: F });
  for (let x = 0; x < 5; x++) {
    const rows = enumerate(s, x, 0, [0], 2);
    checkRejections(rows.rejected, K);
    assert.deepEqual(histogram(rows.reports.map((r) => r[0]), K), new Array(K).fill(SPACE / K));
    for (let j = 0; j < K; j++) {
      const { reports, rejected } = enumerate(s, x, 1, [j], 2);
      checkRejections(rejected, P + F);
      const m = Math.floor(SPACE / (P + F));
      let t = j & x, sign = 0;
      for (; t; t >>= 1) sign ^= t & 1;
      const expected = sign === 0 ? 1 : 0;
      const want = expected === 1 ? [m * F, m * P] : [m * P, m * F];
      assert.deepEqual(histogram(reports.map((r) => r[1]), 2), want, `x=${x} j=${j}`);
    }
  }
});

// ------------------------------------ ordinal, numeric and multi-select

const grid = (mechanism, low, high, step, weights) =>
  ({ version: 1, mechanism, low, high, step, epsilon: 1, weights });

test("ordinal: histogram equals m x rows[x] for every answer", () => {
  const rows = [
    [9, 5, 3, 2, 1],
    [5, 8, 5, 1, 1],
    [2, 4, 8, 4, 2],
    [1, 1, 5, 8, 5],
    [1, 2, 3, 5, 9],
  ];
  const S = 20; // does not divide 2^16: rejection exercised
  const s = spec("ordinal", 5, { rows, total: S });
  const m = Math.floor(SPACE / S);
  for (let x = 0; x < 5; x++) {
    const { reports, rejected } = enumerate(s, x, 0, [], 1);
    checkRejections(rejected, S);
    assert.deepEqual(histogram(reports, 5), rows[x].map((r) => m * r), `x=${x}`);
  }
});

// The exact clamped channel of a kernel on m levels: row x.
function clampedRow(kernel, m, x) {
  const row = new Array(m).fill(0);
  kernel.forEach((weight, j) => {
    row[Math.min(Math.max(x + j - (m - 1), 0), m - 1)] += weight;
  });
  return row;
}

test("geometric and gaussian: histogram equals m x the clamped kernel", () => {
  const cases = [
    grid("geometric", "0", "3", "1", { kernel: [1, 2, 4, 8, 4, 2, 1], total: 22 }),
    // An asymmetric kernel, so a reversed offset would show.
    grid("geometric", "-1", "1", "1", { kernel: [1, 2, 7, 3, 5], total: 18 }),
    grid("gaussian", "10", "13", "0.5", { kernel: [1, 1, 2, 3, 5, 8, 13, 8, 5, 3, 2, 1, 1], total: 53 }),
  ];
  for (const s of cases) {
    const levels = (s.weights.kernel.length + 1) / 2;
    const S = s.weights.total;
    const m = Math.floor(SPACE / S);
    for (let x = 0; x < levels; x++) {
      const { reports, rejected } = enumerate(s, x, 0, [], 1);
      checkRejections(rejected, S);
      const want = clampedRow(s.weights.kernel, levels, x).map((r) => m * r);
      assert.deepEqual(histogram(reports, levels), want, `${s.mechanism} x=${x}`);
    }
  }
});

test("duchi: histogram equals m x (base + x slope) for every level", () => {
  const L = 3, D = 2, levels = 5, S = 2 * L + (levels - 1) * D;
  const s = grid("duchi", "0", "1", "0.25", { base: L, slope: D, total: S });
  const m = Math.floor(SPACE / S);
  for (let x = 0; x < levels; x++) {
    const { reports, rejected } = enumerate(s, x, 0, [], 1);
    checkRejections(rejected, S);
    assert.deepEqual(histogram(reports, 2), [m * (S - L - x * D), m * (L + x * D)]);
  }
});

test("piecewise: histogram equals m x (high on the band, low elsewhere)", () => {
  const M = 9, width = 3, H = 7, Lo = 2;
  const S = width * H + (M - width) * Lo;
  const s = grid("piecewise", "0", "3", "1", { outputs: M, width, high: H, low: Lo, starts: [0, 2, 5, 6] });
  const m = Math.floor(SPACE / S);
  s.weights.starts.forEach((start, x) => {
    const { reports, rejected } = enumerate(s, x, 0, [], 1);
    checkRejections(rejected, S);
    const want = Array.from({ length: M }, (_, y) => m * (y >= start && y < start + width ? H : Lo));
    assert.deepEqual(histogram(reports, M), want, `x=${x}`);
  });
});

// Every subset of [0, k) as a list, in a scrambled order.
function subsets(k) {
  return Array.from({ length: 2 ** k }, (_, mask) =>
    [...Array(k).keys()].filter((i) => (mask >> i) & 1).reverse());
}

test("multi_rr: each bit's histogram equals m x weights, other bits untouched", () => {
  const k = 3, A1 = 7, A0 = 2, S = 11;
  const s = spec("multi_rr", k, { one_if_one: A1, one_if_zero: A0, total: S });
  const m = Math.floor(SPACE / S);
  for (const selection of subsets(k)) {
    for (let pos = 0; pos < k; pos++) {
      const { reports, rejected } = enumerate(s, selection, pos, new Array(k - 1).fill(0), k);
      checkRejections(rejected, S);
      const A = selection.includes(pos) ? A1 : A0;
      assert.deepEqual(histogram(reports.map((r) => r[pos]), 2), [m * (S - A), m * A]);
      for (const r of reports) r.forEach((bit, i) => i === pos || assert.equal(bit, 1));
    }
  }
});

test("padding_sampling: slot uniform over ell, item histogram equals m x weights", () => {
  const k = 4, ell = 3, P = 9, Q = 2, S = P + (k + ell - 1) * Q;
  const s = { ...spec("padding_sampling", k, { keep: P, other: Q }), ell };
  const m = Math.floor(SPACE / S);
  for (const selection of [[], [2], [3, 0], [1, 3, 2]]) {
    const sorted = [...selection].sort((a, b) => a - b);
    const item = (j) => (j < sorted.length ? sorted[j] : k + j);
    // Slot draw: second word 0 keeps the sampled item, so y = item(j).
    const slots = enumerate(s, selection, 0, [0], 2);
    checkRejections(slots.rejected, ell);
    const want = new Array(k + ell).fill(0);
    for (let j = 0; j < ell; j++) want[item(j)] += Math.floor(SPACE / ell);
    assert.deepEqual(histogram(slots.reports, k + ell), want, `slots ${selection}`);
    // GRR draw over the k + ell items, for each fixed slot j.
    for (let j = 0; j < ell; j++) {
      const { reports, rejected } = enumerate(s, selection, 1, [j], 2);
      checkRejections(rejected, S);
      const row = Array.from({ length: k + ell }, (_, y) => m * (y === item(j) ? P : Q));
      assert.deepEqual(histogram(reports, k + ell), row, `selection ${selection} j=${j}`);
    }
  }
});
