// Shared helpers for the randomizer tests and audit scripts (not a test file).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(here, "..", "..");
export const MODULE_PATH = join(ROOT, "ldp", "js", "randomizer.js");
export const VECTORS_PATH = join(ROOT, "ldp", "spec", "vectors.json");

export function moduleSource() {
  return readFileSync(MODULE_PATH, "utf8");
}

// Replace `from` by `to` in `source`, insisting on exactly one occurrence so a
// test build or mutant can never silently stop applying.
export function replaceOnce(source, from, to) {
  const parts = source.split(from);
  if (parts.length !== 2) {
    throw new Error(`expected exactly one ${JSON.stringify(from)}, found ${parts.length - 1}`);
  }
  return parts.join(to);
}

let counter = 0;
let dir;

// Import a variant of the module from source text written to a temp file.
export async function importSource(source, name = "variant") {
  dir ??= mkdtempSync(join(tmpdir(), "randomizer-"));
  const path = join(dir, `${name}-${process.pid}-${counter++}.mjs`);
  writeFileSync(path, source);
  return import(pathToFileURL(path).href);
}

// A word source serving `words` in order and counting what it served.
// Throws when exhausted, so a sampler that wants more words than the
// contract says fails loudly.
export function wordSource(words) {
  let i = 0;
  const next = () => {
    if (i >= words.length) throw new Error(`word source exhausted after ${i} words`);
    return words[i++];
  };
  next.used = () => i;
  return next;
}

// Small seeded PRNG (xorshift128) for reproducible word streams in tests.
export function seededWords(seed) {
  let a = seed >>> 0 || 1, b = 362436069, c = 521288629, d = 88675123;
  return () => {
    const t = a ^ (a << 11);
    a = b; b = c; c = d;
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return d;
  };
}
