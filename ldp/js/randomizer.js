// Deniable browser randomizer: the respondent's agent. It checks a spec
// before it randomizes anything, then turns a true answer into a locally
// differentially private report, following ldp/spec/README.md (spec v1).
//
// Why it looks the way it does:
// - The server is not trusted. Before sampling, the module computes each
//   question's exact worst-case likelihood ratio R = max_y max_{x,x'}
//   W[x,y]/W[x',y] from the very integer weights it is about to sample from
//   (BigInt rationals), and ε = ln R is compared with rigorous bounds of
//   e^(m/1000), so the ε the page shows is the one this device delivers,
//   rounded up exactly as the Python reference's display. Specs above the
//   hard ceilings below, specs whose weights contradict their own declared
//   ε, and anything it cannot verify are refused (fail closed).
// - Randomness comes only from crypto.getRandomValues (the language's
//   built-in pseudo-random generator is predictable), so if no secure source
//   exists we throw (fail closed) and the form must not submit.
// - Only integer arithmetic. We sample the integer weights exactly with
//   rejection sampling, so the channel we deliver is exactly the one whose ε
//   was checked. No floating-point exp/log anywhere in this module.
// - Every mechanism draws through uniformBelow() in the order the contract
//   fixes, so Python and JS give the same report for the same 32-bit words,
//   and the number of words consumed never depends on the answer.
// - No dependencies: this one file runs unchanged in browsers and Node 20.
// Answers are integers (an option, a Likert level, or a numeric question's
// grid level index) or, for multi-select, lists of distinct option indices.

export const SPEC_VERSION = 1;

// Size of the word space: words are uniform integers in [0, WORD_SPACE).
const WORD_SPACE = 4294967296; // 2^32

// Prime modulus of the OLH hash ((a*x + b) mod PRIME) mod g.
const OLH_PRIME = 2147483647; // 2^31 - 1

// Words fetched per getRandomValues call: 16384 uint32 = 65536 bytes, the
// most one call may return. One call per word would be ~50x slower.
const BATCH = 16384;

const MAX_K = 4096;
const MAX_G = 65536;
const MAX_ORDINAL_K = 101;
const MAX_MULTI_RR_K = 64;
const MAX_LEVELS = 1001; // numeric grid levels m

// uniformBelow(S): a uniform integer in [0, S) from uniform words.
// Words at or above `limit` (the top WORD_SPACE mod S of them) are rejected,
// so every residue mod S is hit by exactly floor(WORD_SPACE / S) words.
// This is the only place a raw random word is reduced (remainder, below).
function uniformBelow(S, nextWord) {
  if (!Number.isSafeInteger(S) || S < 1 || S > WORD_SPACE) {
    throw new RangeError(`uniformBelow: bound ${S} is not an integer in [1, 2^32]`);
  }
  const limit = WORD_SPACE - remainder(WORD_SPACE, S);
  for (;;) {
    const u = nextWord();
    if (!Number.isInteger(u) || u < 0 || u >= WORD_SPACE) {
      throw new RangeError(`random source returned ${u}, not a 32-bit word`);
    }
    if (u < limit) return remainder(u, S);
  }
}

// Parity of popcount(t) for t < 2^32 by xor-folding: a fixed sequence of
// operations, no loop whose length depends on the answer.
function parity(t) {
  t ^= t >>> 16;
  t ^= t >>> 8;
  t ^= t >>> 4;
  t ^= t >>> 2;
  t ^= t >>> 1;
  return t & 1;
}

// floor(r / Q) for integers r >= 0 and Q >= 1 with r + Q <= 2^53, exactly:
// write r = qQ + s with 0 <= s < Q. If s = 0, r / Q = q is exact. Else the
// true r / Q lies at least 1/Q below q + 1, and half the spacing of doubles
// there is at most (q + 1) 2^-53 < 1/Q (as (q + 1) Q <= r + Q <= 2^53), so
// rounding never reaches q + 1. No `%` on doubles, which engines compute
// with a slow fmod call once r passes 2^31.
function quotient(r, Q) {
  return Math.floor(r / Q);
}

// r mod Q for the same r and Q, exactly (see quotient).
function remainder(r, Q) {
  return r - quotient(r, Q) * Q;
}

// Pick "the truth" with weight P, else one of the other n-1 values with
// weight Q each (GRR, and OLH over hash values). v is uniform in
// [0, P + (n-1)Q). Used by grr, olh and padding_sampling.
function keepOrOther(v, truth, P, Q) {
  if (v < P) return truth;
  const i = quotient(v - P, Q);
  return i < truth ? i : i + 1;
}

// Running sums of a weight list: prefix[i] = weights[0] + ... + weights[i].
function prefixSums(weights) {
  const prefix = new Array(weights.length);
  let sum = 0;
  for (let i = 0; i < weights.length; i++) {
    sum += weights[i];
    prefix[i] = sum;
  }
  return prefix;
}

// The contract's cumulative(weights, v), from the weights' running sums: the
// least index i with prefix[i] > v (for 0 <= v < sum), i.e. how many running
// sums are <= v. A binary search with a fixed number of steps, floor(log2 n)
// + 1 whatever v is, so its work does not depend on the answer or the draw.
function cumulative(prefix, v) {
  const n = prefix.length;
  let step = 1;
  while (step * 2 <= n) step *= 2;
  let index = 0;
  for (; step > 0; step >>= 1) {
    const next = index + step;
    index += next <= n && prefix[next - 1] <= v ? step : 0;
  }
  return index;
}

