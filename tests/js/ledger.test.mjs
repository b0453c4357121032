// The device's memory of a site (static/js/ledger.js): the rolling 12-month
// total, the hard ceiling, reports remembered per content and survey, and an
// unreadable memory failing closed.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DRAFT_DAYS, MEMORY_KEY, ORIGIN_CEILING_MILLI, WINDOW_DAYS, MemoryRefused, checkCeiling, dropDraft, givenMilli, readDraft,
  readMemory, recall, remember, saveDraft,
} from "../../static/js/ledger.js";

class Storage {
  constructor(values = {}, { keeps = true } = {}) {
    this.values = { ...values };
    this.keeps = keeps;
  }
  getItem(key) {
    return Object.prototype.hasOwnProperty.call(this.values, key) ? this.values[key] : null;
  }
  setItem(key, value) {
    if (this.keeps) this.values[key] = String(value);
  }
}

const A = "a".repeat(64);
const B = "b".repeat(64);
const stored = (memory) => new Storage({ [MEMORY_KEY]: JSON.stringify(memory) });

test("the total counts the sends of the last 365 days only, rolling", () => {
  const memory = readMemory(stored({
    format: 1, contents: {},
    given: [{ day: "2026-12-07", milli: 1000 }, { day: "2025-12-08", milli: 2000 }, { day: "2025-12-07", milli: 4000 }],
  }), "2026-12-07");
  assert.equal(WINDOW_DAYS, 365);
  assert.equal(givenMilli(memory), 3000);
  assert.deepEqual(memory.given.map((g) => g.day), ["2026-12-07", "2025-12-08"]);
});

test("a send that would pass the ceiling is refused with its figures", () => {
  const memory = readMemory(stored({ format: 1, contents: {}, given: [{ day: "2026-12-07", milli: 17000 }] }), "2026-12-07");
  assert.equal(checkCeiling(memory, ORIGIN_CEILING_MILLI - 17000), ORIGIN_CEILING_MILLI);
  assert.throws(() => checkCeiling(memory, 3001), (error) => error instanceof MemoryRefused &&
    error.code === "site_ceiling" && error.facts.total === 20001 && error.facts.given === 17000);
  const storage = new Storage();
  assert.throws(() => remember(storage, memory, { today: "2026-12-07", scope: "s", addedMilli: 3001, fresh: [] }), MemoryRefused);
  assert.equal(storage.getItem(MEMORY_KEY), null); // nothing written
});

for (const raw of ["{", JSON.stringify({ format: 2, given: [], contents: {} }), JSON.stringify({ format: 1, given: [{ day: "x", milli: 1 }], contents: {} })]) {
  test(`an unreadable memory counts as a site at the ceiling (${raw.slice(0, 20)})`, () => {
    const memory = readMemory(new Storage({ [MEMORY_KEY]: raw }), "2026-12-07");
    assert.equal(givenMilli(memory), ORIGIN_CEILING_MILLI);
    assert.throws(() => checkCeiling(memory, 0), (error) => error.code === "unreadable");
  });
}

test("a report is remembered per content and survey; another survey sees only that it was sent", () => {
  const storage = new Storage();
  let memory = readMemory(storage, "2026-12-07");
  memory = remember(storage, memory, {
    today: "2026-12-07", scope: "first", addedMilli: 2000,
    fresh: [{ hash: A, report: "1", milli: 1000 }, { hash: B, report: "[0,1]", milli: 1000 }],
  });
  const again = readMemory(storage, "2026-12-08");
  assert.deepEqual(recall(again, A, "first"), { report: "1", milli: 1000, elsewhere: false });
  assert.deepEqual(recall(again, A, "second"), { report: null, milli: 0, elsewhere: true });
  assert.deepEqual(recall(again, "c".repeat(64), "first"), { report: null, milli: 0, elsewhere: false });
  assert.equal(givenMilli(again), 2000);
  remember(storage, again, { today: "2026-12-08", scope: "second", addedMilli: 1000, fresh: [{ hash: A, report: "0", milli: 1000 }] });
  const both = readMemory(storage, "2026-12-08");
  assert.deepEqual(both.contents[A].reports.map((r) => [r.scope, r.report]), [["first", "1"], ["second", "0"]]);
  assert.equal(givenMilli(both), 3000);
});

test("a browser that does not keep the memory stops the send", () => {
  const storage = new Storage({}, { keeps: false });
  const memory = readMemory(storage, "2026-12-07");
  assert.throws(() => remember(storage, memory, { today: "2026-12-07", scope: "s", addedMilli: 1, fresh: [] }),
    (error) => error.code === "no_storage");
});

test("a draft keeps the answers not protected per survey, and a later send keeps the draft", () => {
  const storage = new Storage();
  let memory = readMemory(storage, "2026-12-07");
  memory = saveDraft(storage, memory, {
    today: "2026-12-07", scope: "s", plain: new Map([[7, { values: ["2"], skipped: false, other: "Teal" }]]),
  });
  memory = remember(storage, readMemory(storage, "2026-12-07"), {
    today: "2026-12-07", scope: "s", addedMilli: 1000, fresh: [{ hash: A, report: "1", milli: 1000 }],
  });
  const again = readMemory(storage, "2026-12-07");
  assert.deepEqual(readDraft(again, "s"), { day: "2026-12-07", plain: { 7: { values: ["2"], skipped: false, other: "Teal" } } });
  assert.equal(readDraft(again, "other"), null);
  assert.equal(givenMilli(again), 1000);
  dropDraft(storage, again, "s");
  const after = readMemory(storage, "2026-12-07");
  assert.equal(readDraft(after, "s"), null);
  assert.equal(recall(after, A, "s").report, "1"); // the saved report stays counted
  assert.equal(JSON.parse(storage.getItem(MEMORY_KEY)).drafts, undefined);
});

test("a draft older than its days is forgotten, and a malformed draft fails the memory closed", () => {
  const old = readMemory(stored({
    format: 1, given: [], contents: {}, drafts: { s: { day: "2026-11-01", plain: {} } },
  }), "2026-12-07");
  assert.equal(DRAFT_DAYS, 30);
  assert.equal(readDraft(old, "s"), null);
  const bad = readMemory(stored({
    format: 1, given: [], contents: {}, drafts: { s: { day: "2026-12-07", plain: { 1: { values: [1], skipped: false } } } },
  }), "2026-12-07");
  assert.equal(bad.unreadable, true);
  assert.throws(() => saveDraft(new Storage(), bad, { today: "2026-12-07", scope: "s", plain: new Map() }),
    (error) => error.code === "unreadable");
});
