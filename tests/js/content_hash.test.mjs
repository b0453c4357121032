// The device's content hashing (static/js/ledger.js) agrees with
// surveys/collection/content.py on every shared vector: the device hashes the
// canonical text it is given and gets the server's SHA-256; for an object
// without floats it also writes the same canonical text itself.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT } from "./support.mjs";
import { PLACE_FIELDS, canonicalJson, memoryKey, sha256Hex, verifyContent } from "../../static/js/ledger.js";

const VECTORS = JSON.parse(readFileSync(join(ROOT, "tests", "fixtures", "content_vectors.json"), "utf8")).vectors;
const hasFloat = (text) => /\d\.\d|\de-/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, ""));

test("every shared vector's canonical text hashes to the server's SHA-256 on the device", async () => {
  assert.ok(VECTORS.length >= 5);
  for (const vector of VECTORS) {
    assert.equal(await sha256Hex(vector.canonical), vector.sha256, vector.name);
    assert.deepEqual(await verifyContent({ hash: vector.sha256, text: vector.canonical }), vector.object, vector.name);
  }
});

test("without floats the device writes the server's canonical text itself", () => {
  const plain = VECTORS.filter((vector) => !hasFloat(vector.canonical));
  assert.ok(plain.length >= 4);
  for (const vector of plain) assert.equal(canonicalJson(vector.object), vector.canonical, vector.name);
});

test("a content object whose text was changed by one byte is refused", async () => {
  for (const vector of VECTORS) {
    const changed = `${vector.canonical.slice(0, -1)} }`;
    await assert.rejects(verifyContent({ hash: vector.sha256, text: changed }), TypeError, vector.name);
  }
});

test("the memory's key ignores the question's place in a survey, not what it asks", async () => {
  const { object } = VECTORS.find((vector) => vector.object.question !== undefined);
  const copied = { ...object, question: object.question + 100, spec_revision: 9, show_if: { question: 3 } };
  assert.equal(await memoryKey(copied), await memoryKey(object));
  assert.ok(PLACE_FIELDS.includes("question"));
  assert.notEqual(await memoryKey({ ...object, text: `${object.text} ` }), await memoryKey(object));
  assert.notEqual(await memoryKey({ ...object, language: "fr" }), await memoryKey(object));
});

test("the independent device reads every shared question vector as well formed, and no Other outside its answers", async () => {
  const { wellFormed } = await import("../../device/questions.js");
  const questions = VECTORS.filter((vector) => vector.object.kind !== undefined).map((vector) => vector.object);
  assert.ok(questions.some((q) => q.typed) && questions.some((q) => q.other));
  for (const question of questions) assert.ok(wellFormed(question), question.text);
  const choice = questions.find((q) => q.other);
  assert.equal(wellFormed({ ...choice, other: { ...choice.other, value: 99 } }), false);
  assert.equal(wellFormed({ ...choice, protected: true }), false);
  const text = questions.find((q) => q.typed);
  assert.equal(wellFormed({ ...text, typed: undefined }), false);
  assert.equal(wellFormed({ ...text, kind: "yes_no" }), false);
});

test("the independent device refuses pipes in a protected question's content", async () => {
  const { wellFormed } = await import("../../device/questions.js");
  const choice = VECTORS.find((vector) => vector.object.other).object;
  assert.equal(wellFormed({ ...choice, pipes: { 1: 7 } }), true);
  assert.equal(wellFormed({ ...choice, pipes: { one: 7 } }), false);
  const guarded = VECTORS.find((vector) => vector.object.protected === true).object;
  assert.equal(wellFormed({ ...guarded, pipes: { 1: 7 } }), false);
});
