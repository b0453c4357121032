// Outcome counts for the statistical ε audit: the part of the audit that
// runs next to the randomizer. No imports and no Node or DOM APIs, so the
// same file runs in Node (tests/js/audit.mjs, the shipped module from disk)
// and in a browser page (the module as the app serves it). Python
// (tests/ldp/js_audit.py) turns the counts into ε lower bounds, goodness of
// fit and gates.
//
// auditCounts(module, items, N): items is a list, each a compiled spec
// (inputs: every answer 0 … k-1) or {"spec": compiled spec, "inputs":
// [answers]} (grid levels, or selections for multi-select). `module` is the
// randomizer module; reports come from its randomize(spec, answer), drawing
// from crypto.getRandomValues (see reportSource for specs above its ceiling).
// Returns one entry per item, each {"inputs": [counts per x]} (or {"error":
// message} if the module threw). Counts per input x, over N reports:
//   forced_response, warner, grr: "hist"[y] = #reports equal to y
//   sue, oue: "hist"[pattern] with pattern = sum of bit_i << i
//   hadamard: "hist"[2 j + bit]
//   olh: "support"[v] = #(y == h(v)); "joint"[v*k + w] = #(y == h(v) and
//        h(v) != h(w)); "offset"[d] = #((y - h(x)) mod g == d)
//   ordinal, geometric, gaussian, duchi, piecewise, padding_sampling:
//        "hist"[y] = #reports equal to y
//   multi_rr: "hist"[pattern] with pattern = sum of bit_i << i
//   every entry: "invalid" = #reports outside the output domain.

const isBit = (b) => b === 0 || b === 1;

function countHist(randomize, spec, x, N, size, index) {
  const hist = new Array(size).fill(0);
  let invalid = 0;
  for (let n = 0; n < N; n++) {
    const i = index(randomize(spec, x));
    if (Number.isInteger(i) && i >= 0 && i < size) hist[i]++;
    else invalid++;
  }
  return { hist, invalid };
}

function countOlh(randomize, spec, x, N) {
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

// Counts of N reports of `randomize(spec, x)`, in the layout described above.
export function countInput(randomize, spec, x, N) {
  const k = spec.k ?? 2;
  const size = outputCount(spec);
  if (size !== undefined) {
    return countHist(randomize, spec, x, N, size, (y) => (typeof y === "number" ? y : -1));
  }
  switch (spec.mechanism) {
    case "sue":
    case "oue":
    case "multi_rr":
      return countHist(randomize, spec, x, N, 2 ** k, (bits) =>
        bits.length === k && bits.every(isBit) ? bits.reduce((p, b, i) => p + b * 2 ** i, 0) : -1);
    case "hadamard": {
      const K = spec.weights.K;
      return countHist(randomize, spec, x, N, 2 * K, ([j, bit]) =>
        Number.isInteger(j) && j >= 0 && j < K && isBit(bit) ? 2 * j + bit : -1);
    }
    case "olh":
      return countOlh(randomize, spec, x, N);
  }
  throw new Error(`no audit for ${spec.mechanism}`);
}

// What the audit draws reports with, from the randomizer module: its
// randomize() (the device's check, then the sampler on its secure word pool).
// A spec the device refuses to run because its ε is above the module's
// ceiling (the audit's ε = 9 grid) cannot be drawn through randomize(); after
// confirming that randomize() does refuse it, its reports come from the same
// module's sampler (randomizeWithSource) fed words from
// crypto.getRandomValues, so the shipped sampling code is still audited.
export function reportSource(module, spec) {
  if (typeof module === "function") return module;
  try {
    module.checkSpec(spec);
    return module.randomize;
  } catch (error) {
    if (!error || error.code !== "above_question_ceiling") throw error;
  }
  let refused = false;
  try {
    module.randomize(spec, spec.mechanism === "multi_rr" || spec.mechanism === "padding_sampling" ? [] : 0);
  } catch (error) {
    refused = error && error.code === "above_question_ceiling";
  }
  if (!refused) throw new Error("randomize() ran a spec its own check refuses");
  const words = new Uint32Array(16384);
  let used = words.length;
  const next = () => {
    if (used === words.length) {
      globalThis.crypto.getRandomValues(words);
      used = 0;
    }
    return words[used++];
  };
  return (s, x) => module.randomizeWithSource(s, x, next);
}

// `source`: the randomizer module (see reportSource), or a randomize function.
export function auditCounts(source, items, N) {
  return items.map((item) => {
    try {
      const spec = item.spec ?? item;
      const inputs = item.inputs ?? Array.from({ length: spec.k ?? 2 }, (_, x) => x);
      const randomize = reportSource(source, spec);
      return { inputs: inputs.map((x) => countInput(randomize, spec, x, N)) };
    } catch (err) {
      return { error: String(err && err.message ? err.message : err) };
    }
  });
}