// The running sums a spec samples from (computed once per checked spec).
function tablesFor(spec) {
  const w = spec.weights;
  if (spec.mechanism === "ordinal") return { rows: w.rows.map(prefixSums) };
  if (spec.mechanism === "geometric" || spec.mechanism === "gaussian") {
    return { kernel: prefixSums(w.kernel) };
  }
  return {};
}

// ---------------------------------------------------------------- validation

// Integer weights (>= 1) every compiled spec must carry, per mechanism.
// List-valued weights (rows, kernel, starts) are checked separately.
const WEIGHT_KEYS = {
  forced_response: ["truthful", "forced_yes", "forced_no"],
  warner: ["keep", "flip"],
  grr: ["keep", "other"],
  sue: ["one_if_one", "one_if_zero", "total"],
  oue: ["one_if_one", "one_if_zero", "total"],
  olh: ["g", "prime", "keep", "other"],
  hadamard: ["K", "keep", "flip"],
  ordinal: ["total"],
  geometric: ["total"],
  gaussian: ["total"],
  duchi: ["base", "slope", "total"],
  piecewise: ["outputs", "width", "high", "low"],
  multi_rr: ["one_if_one", "one_if_zero", "total"],
  padding_sampling: ["keep", "other"],
};
const GRID = new Set(["geometric", "gaussian", "duchi", "piecewise"]);
const MULTI = new Set(["multi_rr", "padding_sampling"]);

function fail(spec, msg) {
  const name = spec && typeof spec === "object" && typeof spec.mechanism === "string"
    ? spec.mechanism : "spec";
  throw new Error(`${name}: ${msg}`);
}

function isCount(n) {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 1;
}

// Grid fields are plain decimal strings such as "0", "-2.5", "100" (no
// exponent, no "+"). They are compared as exact BigInts scaled to a common
// number of decimals, never as floats.
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

// Number of grid levels m = (high - low)/step + 1, computed exactly.
function gridLevels(spec) {
  const parts = ["low", "high", "step"].map((field) => {
    const s = spec[field];
    if (typeof s !== "string" || !DECIMAL.test(s)) {
      fail(spec, `${field} must be a decimal string such as "2.5", got ${JSON.stringify(s)}`);
    }
    const [whole, frac = ""] = s.split(".");
    return { whole, frac };
  });
  const places = Math.max(...parts.map((p) => p.frac.length));
  const [low, high, step] = parts.map((p) => BigInt(p.whole + p.frac.padEnd(places, "0")));
  const span = high - low;
  const levels = step > 0n ? span / step : 0n; // BigInt division truncates
  if (step <= 0n || span <= 0n || levels * step !== span) {
    fail(spec, `grid low = ${spec.low}, high = ${spec.high}, step = ${spec.step}: need step > 0 dividing high - low > 0`);
  }
  if (levels + 1n > BigInt(MAX_LEVELS)) {
    fail(spec, `grid has ${levels + 1n} levels; at most ${MAX_LEVELS} allowed`);
  }
  return Number(levels) + 1;
}

// Number of answers (or options, for multi-select): k, or the grid's m.
function answerCount(spec) {
  const mech = spec.mechanism;
  if (mech === "forced_response" || mech === "warner") {
    if (spec.k !== undefined && spec.k !== 2) {
      fail(spec, `k must be 2 (or omitted) for ${mech}, got ${JSON.stringify(spec.k)}`);
    }
    return 2;
  }
  if (GRID.has(mech)) return gridLevels(spec);
  const max = mech === "ordinal" ? MAX_ORDINAL_K : mech === "multi_rr" ? MAX_MULTI_RR_K : MAX_K;
  if (!Number.isInteger(spec.k) || spec.k < 2 || spec.k > max) {
    fail(spec, `k must be an integer in [2, ${max}], got ${JSON.stringify(spec.k)}`);
  }
  return spec.k;
}

// The bound passed to uniformBelow must fit the word space.
function checkBound(spec, what, S) {
  if (S > WORD_SPACE) fail(spec, `${what} = ${S} exceeds 2^32`);
}

// A list of `length` integer weights >= 1 summing to exactly `total`.
function checkWeightList(spec, what, list, length, total) {
  if (!Array.isArray(list) || list.length !== length) {
    fail(spec, `${what} must be a list of ${length} integers, got ${Array.isArray(list) ? `${list.length} items` : JSON.stringify(list)}`);
  }
  let sum = 0;
  for (const [i, n] of list.entries()) {
    if (!isCount(n) || n > total) fail(spec, `${what}[${i}] must be an integer in [1, total], got ${JSON.stringify(n)}`);
    sum += n;
  }
  if (sum !== total) fail(spec, `${what} sums to ${sum}, not total = ${total}`);
}

// A multi-select answer: distinct option indices in [0, k), at most `most`.
function checkSelection(spec, answer, k, most) {
  if (!Array.isArray(answer)) {
    fail(spec, `answer must be a list of distinct option indices in [0, ${k}), got ${JSON.stringify(answer)}`);
  }
  if (answer.length > most) {
    fail(spec, `at most ${most} options may be selected, got ${answer.length}`);
  }
  const seen = new Set();
  for (const [i, option] of answer.entries()) {
    if (!(Number.isInteger(option) && option >= 0 && option < k)) {
      fail(spec, `answer[${i}] = ${JSON.stringify(option)} is not an option index in [0, ${k})`);
    }
    if (seen.has(option)) fail(spec, `option ${option} is selected more than once`);
    seen.add(option);
  }
}

