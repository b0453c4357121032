// Statistical audit, Node side: one long-lived process that runs the SHIPPED
// randomizer (or mutants of it) and answers requests, so an audit run starts
// Node once instead of once per spec. The counting is tests/js/audit_counts.mjs,
// shared with the audit of the module as the app serves it (headless
// Chromium); the Python side (tests/ldp/js_audit.py) turns counts into ε lower
// bounds, goodness-of-fit tests and gates.
//
// Usage: node audit.mjs, then one JSON request per line on standard input;
// one JSON reply per line on standard output, in order. Modules are imported
// once per path and kept.
//   {"op": "counts", "module": PATH, "n": N, "items": ITEMS}
//     -> {"results": [...]}: auditCounts over ITEMS with real crypto
//        randomness (items and results as described in audit_counts.mjs).
//   {"op": "differs", "module": PATH, "reference": PATH, "items": ITEMS,
//    "reports": R, "seed": S}
//     -> {"differs": [bool per item]}: whether the two modules give a
//        different report (or one throws) for some input of the item, over R
//        reports per input drawn with the same seeded words
//        (randomizeWithSource). The audit uses it to find the specs a mutant
//        changes.
// A request that fails answers {"error": message}.
import { createInterface } from "node:readline";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { auditCounts } from "./audit_counts.mjs";
import { seededWords } from "./support.mjs";

const modules = new Map();

async function load(path) {
  if (!modules.has(path)) {
    modules.set(path, await import(pathToFileURL(resolve(path)).href));
  }
  return modules.get(path);
}

function reportText(module, spec, x, words) {
  try {
    return JSON.stringify(module.randomizeWithSource(spec, x, words));
  } catch (err) {
    return `throws ${err && err.message ? err.message : err}`;
  }
}

function differs(module, reference, item, reports, seed) {
  const spec = item.spec ?? item;
  const inputs = item.inputs ?? Array.from({ length: spec.k ?? 2 }, (_, x) => x);
  for (const [i, x] of inputs.entries()) {
    const mine = seededWords(seed + i);
    const theirs = seededWords(seed + i);
    for (let r = 0; r < reports; r++) {
      if (reportText(module, spec, x, mine) !== reportText(reference, spec, x, theirs)) {
        return true;
      }
    }
  }
  return false;
}

async function handle(request) {
  const module = await load(request.module);
  switch (request.op) {
    case "counts":
      return { results: auditCounts(module, request.items, request.n) };
    case "differs": {
      const reference = await load(request.reference);
      return {
        differs: request.items.map((item) =>
          differs(module, reference, item, request.reports, request.seed)),
      };
    }
  }
  throw new Error(`unknown request ${JSON.stringify(request.op)}`);
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  let reply;
  try {
    reply = await handle(JSON.parse(line));
  } catch (err) {
    reply = { error: String(err && err.message ? err.message : err) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
}
