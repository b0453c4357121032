// How the answer page reads a typed number (static/js/respond_numbers.js, the block
// between its <typed-number> markers, run here exactly as shipped): "." or ","
// is a decimal mark, but a form that could also carry thousands separators is
// refused, never guessed (docs/device-languages.md, section 4).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "./support.mjs";

const source = readFileSync(join(ROOT, "static", "js", "respond_numbers.js"), "utf8");
const block = /\/\/ <typed-number>\n([\s\S]*?)\/\/ <\/typed-number>/.exec(source);
assert.ok(block, "respond_numbers.js marks its typed-number block");
const { readTypedNumber } = new Function(`${block[1]}\nreturn { readTypedNumber };`)();

// The value read as plain decimal text, "grouped" (refused: may carry
// thousands separators), or null (not a number).
function read(text, gridPlaces) {
  const result = readTypedNumber(text, gridPlaces);
  if (result === null || result.grouped) return result && "grouped";
  const negative = result.units < 0n;
  const digits = (negative ? -result.units : result.units).toString().padStart(result.places + 1, "0");
  const plain = result.places ? `${digits.slice(0, -result.places)}.${digits.slice(-result.places)}` : digits;
  return (negative ? "-" : "") + plain;
}

// [typed, decimals the grid allows, what the device reads]
const CASES = [
  // Whole numbers, as anyone types them.
  ["1000", 0, "1000"],
  ["  42 ", 0, "42"],
  ["-7", 0, "-7"],
  ["+7", 0, "7"],
  // One group of three after one mark: a thousand in English, one in Spanish
  // or French. Refused where the grid has fewer than three decimals.
  ["1,000", 0, "grouped"],
  ["1.000", 0, "grouped"],
  ["12.500", 0, "grouped"],
  ["999,999", 2, "grouped"],
  ["-1.000", 0, "grouped"],
  ["1.000", 2, "grouped"],
  // ... and read as decimals where the grid has three or more.
  ["1.000", 3, "1.000"],
  ["1,250", 3, "1.250"],
  // More than one mark, or spaces (plain, no-break, narrow no-break, thin)
  // or apostrophes between digits: refused whatever the grid.
  ["1,000,000", 0, "grouped"],
  ["1.000.000", 0, "grouped"],
  ["1,000.5", 1, "grouped"],
  ["1.000,5", 1, "grouped"],
  ["1.2.3", 3, "grouped"],
  ["1 000", 0, "grouped"],
  ["1\u00a0000", 0, "grouped"],
  ["1\u202f000", 0, "grouped"],
  ["1\u2009000", 0, "grouped"],
  ["1'000", 0, "grouped"],
  ["1\u2019000", 0, "grouped"],
  ["10 000,5", 1, "grouped"],
  // Plain decimals keep working with either mark.
  ["2.5", 1, "2.5"],
  ["2,5", 1, "2.5"],
  ["0,25", 2, "0.25"],
  [",5", 1, "0.5"],
  ["-0.5", 1, "-0.5"],
  // Forms that cannot be a thousands group are plain decimals: a leading 0,
  // four or more digits before the mark, or not exactly three after it.
  ["0.500", 2, "0.500"],
  ["1000.000", 0, "1000.000"],
  ["1.00", 0, "1.00"],
  ["1,0000", 0, "1.0000"],
  ["12.", 0, "12"],
  // Not numbers at all.
  ["", 0, null],
  ["abc", 0, null],
  ["1e3", 0, null],
  ["- 5", 0, null],
  ["1_000", 0, null],
  ["5 years", 0, null],
  ["1".repeat(41), 0, null],
];

for (const [typed, places, expected] of CASES) {
  test(`typed ${JSON.stringify(typed)} on a grid of ${places} decimals reads as ${expected}`, () => {
    assert.equal(read(typed, places), expected);
  });
}

test("a refused form is never also given a value", () => {
  for (const [typed, places, expected] of CASES) {
    if (expected !== "grouped") continue;
    assert.deepEqual(readTypedNumber(typed, places), { grouped: true }, typed);
  }
});