/**
 * Throw an Error naming the problem if this module cannot run `spec`
 * (a compiled v1 spec), or if `answer` (when given) is not valid: an integer
 * in [0, n) (n = k, or the grid's m levels for numeric mechanisms), or for
 * multi_rr / padding_sampling a list of distinct option indices in [0, k)
 * (at most ell of them for padding_sampling). Returns n.
 */
export function validateSpec(spec, answer) {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    throw new Error(`spec must be an object, got ${JSON.stringify(spec)}`);
  }
  if (spec.version !== SPEC_VERSION) {
    fail(spec, `spec version ${JSON.stringify(spec.version)} is not supported (need ${SPEC_VERSION})`);
  }
  const keys = Object.prototype.hasOwnProperty.call(WEIGHT_KEYS, spec.mechanism)
    ? WEIGHT_KEYS[spec.mechanism] : undefined;
  if (keys === undefined) {
    throw new Error(`unknown mechanism ${JSON.stringify(spec.mechanism)}; allowed: ${Object.keys(WEIGHT_KEYS).join(", ")}`);
  }
  const k = answerCount(spec);
  const w = spec.weights;
  if (w === null || typeof w !== "object" || Array.isArray(w)) {
    fail(spec, "compiled spec has no weights object (build it on the server first)");
  }
  for (const key of keys) {
    if (!isCount(w[key])) {
      fail(spec, `weights.${key} must be an integer >= 1, got ${JSON.stringify(w[key])}`);
    }
  }
  switch (spec.mechanism) {
    case "forced_response":
      checkBound(spec, "truthful + forced_yes + forced_no", w.truthful + w.forced_yes + w.forced_no);
      break;
    case "warner":
    case "hadamard":
      checkBound(spec, "keep + flip", w.keep + w.flip);
      if (spec.mechanism === "hadamard") {
        let K = 1;
        while (K < k) K *= 2;
        if (w.K !== K) fail(spec, `weights.K must be ${K} (least power of two >= k = ${k}), got ${w.K}`);
      }
      break;
    case "grr":
      checkBound(spec, "keep + (k-1)*other", w.keep + (k - 1) * w.other);
      break;
    case "sue":
    case "oue":
    case "multi_rr":
      // Both bit values need weight >= 1: 1 <= one_if_* <= total - 1.
      checkBound(spec, "total", w.total);
      for (const key of ["one_if_one", "one_if_zero"]) {
        if (w[key] >= w.total) fail(spec, `weights.${key} = ${w[key]} must be below total = ${w.total}`);
      }
      break;
    case "olh":
      if (w.prime !== OLH_PRIME) fail(spec, `weights.prime must be ${OLH_PRIME}, got ${w.prime}`);
      if (w.g < 2 || w.g > MAX_G) fail(spec, `weights.g must be in [2, ${MAX_G}], got ${w.g}`);
      if (spec.g !== undefined && spec.g !== w.g) fail(spec, `g = ${spec.g} disagrees with weights.g = ${w.g}`);
      checkBound(spec, "prime", w.prime);
      checkBound(spec, "keep + (g-1)*other", w.keep + (w.g - 1) * w.other);
      break;
    case "ordinal":
      checkBound(spec, "total", w.total);
      if (!Array.isArray(w.rows) || w.rows.length !== k) {
        fail(spec, `weights.rows must be a list of k = ${k} rows`);
      }
      w.rows.forEach((row, x) => checkWeightList(spec, `weights.rows[${x}]`, row, k, w.total));
      break;
    case "geometric":
    case "gaussian":
      checkBound(spec, "total", w.total);
      checkWeightList(spec, "weights.kernel", w.kernel, 2 * k - 1, w.total);
      break;
    case "duchi":
      checkBound(spec, "total", w.total);
      if (2 * w.base + (k - 1) * w.slope !== w.total) {
        fail(spec, `weights.total = ${w.total} must equal 2*base + (m-1)*slope = ${2 * w.base + (k - 1) * w.slope}`);
      }
      break;
    case "piecewise": {
      const M = w.outputs, width = w.width;
      if (width >= M) fail(spec, `weights.width = ${width} must be below outputs = ${M}`);
      checkBound(spec, "width*high + (outputs-width)*low", width * w.high + (M - width) * w.low);
      if (!Array.isArray(w.starts) || w.starts.length !== k) {
        fail(spec, `weights.starts must be a list of m = ${k} integers`);
      }
      w.starts.forEach((start, x) => {
        if (!(Number.isInteger(start) && start >= 0 && start <= M - width)) {
          fail(spec, `weights.starts[${x}] must be an integer in [0, outputs - width = ${M - width}], got ${JSON.stringify(start)}`);
        }
      });
      break;
    }
    case "padding_sampling":
      if (!Number.isInteger(spec.ell) || spec.ell < 1 || spec.ell > k) {
        fail(spec, `ell must be an integer in [1, k = ${k}], got ${JSON.stringify(spec.ell)}`);
      }
      checkBound(spec, "keep + (k+ell-1)*other", w.keep + (k + spec.ell - 1) * w.other);
      break;
  }
  if (answer !== undefined) checkAnswer(spec, answer, k);
  return k;
}

