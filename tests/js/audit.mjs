// Statistical audit, Node side: run the SHIPPED randomizer (or a mutant of
// it) with real crypto randomness and print outcome counts as JSON. The
// counting is tests/js/audit_counts.mjs, shared with the audit of the module
// as the app serves it (headless Chromium); the Python side
// (tests/ldp/js_audit.py) turns counts into ε lower bounds, goodness-of-fit
// tests and gates.
//
// Usage: node audit.mjs MODULE_PATH N < specs.json
//   specs.json: a JSON list, each item a compiled spec (inputs: every answer
//   0 … k-1) or {"spec": compiled spec, "inputs": [answers]} (grid levels,
//   or selections for multi-select).
// Output: a JSON list, one entry per spec, each {"inputs": [counts per x]}
// (or {"error": message} if the module threw); the counts' layout is
// described in audit_counts.mjs.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { auditCounts } from "./audit_counts.mjs";

const [modulePath, nArg] = process.argv.slice(2);
const N = Number(nArg);
const module = await import(pathToFileURL(resolve(modulePath)).href);
const specs = JSON.parse(readFileSync(0, "utf8"));

process.stdout.write(JSON.stringify(auditCounts(module, specs, N)));
