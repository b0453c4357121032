// Number questions: exact decimal arithmetic on the grid low, low + step, …,
// high, and how a typed number is read (docs/device-languages.md, section 4).
//
// Part of the page script: respond.js loads it by the <link rel="modulepreload">
// that carries its Subresource Integrity hash and installs it once.

let d = null; // the page's device state (respond.js), bound once by install()
let words; // fixed once installed

// --- numeric: exact decimal arithmetic on the grid low, low + step, …, high ---
// Reading what the respondent typed. Pure functions between the markers:
// tests/js/typed_number.test.mjs runs this very block. The rule
// (docs/device-languages.md, section 4): "." or "," is a decimal mark, but a
// form that could also be a thousands separator is refused, never guessed.
// <typed-number>
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:[.,](\d*))?$/;
// Digits with separators between them that are not one decimal mark: more
// than one "." or ",", or spaces (no-break and thin ones too) or apostrophes.
const GROUPED_TEXT = /^[+-]?\d[\d.,'\u2019\u02bc\s]*\d$/u;
// One to three digits (not a lone 0), one mark, three digits: "1.000",
// "12,500". In English that is a thousand, in Spanish or French one.
const ONE_GROUP = /^[+-]?[1-9]\d{0,2}[.,]\d{3}$/;

// An exact decimal {units, places} from text with at most one "." or ",",
// or null. (Also reads the spec's own low, high and step.)
function parseDecimal(value) {
  const match = DECIMAL_TEXT.exec(value.trim());
  if (value.trim().length > 40 || !match) return null;
  const [, sign, whole, frac = ""] = match;
  if (whole === "" && frac === "") return null;
  const units = BigInt((whole || "0") + frac);
  return { units: sign === "-" ? -units : units, places: frac.length };
}

// Decimals a plain decimal text really has ("0.50" has 1).
function significantPlaces(text) {
  const [, frac = ""] = String(text).split(".");
  return frac.replace(/0+$/, "").length;
}

// What the respondent typed, on a grid whose values have at most `gridPlaces`
// decimals: {units, places}, {grouped: true} when it may be written with
// thousands separators (refused, never guessed), or null (not a number).
function readTypedNumber(value, gridPlaces) {
  const text = value.trim();
  if (text.length > 40) return null;
  if (ONE_GROUP.test(text) && gridPlaces < 3) return { grouped: true };
  const parsed = parseDecimal(text);
  if (parsed !== null) return parsed;
  return GROUPED_TEXT.test(text) ? { grouped: true } : null;
}
// </typed-number>

function scaled(value, places) {
  return value.units * 10n ** BigInt(places - value.places);
}

function formatScaled(units, places) {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, "0");
  let shown = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
  if (places) shown = shown.replace(/0+$/, "").replace(/\.$/, "");
  return (negative && shown !== "0" ? "-" : "") + shown;
}

function numericGrid(question) {
  const parts = ["low", "high", "step"].map((f) => parseDecimal(question.spec[f]));
  const places = Math.max(...parts.map((p) => p.places));
  const [low, high, step] = parts.map((p) => scaled(p, places));
  return { low, high, step, places };
}

function valueOfLevel(question, level) {
  const g = numericGrid(question);
  return formatScaled(g.low + BigInt(level) * g.step, g.places);
}

function levelOf(question, value) {
  const { low: lowText, high: highText, step: stepText } = question.spec;
  const number = words.number;
  if (value.trim() === "") return { error: words.sentence("page.enterNumber") };
  const g = numericGrid(question);
  const parsed = readTypedNumber(value, Math.max(significantPlaces(lowText), significantPlaces(stepText)));
  if (parsed === null) return { error: words.sentence("page.notANumber", { text: value.trim(), low: number(lowText) }) };
  if (parsed.grouped) {
    // The example is the highest allowed value, written plainly: no grouping,
    // the language's decimal sign.
    const decimalSign = number("0.5").slice(1, -1);
    const example = formatScaled(g.high, g.places).replace(".", decimalSign);
    return { error: words.sentence("page.groupedNumber", { text: value.trim(), example }) };
  }
  const places = Math.max(g.places, parsed.places);
  const up = 10n ** BigInt(places - g.places);
  const [low, high, step] = [g.low * up, g.high * up, g.step * up];
  const v = scaled(parsed, places);
  if (v < low || v > high) return { error: words.sentence("page.outOfRange", { low: number(lowText), high: number(highText) }) };
  if ((v - low) % step !== 0n) {
    const below = low + ((v - low) / step) * step;
    return {
      error: words.sentence("page.offGrid", {
        text: value.trim(), step: number(stepText), low: number(lowText),
        below: number(formatScaled(below, places)), above: number(formatScaled(below + step, places)),
      }),
    };
  }
  return { answer: Number((v - low) / step) };
}

// Binds this module to the page's device state, once, and adds its functions
// to it (a second install is refused: nothing can rebind it).
export function install(device) {
  if (d !== null) throw new Error("respond_numbers.js is installed already");
  d = device;
  ({ words } = device);
  Object.assign(device, {
    valueOfLevel, levelOf,
  });
}