// Throw an Error if `answer` is not valid for the (already validated) `spec`
// with n = k answers or levels (see validateSpec).
function checkAnswer(spec, answer, k) {
  if (MULTI.has(spec.mechanism)) {
    checkSelection(spec, answer, k, spec.mechanism === "padding_sampling" ? spec.ell : k);
  } else if (!(Number.isInteger(answer) && answer >= 0 && answer < k)) {
    fail(spec, `answer must be an integer in [0, ${k}), got ${JSON.stringify(answer)}`);
  }
}

// ------------------------------------------------------------------ sampling

/**
 * Randomize `answer` (see validateSpec) under the compiled `spec`, drawing 32-bit words from
 * `nextWord()`. For tests (injected words); pages use randomize().
 * Returns the report as a JSON-able value (see the spec README).
 */
export function randomizeWithSource(spec, answer, nextWord) {
  const k = validateSpec(spec, answer);
  return sample(spec, k, tablesFor(spec), answer, nextWord);
}

// Draw one report of a valid `answer` under a validated `spec` with n = k and
// its running sums `tables` (tablesFor).
function sample(spec, k, tables, answer, nextWord) {
  const w = spec.weights;
  const x = answer;
  switch (spec.mechanism) {
    case "forced_response": {
      const T = w.truthful, A = w.forced_yes;
      const v = uniformBelow(T + A + w.forced_no, nextWord);
      return v < T ? x : v < T + A ? 1 : 0;
    }
    case "warner": {
      const v = uniformBelow(w.keep + w.flip, nextWord);
      return v < w.keep ? x : 1 - x;
    }
    case "grr": {
      const v = uniformBelow(w.keep + (k - 1) * w.other, nextWord);
      return keepOrOther(v, x, w.keep, w.other);
    }
    case "sue":
    case "oue": {
      // k draws whatever the answer; bit i is 1 with weight A1 if i is the
      // answer, A0 otherwise.
      const bits = new Array(k);
      for (let i = 0; i < k; i++) {
        const v = uniformBelow(w.total, nextWord);
        bits[i] = v < (i === x ? w.one_if_one : w.one_if_zero) ? 1 : 0;
      }
      return bits;
    }
    case "olh": {
      const a = uniformBelow(w.prime, nextWord);
      const b = uniformBelow(w.prime, nextWord);
      // a*x + b < 2^31 * 2^12 + 2^31 < 2^53: exact in a Number.
      const h = remainder(remainder(a * x + b, w.prime), w.g);
      const v = uniformBelow(w.keep + (w.g - 1) * w.other, nextWord);
      return [a, b, keepOrOther(v, h, w.keep, w.other)];
    }
    case "hadamard": {
      const j = uniformBelow(w.K, nextWord);
      const s = parity(j & x) === 0 ? 1 : 0; // H[j, x] = +1 -> bit 1
      const v = uniformBelow(w.keep + w.flip, nextWord);
      return [j, v < w.keep ? s : 1 - s];
    }
    case "ordinal":
      return cumulative(tables.rows[x], uniformBelow(w.total, nextWord));
    case "geometric":
    case "gaussian": {
      // k is the grid's m; kernel index j is the offset d = j - (m-1).
      const y = x + cumulative(tables.kernel, uniformBelow(w.total, nextWord)) - (k - 1);
      return Math.min(Math.max(y, 0), k - 1);
    }
    case "duchi":
      return uniformBelow(w.total, nextWord) < w.base + x * w.slope ? 1 : 0;
    case "piecewise": {
      const H = w.high, band = w.width * H, start = w.starts[x];
      const v = uniformBelow(band + (w.outputs - w.width) * w.low, nextWord);
      if (v < band) return start + quotient(v, H);
      const i = quotient(v - band, w.low);
      return i < start ? i : i + w.width;
    }
    case "multi_rr": {
      // k draws whatever the selection.
      const selected = new Uint8Array(k);
      for (const option of x) selected[option] = 1;
      const bits = new Array(k);
      for (let i = 0; i < k; i++) {
        const v = uniformBelow(w.total, nextWord);
        bits[i] = v < (selected[i] === 1 ? w.one_if_one : w.one_if_zero) ? 1 : 0;
      }
      return bits;
    }
    case "padding_sampling": {
      // Pad the selection to ell items with the dummies k, ..., k+ell-1,
      // sample one, then GRR over the k + ell items.
      const ell = spec.ell;
      const sorted = Array.from(x).sort((a, b) => a - b);
      const j = uniformBelow(ell, nextWord);
      const t = j < sorted.length ? sorted[j] : k + j;
      const v = uniformBelow(w.keep + (k + ell - 1) * w.other, nextWord);
      return keepOrOther(v, t, w.keep, w.other);
    }
  }
  throw new Error(`unknown mechanism ${JSON.stringify(spec.mechanism)}`);
}

// ------------------------------------------------------ secure random words

// A pool of words from getRandomValues, refilled BATCH at a time. Each word
// is zeroed once used, so words that shaped a report do not linger.
const pool = new Uint32Array(BATCH);
let poolPos = BATCH;

function secureSource() {
  const c = globalThis.crypto;
  if (!c || typeof c.getRandomValues !== "function") {
    throw new Error(
      "no secure random source (crypto.getRandomValues) is available; " +
      "refusing to randomize, so the answer must not be submitted",
    );
  }
  return c;
}

function nextSecureWord() {
  if (poolPos === BATCH) {
    secureSource().getRandomValues(pool);
    poolPos = 0;
  }
  const u = pool[poolPos];
  pool[poolPos++] = 0;
  return u;
}

