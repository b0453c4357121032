// Deniable's device memory: what this device has given one site, keyed by
// the content of each question, never by the survey id the page supplies.
//
// One versioned JSON document per site (localStorage is per origin), under
// MEMORY_KEY; docs/privacy.md describes the format:
//
//   {"format": 1,
//    "given": [{"day": "2026-12-07", "milli": 3099}, ...],
//    "contents": {"<memoryKey of the question's content object>":
//                  {"reports": [{"scope": "<survey id>", "day": "2026-12-07",
//                                "milli": 1000, "report": "<JSON text>"}]}}}
//
// - `given`: every send to this site, its ⌈1000 ε⌉ and its UTC day (no finer
//   time). The total over the last WINDOW_DAYS days is shown before every
//   send, and a send that would take it above ORIGIN_CEILING_MILLI is
//   refused. Entries older than the window are dropped.
// - `contents`: per question content (its text, options, spec and wording
//   inputs, keyed by `memoryKey`), the randomized reports sent for it (never a true
//   answer), each under the survey id it was sent for. The same content under
//   the same survey id re-sends its remembered report; under another survey id
//   the device never re-sends it (an identical report would join the two
//   studies) and never randomizes it again without the respondent's yes.
// - `drafts` (optional): per survey id, what the respondent saved to finish
//   later on this device: {"day", "plain": {"<question id>": {"values",
//   "skipped", "other"}}}, the answers NOT protected, as they would be sent.
//   A protected answer saved for later is never here: it is randomized when
//   saved and its report goes into `contents` (and its ε into `given`) like
//   a sent one, since any page of this site can read it. Kept DRAFT_DAYS.
// - `asked` (optional): per wording fingerprint (`askedKey`: the question's
//   words and its answer options, normalized) of every PROTECTED question on
//   a page this device sent (or saved) to this site, {"day": the UTC day of
//   that send, "milli": the smallest ⌈1000 ε⌉ it was asked with}. When the
//   same words and options come back unprotected, or with a larger ε, the
//   device asks before anything of that answer leaves (`downgrades`). Nothing
//   about an answer is here, only what the server itself asked. Noted with
//   the send (`remember`), so a page only looked at leaves no trace; kept
//   WINDOW_DAYS after the last send that asked it.
// - Extensions add keys, never change these: a panel's permanent randomized
//   report per content ("permanent") and a fresh layer per wave (a report
//   with "layer": "instant") fit in `contents` as they are.
//
// An unreadable or unknown-format memory fails closed: it counts as a site
// that already received the ceiling, so nothing is sent until the respondent
// clears it themselves. Pure functions over a Storage; no DOM.

export const MEMORY_KEY = "deniable.memory";
export const FORMAT = 1;
// The window the total covers: the current 12 months, rolling.
export const WINDOW_DAYS = 365;
// The most ε (× 1000) one device gives one site within the window: two
// surveys at the randomizer's per-survey ceiling (ε = 10).
export const ORIGIN_CEILING_MILLI = 20000;
// How long a draft saved to finish later is kept on the device.
export const DRAFT_DAYS = 30;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const HEX64 = /^[0-9a-f]{64}$/;

export class MemoryRefused extends Error {
  constructor(code, facts = {}) {
    super(code);
    this.name = "MemoryRefused";
    this.code = code;
    this.facts = facts;
  }
}

// --- content objects and the memory's keys -----------------------------------------
/** SHA-256 (lowercase hex) of `text`'s UTF-8 bytes. */
export async function sha256Hex(text) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A content object as the page gives it, `{hash, text}` (text: the server's
 * canonical JSON, surveys/collection/content.py): the text's bytes are hashed
 * BEFORE they are parsed, never re-serialised (JavaScript writes floats
 * differently from Python). Returns the parsed object; throws TypeError when
 * the hash differs or the text is not a JSON object.
 */
export async function verifyContent(entry) {
  if (!entry || typeof entry.text !== "string" || typeof entry.hash !== "string") {
    throw new TypeError("no content object");
  }
  if ((await sha256Hex(entry.text)) !== entry.hash) throw new TypeError("the content object's hash differs");
  const object = JSON.parse(entry.text);
  if (!object || typeof object !== "object" || Array.isArray(object)) throw new TypeError("not a content object");
  return object;
}

