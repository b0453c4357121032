// The outbox builds the body from the device's state, through its allowlist.
import assert from "node:assert/strict";
import test from "node:test";

import { allowedNames, buildBody, BodyRefused } from "../../static/js/outbox.js";

const CONFIG = {
  questions: [
    { id: 1, optional: false },
    { id: 2, optional: true },
  ],
  plain: [3, 4],
  plain_optional: [4],
  link_fields: ["PROLIFIC_PID"],
};
const KEY = "3b241101-e2bb-4255-8caf-4136c566a962";
const PAGE = [["csrfmiddlewaretoken", "t"], ["survey_revision", "2"], ["opened", "s"]];

function fields(body) {
  return Array.from(new URLSearchParams(body).entries());
}

test("a body holds the reports, spec revisions, skip markers (declined or blank) and unprotected values only", () => {
  const body = buildBody(CONFIG, {
    page: PAGE,
    idempotencyKey: KEY,
    reports: new Map([
      [1, { report: "[1]", skipped: false, spec_revision: 3 }],
      [2, { report: null, skipped: "declined", spec_revision: 1 }],
    ]),
    plain: new Map([[3, { values: ["0"], skipped: false }], [4, { values: [], skipped: "blank" }]]),
  });
  assert.deepEqual(fields(body), [
    ...PAGE,
    ["idempotency_key", KEY],
    ["q1_report", "[1]"],
    ["q1_spec_revision", "3"],
    ["q2_skipped", "declined"],
    ["q3", "0"],
    ["q4_skipped", "blank"],
  ]);
});

test("a name outside the allowlist is refused, not sent", () => {
  const sneaked = { page: [...PAGE, ["q1_answer", "1"]], idempotencyKey: KEY, reports: new Map(), plain: new Map() };
  assert.throws(() => buildBody(CONFIG, sneaked), BodyRefused);
});

test("an unprotected value of a question the configuration does not name is refused", () => {
  const state = { page: PAGE, idempotencyKey: KEY, reports: new Map(), plain: new Map([[1, { values: ["1"], skipped: false }]]) };
  assert.throws(() => buildBody(CONFIG, state), BodyRefused);
});

test("a value holding a control character is refused", () => {
  const state = { page: PAGE, idempotencyKey: KEY, reports: new Map(), plain: new Map([[3, { values: ["a\u0000"], skipped: false }]]) };
  assert.throws(() => buildBody(CONFIG, state), BodyRefused);
});

test("a required question has no skip marker among the allowed names", () => {
  assert.equal(allowedNames(CONFIG).has("q1_skipped"), false);
  assert.equal(allowedNames(CONFIG).has("q2_skipped"), true);
});

test("a skip not told apart (true) goes as the earlier marker, stored as declined or blank", () => {
  const state = {
    page: PAGE, idempotencyKey: KEY, reports: new Map(), plain: new Map([[4, { values: [], skipped: true }]]),
  };
  assert.deepEqual(fields(buildBody(CONFIG, state)).at(-1), ["q4_skipped", "skipped"]);
});

for (const skipped of ["skipped", "maybe", 1]) {
  test(`a skip marker other than declined or blank (${skipped}) is refused, not sent`, () => {
    const state = {
      page: PAGE, idempotencyKey: KEY, reports: new Map(), plain: new Map([[4, { values: [], skipped }]]),
    };
    assert.throws(() => buildBody(CONFIG, state), BodyRefused);
  });
}