// ------------------------------------------------- the device's own check

// Hard ceilings on ε = ln R, per question and for a whole survey (all the
// protected answers one device sends for it, re-answers included). They are
// part of this hashed module on purpose: a server cannot raise them. Why
// these values: README.md, "The device's ceilings".
export const EPSILON_CEILING_QUESTION = 5;
export const EPSILON_CEILING_SURVEY = 10;

// Largest ε a spec may declare (the spec format's own limit).
const DECLARED_EPSILON_MAX = 10;

// Fields a compiled spec may carry, per mechanism; anything else is refused,
// because this module cannot vouch for a field it does not understand.
const SPEC_FIELDS = {
  forced_response: ["design"],
  warner: ["epsilon"],
  grr: ["epsilon"],
  sue: ["epsilon"],
  oue: ["epsilon"],
  olh: ["epsilon", "g"],
  hadamard: ["epsilon"],
  ordinal: ["epsilon"],
  geometric: ["epsilon", "low", "high", "step"],
  gaussian: ["epsilon", "low", "high", "step"],
  duchi: ["epsilon", "low", "high", "step"],
  piecewise: ["epsilon", "low", "high", "step"],
  multi_rr: ["epsilon", "epsilon_per_option"],
  padding_sampling: ["epsilon", "ell"],
};
const LIST_WEIGHTS = {
  ordinal: ["rows"],
  geometric: ["kernel"],
  gaussian: ["kernel"],
  piecewise: ["starts"],
};

/**
 * Why the device refused a spec. `code` is one of "unverifiable",
 * "unknown_mechanism", "declared_mismatch", "above_question_ceiling",
 * "above_survey_ceiling"; `facts` carries the figures the explanation needs
 * (the page words it with wording.js). Nothing may be sent after a refusal.
 */
export class SpecRefused extends Error {
  constructor(code, detail, facts = {}) {
    super(detail);
    this.name = "SpecRefused";
    this.code = code;
    this.facts = facts;
  }
}

const own = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

// -- exact rationals (BigInt numerator n and denominator d, both > 0)

function ratioOf(a, b) {
  return a >= b ? { n: BigInt(a), d: BigInt(b) } : { n: BigInt(b), d: BigInt(a) };
}

function larger(r, s) {
  return r.n * s.d > s.n * r.d ? r : s;
}

function times(r, s) {
  return { n: r.n * s.n, d: r.d * s.d };
}

function power(r, k) {
  let result = ONE_RATIO;
  for (let i = 0; i < k; i++) result = times(result, r);
  return result;
}

// Euclid on BigInt weights (never on random words).
function gcd(a, b) {
  while (b !== 0n) [a, b] = [b, a - (a / b) * b];
  return a;
}

function reduced(r) {
  const g = gcd(r.n, r.d);
  return { n: r.n / g, d: r.d / g };
}

const ONE_RATIO = { n: 1n, d: 1n };

// The largest max/min ratio down the columns of an integer channel given
// column by column: column(y) returns [max_x W[x,y], min_x W[x,y]].
function worstColumn(outputs, column) {
  let best = ONE_RATIO;
  for (let y = 0; y < outputs; y++) {
    const [high, low] = column(y);
    best = larger(best, { n: BigInt(high), d: BigInt(low) });
  }
  return best;
}

// Column extremes of an explicit channel rows[x][y] (equal row sums).
function matrixRatio(rows) {
  return worstColumn(rows[0].length, (y) => {
    let high = rows[0][y], low = rows[0][y];
    for (const row of rows) {
      if (row[y] > high) high = row[y];
      if (row[y] < low) low = row[y];
    }
    return [high, low];
  });
}

// The clamped additive-noise channel of geometric/gaussian on m levels:
// interior outputs get kernel[y - x + m - 1], the two ends the kernel mass
// that falls beyond them (docs: ldp/spec/README.md).
function clampedRows(kernel, m) {
  const prefix = [0];
  for (const weight of kernel) prefix.push(prefix[prefix.length - 1] + weight);
  const total = prefix[prefix.length - 1];
  const rows = [];
  for (let x = 0; x < m; x++) {
    const row = new Array(m);
    row[0] = prefix[m - x]; // offsets j <= m-1-x land on 0
    for (let y = 1; y < m - 1; y++) row[y] = kernel[y - x + m - 1];
    row[m - 1] = total - prefix[2 * m - 2 - x]; // offsets j >= 2m-2-x
    rows.push(row);
  }
  return rows;
}

/**
 * The exact worst-case likelihood ratio R = max over reports y and answers
 * x, x' of P(y | x) / P(y | x') of a compiled spec, from its integer
 * weights, as a reduced BigInt fraction {n, d}. ε = ln R. Validates the
 * spec first (throws on anything malformed).
 */