/**
 * Canonical JSON as this device writes it: keys sorted, no whitespace,
 * numbers and strings as JSON.stringify writes them. For a value without
 * floats it is the server's canonical text (tests/fixtures/content_vectors.json).
 */
export function canonicalJson(value) {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`not canonical: the number ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  throw new TypeError(`not canonical: ${typeof value}`);
}

// What names a question's place in one survey, not what it asks: left out of
// the memory's key, so the same question under another survey (or a copy of
// the survey) is remembered as the same content.
export const PLACE_FIELDS = Object.freeze(["question", "spec_revision", "show_if", "section", "optional"]);

/**
 * The memory's key for a verified content object: the SHA-256 of this
 * device's canonical JSON of the object without its PLACE_FIELDS. Only this
 * device computes it, so it needs no agreement with the server's writer.
 */
export async function memoryKey(object) {
  const asked = Object.fromEntries(Object.entries(object).filter(([key]) => !PLACE_FIELDS.includes(key)));
  return sha256Hex(canonicalJson(asked));
}

// --- days ----------------------------------------------------------------------------
/** "YYYY-MM-DD" of `date` in UTC. */
export function dayOf(date) {
  return date.toISOString().slice(0, 10);
}

function daysBetween(earlier, later) {
  return Math.round((Date.parse(`${later}T00:00:00Z`) - Date.parse(`${earlier}T00:00:00Z`)) / 86400000);
}

const inWindow = (day, today, days = WINDOW_DAYS) =>
  DAY.test(day) && daysBetween(day, today) < days && daysBetween(day, today) >= 0;

// --- reading and writing ------------------------------------------------------------
function empty() {
  return { format: FORMAT, given: [], contents: {} };
}

const isObject = (value) => Boolean(value) && typeof value === "object" && !Array.isArray(value);

function goodPlain(sent) {
  return isObject(sent) && Array.isArray(sent.values) && sent.values.every((v) => typeof v === "string") &&
    [false, "declined", "blank"].includes(sent.skipped) && (sent.other === undefined || typeof sent.other === "string");
}

function goodDrafts(drafts) {
  return drafts === undefined || (isObject(drafts) && Object.values(drafts).every((draft) =>
    isObject(draft) && DAY.test(draft.day) && isObject(draft.plain) && Object.values(draft.plain).every(goodPlain)));
}

function goodAsked(asked) {
  return asked === undefined || (isObject(asked) && Object.entries(asked).every(([key, seen]) =>
    HEX64.test(key) && isObject(seen) && DAY.test(seen.day) && Number.isSafeInteger(seen.milli) && seen.milli >= 0));
}

function wellFormed(memory) {
  if (!memory || typeof memory !== "object" || memory.format !== FORMAT) return false;
  if (!goodDrafts(memory.drafts) || !goodAsked(memory.asked)) return false;
  if (!Array.isArray(memory.given) || typeof memory.contents !== "object" || memory.contents === null) return false;
  const goodMilli = (m) => Number.isSafeInteger(m) && m >= 0;
  if (!memory.given.every((g) => g && DAY.test(g.day) && goodMilli(g.milli))) return false;
  return Object.entries(memory.contents).every(([hash, entry]) => HEX64.test(hash) && entry &&
    Array.isArray(entry.reports) && entry.reports.every((r) => r && typeof r.scope === "string" &&
      DAY.test(r.day) && goodMilli(r.milli) && typeof r.report === "string"));
}

/**
 * The memory this site's storage holds, with what fell out of the window
 * dropped ({unreadable: true} when it cannot be trusted: fail closed).
 */
export function readMemory(storage, today) {
  let raw;
  try {
    raw = storage.getItem(MEMORY_KEY);
  } catch {
    return { ...empty(), unreadable: true };
  }
  if (raw === null) return empty();
  let memory;
  try {
    memory = JSON.parse(raw);
  } catch {
    memory = null;
  }
  if (!wellFormed(memory)) return { ...empty(), unreadable: true };
  memory.given = memory.given.filter((g) => inWindow(g.day, today));
  for (const entry of Object.values(memory.contents)) {
    entry.reports = entry.reports.filter((r) => inWindow(r.day, today));
  }
  for (const [hash, entry] of Object.entries(memory.contents)) {
    if (entry.reports.length === 0 && Object.keys(entry).length === 1) delete memory.contents[hash];
  }
  for (const [scope, draft] of Object.entries(memory.drafts ?? {})) {
    if (!inWindow(draft.day, today, DRAFT_DAYS)) delete memory.drafts[scope];
  }
  for (const [key, seen] of Object.entries(memory.asked ?? {})) {
    if (!inWindow(seen.day, today)) delete memory.asked[key];
  }
  return memory;
}

/** ⌈1000 ε⌉ this device gave this site within the window (the ceiling if unreadable). */
export function givenMilli(memory) {
  if (memory.unreadable) return ORIGIN_CEILING_MILLI;
  return memory.given.reduce((sum, g) => sum + g.milli, 0);
}

/**
 * What the memory says about content `hash` for survey `scope`:
 * {report: the report remembered for this scope, or null; milli: its
 *  ⌈1000 ε⌉ (0 without one); elsewhere: whether it was sent for another scope}.
 */
export function recall(memory, hash, scope) {
  const reports = Object.prototype.hasOwnProperty.call(memory.contents, hash) ? memory.contents[hash].reports : [];
  const same = reports.find((r) => r.scope === scope);
  return {
    report: same ? same.report : null,
    milli: same ? same.milli : 0,
    elsewhere: reports.some((r) => r.scope !== scope),
  };
}

/**
 * Refuse (MemoryRefused "site_ceiling") unless adding `addedMilli` keeps the
 * window's total at or under the ceiling; return the new total.
 */
export function checkCeiling(memory, addedMilli) {
  const given = givenMilli(memory);
  const total = given + addedMilli;
  if (memory.unreadable) throw new MemoryRefused("unreadable", { ceiling: ORIGIN_CEILING_MILLI });
  if (total > ORIGIN_CEILING_MILLI) {
    throw new MemoryRefused("site_ceiling", { given, added: addedMilli, total, ceiling: ORIGIN_CEILING_MILLI });
  }
  return total;
}

/**
 * Note a send BEFORE its first byte leaves: `addedMilli` given today, each
 * fresh report `{hash, report, milli}` under `scope`, and the protected
 * questions on the page sent, `asked`: [{key (an askedKey), milli (its
 * ⌈1000 ε⌉)}], each at the smallest ε it was ever asked with. Written and
 * read back; throws MemoryRefused "no_storage" when the browser will not keep
 * it, "site_ceiling" when it would pass the ceiling.
 */
export function remember(storage, memory, { today, scope, addedMilli, fresh, asked = [] }) {
  checkCeiling(memory, addedMilli);
  const next = copyOf(memory);
  noteAsked(next, asked, today);
  if (addedMilli > 0) next.given.push({ day: today, milli: addedMilli });
  for (const { hash, report, milli } of fresh) {
    if (!HEX64.test(hash)) throw new TypeError(`not a content hash: ${hash}`);
    const entry = next.contents[hash] ?? { reports: [] };
    entry.reports = entry.reports.filter((r) => r.scope !== scope);
    entry.reports.push({ scope, day: today, milli, report });
    next.contents[hash] = entry;
  }
  return write(storage, next);
}

// --- downgrades: a question asked under protection before, now asked with less ---
/**
 * The words of a question as its fingerprint reads them: Unicode NFKC, lower
 * case, every run of characters that are neither letters nor digits made one
 * space, trimmed. So "Have you  used drugs?" and "have you used drugs" are
 * the same words; a reworded question is not.
 */
export function normalizedWords(text) {
  return String(text).normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/**
 * The wording fingerprint of a verified content object: SHA-256 of the
 * canonical JSON of {text, options}, both normalized (normalizedWords), the
 * options sorted. It leaves out everything about protection (spec, wording,
 * `protected`) and the question's place in a survey, so the same question
 * asked with or without protection, in any survey of the site, has the same
 * fingerprint.
 */
export async function askedKey(object) {
  const options = (Array.isArray(object.options) ? object.options : []).map(normalizedWords).sort();
  return sha256Hex(canonicalJson({ options, text: normalizedWords(object.text) }));
}

// Into `next` (a copy about to be written): each of `asked` ({key, milli}),
// as asked `today`, at the smallest ε it was ever asked with.
function noteAsked(next, asked, today) {
  for (const { key, milli } of asked) {
    if (!HEX64.test(key) || !Number.isSafeInteger(milli) || milli < 0) throw new TypeError(`not a fingerprint: ${key}`);
    next.asked ??= {};
    const seen = Object.prototype.hasOwnProperty.call(next.asked, key) ? next.asked[key] : null;
    next.asked[key] = { day: today, milli: seen === null ? milli : Math.min(seen.milli, milli) };
  }
}

/**
 * The questions of `questions` ([{id, key (askedKey), milli: ⌈1000 ε⌉, or
 * null when asked without protection}]) that this site asked under stronger
 * protection before: [{id, before: the smallest ⌈1000 ε⌉ remembered, now:
 * milli or null}]. A first visit has nothing to compare with, and a question
 * whose words or options the server changed has another fingerprint: neither
 * is found.
 */
export function downgrades(memory, questions) {
  const known = memory.asked ?? {};
  const found = [];
  for (const { id, key, milli } of questions) {
    if (!Object.prototype.hasOwnProperty.call(known, key)) continue;
    const before = known[key].milli;
    if (milli === null || milli > before) found.push({ id, before, now: milli });
  }
  return found;
}

// The memory as written: its known keys only (what readMemory added is not).
function copyOf(memory) {
  const kept = { format: memory.format, given: memory.given, contents: memory.contents };
  if (memory.drafts && Object.keys(memory.drafts).length) kept.drafts = memory.drafts;
  if (memory.asked && Object.keys(memory.asked).length) kept.asked = memory.asked;
  return JSON.parse(JSON.stringify(kept));
}

function write(storage, next) {
  const text = JSON.stringify(next);
  try {
    storage.setItem(MEMORY_KEY, text);
    if (storage.getItem(MEMORY_KEY) === text) return next;
  } catch {
    // fall through
  }
  throw new MemoryRefused("no_storage");
}

// --- drafts: save and finish later, on this device only -------------------------------
/** The draft saved for survey `scope` ({day, plain}), or null. */
export function readDraft(memory, scope) {
  const drafts = memory.drafts ?? {};
  return Object.prototype.hasOwnProperty.call(drafts, scope) ? drafts[scope] : null;
}

/**
 * Keep the answers NOT protected, `plain` (question id → {values, skipped,
 * other}, as they would be sent), to finish survey `scope` later on this
 * device. Never a protected answer: save those through `remember` (randomized,
 * counted). Throws MemoryRefused "unreadable" or "no_storage".
 */
export function saveDraft(storage, memory, { today, scope, plain }) {
  if (memory.unreadable) throw new MemoryRefused("unreadable", { ceiling: ORIGIN_CEILING_MILLI });
  const kept = {};
  for (const [id, sent] of plain) {
    const entry = { values: sent.values.map(String), skipped: sent.skipped || false };
    if (sent.other) entry.other = String(sent.other);
    if (!goodPlain(entry)) throw new TypeError(`not an answer to save: ${id}`);
    kept[String(id)] = entry;
  }
  const next = copyOf(memory);
  next.drafts = { ...(next.drafts ?? {}), [scope]: { day: today, plain: kept } };
  return write(storage, next);
}

/** Forget the draft of survey `scope` (the reports it saved stay counted). */
export function dropDraft(storage, memory, scope) {
  if (memory.unreadable || !readDraft(memory, scope)) return memory;
  const next = copyOf(memory);
  delete next.drafts[scope];
  if (Object.keys(next.drafts).length === 0) delete next.drafts;
  return write(storage, next);
}
