// Downgrades (static/js/ledger.js): with every send the device remembers the
// wording fingerprint of each protected question on the page, and finds the
// same words and options asked again without protection, or with a larger ε.
// The fingerprint leaves out everything about protection and place.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  MEMORY_KEY, WINDOW_DAYS, askedKey, downgrades, normalizedWords, readMemory, remember,
} from "../../static/js/ledger.js";

class Storage {
  constructor(values = {}, { keeps = true } = {}) {
    this.values = { ...values };
    this.keeps = keeps;
    this.writes = 0;
  }
  getItem(key) {
    return Object.prototype.hasOwnProperty.call(this.values, key) ? this.values[key] : null;
  }
  setItem(key, value) {
    this.writes += 1;
    if (this.keeps) this.values[key] = String(value);
  }
}

const TODAY = "2026-12-07";
// A send of nothing fresh that asked `asked` (what a page of declined questions sends).
const sendAsking = (storage, memory, { today, asked }) =>
  remember(storage, memory, { today, scope: "survey", addedMilli: 0, fresh: [], asked });
const protectedObject = {
  v: 1, question: 7, language: "en", kind: "yes_no", text: "Have you used cannabis in the last year?",
  options: ["Yes", "No"], values: [1, 0], protected: true, spec: { mechanism: "forced_response" },
  spec_revision: 3, wording: { epsilon: 1.1, design: "" }, optional: false, show_if: null, section: "",
};
const plainObject = {
  ...protectedObject, question: 41, protected: false, spec: null, spec_revision: null, wording: null,
  section: "About you", optional: true,
};

test("a question's words are normalized: case, spacing, punctuation and Unicode forms alike", () => {
  assert.equal(normalizedWords("  Have you USED\tcannabis…  in the last year? "), "have you used cannabis in the last year");
  assert.equal(normalizedWords("ﬁve ＡＢ"), "five ab"); // NFKC: ligature and full-width letters
  assert.notEqual(normalizedWords("Have you used cannabis?"), normalizedWords("Have you ever used cannabis?"));
});

test("the fingerprint leaves out protection and place, so a protected and an unprotected asking match", async () => {
  const key = await askedKey(protectedObject);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(await askedKey(plainObject), key);
  assert.equal(await askedKey({ ...plainObject, text: "have you used CANNABIS in the last year", options: ["No", "Yes"] }), key);
});

test("other words or other answer options give another fingerprint", async () => {
  const key = await askedKey(protectedObject);
  assert.notEqual(await askedKey({ ...plainObject, text: "Did you use cannabis in the past twelve months?" }), key);
  assert.notEqual(await askedKey({ ...plainObject, options: ["Yes", "No", "Prefer not to say"] }), key);
});

test("a question protected before and asked now without protection is a downgrade", async () => {
  const storage = new Storage();
  const key = await askedKey(protectedObject);
  let memory = readMemory(storage, TODAY);
  memory = sendAsking(storage, memory, { today: TODAY, asked: [{ key, milli: 1099 }] });
  const later = readMemory(storage, "2027-01-10");
  assert.deepEqual(downgrades(later, [{ id: 41, key, milli: null }]), [{ id: 41, before: 1099, now: null }]);
  assert.equal(memory.asked[key].milli, 1099);
});

test("the same question with a larger ε is a downgrade; with the same or a smaller ε it is not", async () => {
  const storage = new Storage();
  const key = await askedKey(protectedObject);
  const memory = sendAsking(storage, readMemory(storage, TODAY), { today: TODAY, asked: [{ key, milli: 1099 }] });
  assert.deepEqual(downgrades(memory, [{ id: 7, key, milli: 2198 }]), [{ id: 7, before: 1099, now: 2198 }]);
  assert.deepEqual(downgrades(memory, [{ id: 7, key, milli: 1099 }]), []);
  assert.deepEqual(downgrades(memory, [{ id: 7, key, milli: 500 }]), []);
});

test("a first visit has nothing to compare with, so it finds no downgrade", async () => {
  const memory = readMemory(new Storage(), TODAY);
  assert.deepEqual(downgrades(memory, [{ id: 41, key: await askedKey(plainObject), milli: null }]), []);
});

test("the memory keeps the smallest ε a question was asked with: a weaker asking never lowers the bar", async () => {
  const storage = new Storage();
  const key = await askedKey(protectedObject);
  let memory = sendAsking(storage, readMemory(storage, TODAY), { today: TODAY, asked: [{ key, milli: 1099 }] });
  memory = sendAsking(storage, memory, { today: TODAY, asked: [{ key, milli: 3000 }] });
  assert.equal(readMemory(storage, TODAY).asked[key].milli, 1099);
  assert.deepEqual(downgrades(memory, [{ id: 7, key, milli: 3000 }]), [{ id: 7, before: 1099, now: 3000 }]);
});

test("only a send notes what was asked: reading the memory writes nothing", async () => {
  const storage = new Storage();
  const key = await askedKey(protectedObject);
  assert.deepEqual(downgrades(readMemory(storage, TODAY), [{ id: 7, key, milli: 1099 }]), []);
  assert.equal(storage.writes, 0);
  remember(storage, readMemory(storage, TODAY), { today: TODAY, scope: "s", addedMilli: 0, fresh: [] });
  assert.equal(readMemory(storage, TODAY).asked, undefined); // a send that asked nothing protected
});

test("a fingerprint is kept for the window after it was last shown, then forgotten", async () => {
  const storage = new Storage();
  const key = await askedKey(protectedObject);
  sendAsking(storage, readMemory(storage, "2025-12-08"), { today: "2025-12-08", asked: [{ key, milli: 1099 }] });
  assert.equal(WINDOW_DAYS, 365);
  assert.equal(downgrades(readMemory(storage, TODAY), [{ id: 41, key, milli: null }]).length, 1);
  assert.deepEqual(downgrades(readMemory(storage, "2026-12-08"), [{ id: 41, key, milli: null }]), []);
});

test("a send notes its page's protected questions beside its reports, and no answer", async () => {
  const storage = new Storage();
  const key = await askedKey(protectedObject);
  let memory = remember(storage, readMemory(storage, TODAY), {
    today: TODAY, scope: "s", addedMilli: 1099, fresh: [{ hash: "a".repeat(64), report: "1", milli: 1099 }],
    asked: [{ key, milli: 1099 }],
  });
  memory = remember(storage, memory, { today: TODAY, scope: "t", addedMilli: 0, fresh: [] });
  const written = JSON.parse(storage.getItem(MEMORY_KEY));
  assert.deepEqual(written.asked, { [key]: { day: TODAY, milli: 1099 } });
  assert.equal(downgrades(readMemory(storage, TODAY), [{ id: 41, key, milli: null }]).length, 1);
});

test("a malformed fingerprint makes the memory unreadable (fail closed), and is never noted", async () => {
  const bad = new Storage({ [MEMORY_KEY]: JSON.stringify({ format: 1, given: [], contents: {}, asked: { x: { day: TODAY, milli: 1 } } }) });
  assert.equal(readMemory(bad, TODAY).unreadable, true);
  const storage = new Storage();
  assert.throws(() => sendAsking(storage, readMemory(storage, TODAY), { today: TODAY, asked: [{ key: "x", milli: 1 }] }), TypeError);
  assert.equal(storage.getItem(MEMORY_KEY), null);
});