export function likelihoodRatio(spec) {
  const k = validateSpec(spec);
  const w = spec.weights;
  let r;
  switch (spec.mechanism) {
    case "forced_response": {
      const T = w.truthful, A = w.forced_yes, B = w.forced_no;
      // report 1: A (truth 0) vs T + A (truth 1); report 0: T + B vs B.
      r = larger(ratioOf(T + A, A), ratioOf(T + B, B));
      break;
    }
    case "warner":
    case "hadamard":
      r = ratioOf(w.keep, w.flip);
      break;
    case "grr":
    case "olh":
      r = ratioOf(w.keep, w.other);
      break;
    case "sue":
    case "oue": {
      // Two answers differ in exactly two bits: the answer's own bit and
      // the other answer's bit, each contributing its worst factor.
      const S = w.total, A1 = w.one_if_one, A0 = w.one_if_zero;
      // f(b) = P(bit = b | it is the answer's), g(b) = P(bit = b | not):
      // R = max_b f(b)/g(b) * max_b g(b)/f(b).
      const frac = (a, b) => ({ n: BigInt(a), d: BigInt(b) });
      const up = larger(frac(A1, A0), frac(S - A1, S - A0));
      const down = larger(frac(A0, A1), frac(S - A0, S - A1));
      r = times(up, down);
      break;
    }
    case "multi_rr": {
      // Two selections may differ in all k bits, each by the worst factor.
      const S = w.total, A1 = w.one_if_one, A0 = w.one_if_zero;
      r = power(larger(ratioOf(A1, A0), ratioOf(S - A1, S - A0)), k);
      break;
    }
    case "padding_sampling":
      // The slot is never sent: P(y | X) is (P + (ell-1)Q)/(ell S) for the
      // padded items of X and Q/S for the rest; both occur in every column.
      r = ratioOf(w.keep + (spec.ell - 1) * w.other, spec.ell * w.other);
      break;
    case "ordinal":
      r = matrixRatio(w.rows);
      break;
    case "geometric":
    case "gaussian":
      r = matrixRatio(clampedRows(w.kernel, k));
      break;
    case "duchi": {
      const rows = [];
      for (let x = 0; x < k; x++) {
        const one = w.base + x * w.slope;
        rows.push([w.total - one, one]);
      }
      r = matrixRatio(rows);
      break;
    }
    case "piecewise": {
      // Column y holds H for the answers whose band covers it, Lo for the
      // rest; it contributes max/min(H, Lo) unless all or none cover it.
      const covered = new Array(w.outputs + 1).fill(0);
      for (const start of w.starts) {
        covered[start] += 1;
        covered[start + w.width] -= 1;
      }
      let count = 0;
      let mixed = false;
      for (let y = 0; y < w.outputs; y++) {
        count += covered[y];
        if (count > 0 && count < k) mixed = true;
      }
      r = mixed ? ratioOf(w.high, w.low) : ONE_RATIO;
      break;
    }
    default:
      throw new Error(`unknown mechanism ${JSON.stringify(spec.mechanism)}`);
  }
  return reduced(r);
}

// -- rigorous bounds of e^(p/q), in fixed point scaled by 2^PRECISION_BITS

const PRECISION_BITS = 320n;
const UNIT = 1n << PRECISION_BITS;

function ceilDiv(a, b) {
  return (a + b - 1n) / b;
}

// [lower, upper] with lower <= e^(p/q) * UNIT <= upper, for p >= 0, q >= 1.
// Lower: the Taylor series with every term rounded down. Upper: every term
// rounded up, plus the tail after the last term n, which is at most
// 2 t_(n+1) once p/q <= (n+2)/2 (a geometric series of ratio <= 1/2).
const expCache = new Map();
function expBounds(p, q) {
  const key = `${p}/${q}`;
  const cached = expCache.get(key);
  if (cached) return cached;
  let lowTerm = UNIT, highTerm = UNIT, low = UNIT, high = UNIT;
  for (let n = 1n; ; n++) {
    lowTerm = (lowTerm * p) / (q * n);
    highTerm = ceilDiv(highTerm * p, q * n);
    low += lowTerm;
    high += highTerm;
    // Next term rounded up is at most 1 unit and the tail's ratio <= 1/2.
    if (highTerm * p <= q * (n + 1n) && 2n * p <= q * (n + 2n)) {
      high += 2n;
      break;
    }
  }
  const bounds = [low, high];
  if (expCache.size > 4096) expCache.clear();
  expCache.set(key, bounds);
  return bounds;
}

// True only when R <= e^(p/q) is certain; an undecidable comparison (|ln R -
// p/q| below about 2^-300) counts as "above", in the respondent's favour.
function atMostExp(r, p, q) {
  const [low] = expBounds(p, q);
  return r.n * UNIT <= r.d * low;
}

/**
 * ⌈1000 ln R⌉: the ε of ratio `r` in thousandths, rounded up exactly as the
 * Python reference's display (ldp.exact.display_epsilon), or null when it is
 * above `ceilingMilli`.
 */
export function epsilonMilli(r, ceilingMilli) {
  if (!atMostExp(r, BigInt(ceilingMilli), 1000n)) return null;
  let low = 0, high = ceilingMilli; // R <= e^(high/1000) holds
  if (atMostExp(r, 0n, 1000n)) return 0;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (atMostExp(r, BigInt(middle), 1000n)) high = middle;
    else low = middle;
  }
  return high;
}

// The exact binary value of a positive finite double, as p/q.
function exactDouble(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const shift = (exponent === 0 ? 1 : exponent) - 1075;
  return shift >= 0
    ? { p: mantissa << BigInt(shift), q: 1n }
    : { p: mantissa, q: 1n << BigInt(-shift) };
}

function declaredEpsilon(spec, field) {
  const value = spec[field];
  if (!(typeof value === "number" && Number.isFinite(value) && value > 0 &&
        value <= DECLARED_EPSILON_MAX)) {
    throw new SpecRefused("unverifiable",
      `${spec.mechanism}: ${field} must be a number in (0, ${DECLARED_EPSILON_MAX}], got ${JSON.stringify(value)}`);
  }
  return exactDouble(value);
}

const FRACTION = /^([1-9][0-9]*)\/([1-9][0-9]*)$/;

// The spec's own description must agree with its weights.
function checkDeclared(spec, ratio) {
  const w = spec.weights;
  if (spec.mechanism === "forced_response") {
    const design = spec.design;
    const parts = ["truthful", "forced_yes", "forced_no"];
    if (design === null || typeof design !== "object" || Array.isArray(design) ||
        Object.keys(design).length !== 3 || !parts.every((p) => own(design, p))) {
      throw new SpecRefused("unverifiable", "forced_response: design must give truthful, forced_yes and forced_no");
    }
    const S = BigInt(w.truthful + w.forced_yes + w.forced_no);
    for (const part of parts) {
      const match = typeof design[part] === "string" ? FRACTION.exec(design[part]) : null;
      if (!match || BigInt(w[part]) * BigInt(match[2]) !== BigInt(match[1]) * S) {
        throw new SpecRefused("declared_mismatch",
          `forced_response: design.${part} = ${JSON.stringify(design[part])} disagrees with the weights`);
      }
    }
    return;
  }
  const { p, q } = declaredEpsilon(spec, "epsilon");
  if (!atMostExp(ratio, p, q)) {
    throw new SpecRefused("declared_mismatch",
      `${spec.mechanism}: the weights deliver more than the declared epsilon = ${spec.epsilon}`,
      { declared: spec.epsilon });
  }
  if (spec.mechanism === "multi_rr") {
    const per = declaredEpsilon(spec, "epsilon_per_option");
    const S = w.total, A1 = w.one_if_one, A0 = w.one_if_zero;
    const bit = larger(ratioOf(A1, A0), ratioOf(S - A1, S - A0));
    if (!atMostExp(bit, per.p, per.q)) {
      throw new SpecRefused("declared_mismatch",
        `multi_rr: one option's bit delivers more than epsilon_per_option = ${spec.epsilon_per_option}`);
    }
  }
}

function checkFields(spec) {
  const allowed = new Set(["version", "mechanism", "k", "weights", ...SPEC_FIELDS[spec.mechanism]]);
  for (const key of Object.keys(spec)) {
    if (!allowed.has(key)) {
      throw new SpecRefused("unverifiable", `${spec.mechanism}: unknown spec field ${JSON.stringify(key)}`);
    }
  }
  const weightKeys = new Set([...WEIGHT_KEYS[spec.mechanism], ...(LIST_WEIGHTS[spec.mechanism] || [])]);
  for (const key of Object.keys(spec.weights)) {
    if (!weightKeys.has(key)) {
      throw new SpecRefused("unverifiable", `${spec.mechanism}: unknown weight ${JSON.stringify(key)}`);
    }
  }
}

/**
 * The device's verdict on one compiled spec, or a thrown SpecRefused.
 * Returns {mechanism, ratio: {n, d}, epsilonMilli}: the exact worst-case
 * likelihood ratio and ⌈1000 ε⌉. Refuses unknown mechanisms, unknown fields,
 * malformed weights, weights that deliver more than the spec's declared ε,
 * and ε above EPSILON_CEILING_QUESTION.
 */
export function checkSpec(spec) {
  let ratio;
  try {
    ratio = likelihoodRatio(spec); // validates first
  } catch (error) {
    const known = spec !== null && typeof spec === "object" && own(SPEC_FIELDS, spec.mechanism);
    const unknown = spec !== null && typeof spec === "object" && !known &&
      !Array.isArray(spec) && spec.version === SPEC_VERSION;
    throw new SpecRefused(unknown ? "unknown_mechanism" : "unverifiable", error.message);
  }
  checkFields(spec);
  checkDeclared(spec, ratio);
  const milli = epsilonMilli(ratio, EPSILON_CEILING_QUESTION * 1000);
  if (milli === null) {
    throw new SpecRefused("above_question_ceiling",
      `${spec.mechanism}: epsilon is above the ceiling of ${EPSILON_CEILING_QUESTION}`,
      { ceiling: EPSILON_CEILING_QUESTION });
  }
  return { mechanism: spec.mechanism, ratio, epsilonMilli: milli };
}

/**
 * The device's verdict on a whole survey: every spec checked, and the total
 * (sequential composition: the product of the ratios) against
 * EPSILON_CEILING_SURVEY, counting `spentMilli` thousandths of ε this device
 * already spent on the same survey. Returns {questions, ratio (the new
 * reports' product), epsilonMilli (theirs), spentMilli, totalMilli,
 * totalRatio (an upper bound including what was spent)}; throws SpecRefused
 * (with the question index in facts).
 */
export function checkSurvey(specs, spentMilli = 0) {
  if (!Array.isArray(specs)) throw new SpecRefused("unverifiable", "the survey's specs are not a list");
  if (!(Number.isSafeInteger(spentMilli) && spentMilli >= 0)) {
    throw new SpecRefused("unverifiable", `spent epsilon ${JSON.stringify(spentMilli)} is not a count of thousandths`);
  }
  const questions = specs.map((spec, index) => {
    try {
      return checkSpec(spec);
    } catch (error) {
      if (error instanceof SpecRefused) error.facts.question = index;
      throw error;
    }
  });
  const ratio = reduced(questions.reduce((r, q) => times(r, q.ratio), ONE_RATIO));
  const room = EPSILON_CEILING_SURVEY * 1000 - spentMilli;
  const milli = room >= 0 ? epsilonMilli(ratio, room) : null;
  if (milli === null) {
    throw new SpecRefused("above_survey_ceiling",
      `the survey's total epsilon is above the ceiling of ${EPSILON_CEILING_SURVEY}`,
      { ceiling: EPSILON_CEILING_SURVEY, spentMilli });
  }
  // What was already spent is known only as ⌈1000 ε⌉: bound its ratio above.
  const totalRatio = spentMilli > 0
    ? times(ratio, { n: expBounds(BigInt(spentMilli), 1000n)[1], d: UNIT })
    : ratio;
  return { questions, ratio, epsilonMilli: milli, spentMilli, totalMilli: spentMilli + milli, totalRatio };
}

// Checked specs, each with the frozen copy that is actually sampled from (and
// its answer count), so changing the spec object after the check cannot change
// what is sampled, and a spec is validated once per page, not once per report.
const checked = new WeakMap();

function deepFrozenCopy(value) {
  const copy = JSON.parse(JSON.stringify(value));
  const freeze = (v) => {
    if (v !== null && typeof v === "object") {
      Object.values(v).forEach(freeze);
      Object.freeze(v);
    }
    return v;
  };
  return freeze(copy);
}

function checkedCopy(spec) {
  if (spec !== null && typeof spec === "object") {
    const found = checked.get(spec);
    if (found) return found;
  }
  const copy = deepFrozenCopy(spec);
  checkSpec(copy); // validates the spec (validateSpec) and its declared ε
  const entry = { spec: copy, k: answerCount(copy), tables: tablesFor(copy), multi: MULTI.has(copy.mechanism) };
  if (spec !== null && typeof spec === "object") checked.set(spec, entry);
  return entry;
}

/**
 * Randomize `answer` (an integer answer, grid level index, or list of selected
 * options; see validateSpec) under the compiled `spec` using
 * crypto.getRandomValues, after the device's own check (checkSpec): throws
 * SpecRefused for a spec it will not run, an Error if no secure source
 * exists (fail closed) or the answer is invalid. Returns the JSON-able report.
 */
export function randomize(spec, answer) {
  secureSource(); // checked on every call, even while the pool has words
  const entry = checkedCopy(spec);
  checkAnswer(entry.spec, answer, entry.k); // the answer on every call
  return sample(entry.spec, entry.k, entry.tables, answer, nextSecureWord);
}

/**
 * Randomize several answers in one call: `items` is a list of {spec, answer}
 * (as for randomize). Returns their reports, in order. Every spec is checked
 * (once per distinct spec object in a row, as randomize caches it), every
 * answer is checked, and then the secure source once, all before the first
 * word is drawn: either every report is made or none (an Error or
 * SpecRefused as randomize throws, nothing drawn).
 *
 * Why one check of the secure source per call is exactly as strong as one
 * per report: JavaScript runs one script at a time, to completion. Another
 * script on the page (one that might delete or replace globalThis.crypto)
 * runs only between tasks, or inside this call if this call runs its code:
 * through getters, proxies or toJSON on the items, specs and answers it was
 * given. So every such read happens first; after secureSource() the loop
 * below only samples from the frozen checked copies and the already checked
 * answers, and runs no code but this module's and the language's own. No
 * other script can run between the check and any report, so the check holds
 * for every report in the call, as randomize's does for its one. (A script
 * that replaced the language's built-ins, or crypto.getRandomValues by a
 * function, defeats randomize just the same: the check asks only that a
 * secure source exists, and the pool is refilled from whatever
 * globalThis.crypto.getRandomValues is at the time, as before.) Caching the
 * source instead, and comparing it with === on each report, would still
 * have to read globalThis.crypto (the costly call into the browser) each
 * time, because a page script can redefine that property's getter.
 */
export function randomizeAll(items) {
  if (!Array.isArray(items)) {
    throw new TypeError(`randomizeAll needs a list of {spec, answer}, got ${JSON.stringify(items)}`);
  }
  const count = items.length;
  const entries = new Array(count);
  const answers = new Array(count);
  let lastSpec = null;
  let lastEntry = null;
  for (let i = 0; i < count; i++) {
    const item = items[i];
    if (item === null || typeof item !== "object") {
      throw new TypeError(`randomizeAll: item ${i} is not a {spec, answer}, got ${JSON.stringify(item)}`);
    }
    const spec = item.spec;
    const answer = item.answer;
    const entry = lastEntry !== null && spec === lastSpec ? lastEntry : checkedCopy(spec);
    lastSpec = spec;
    lastEntry = entry;
    if (entry.multi) {
      // A multi-select answer is copied, then the copy is checked and
      // sampled, so what is sampled is what was checked.
      const own = Array.isArray(answer) ? Array.from(answer) : answer;
      checkAnswer(entry.spec, own, entry.k);
      answers[i] = own;
    } else {
      // checkAnswer's test for one answer, inline; it words the refusal.
      if (!(Number.isInteger(answer) && answer >= 0 && answer < entry.k)) checkAnswer(entry.spec, answer, entry.k);
      answers[i] = answer;
    }
    entries[i] = entry;
  }
  secureSource(); // once per call: see above
  const reports = new Array(count);
  for (let i = 0; i < count; i++) {
    const entry = entries[i];
    reports[i] = sample(entry.spec, entry.k, entry.tables, answers[i], nextSecureWord);
  }
  return reports;
}
