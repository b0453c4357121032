// Typed words and "Other, please specify" in the outbox's body and allowlist.
import assert from "node:assert/strict";
import test from "node:test";

import { allowedNames, buildBody, BodyRefused, OTHER_SUFFIX } from "../../static/js/outbox.js";

const CONFIG = { questions: [], plain: [3, 5], plain_optional: [5], other: { 5: 2 } };
const KEY = "3b241101-e2bb-4255-8caf-4136c566a962";

function build(plain) {
  return Array.from(new URLSearchParams(buildBody(CONFIG, { page: [], idempotencyKey: KEY, plain, reports: new Map() })));
}

test("the words beside Other are allowed only for a question with Other", () => {
  const names = allowedNames(CONFIG);
  assert.ok(names.has(`q5${OTHER_SUFFIX}`));
  assert.ok(!names.has(`q3${OTHER_SUFFIX}`));
});

test("a typed answer keeps its line breaks and the words beside Other go with their answer", () => {
  const body = build(new Map([
    [3, { values: ["Fine.\nThanks"], skipped: false, other: "" }],
    [5, { values: ["2"], skipped: false, other: "Teal" }],
  ]));
  assert.deepEqual(body.slice(1), [["q3", "Fine.\nThanks"], ["q5", "2"], [`q5${OTHER_SUFFIX}`, "Teal"]]);
});

test("a skipped question sends no words beside Other", () => {
  const body = build(new Map([[5, { values: [], skipped: true, other: "Teal" }]]));
  assert.ok(!body.some(([name]) => name === `q5${OTHER_SUFFIX}`));
});

test("a control character other than a line break is refused in typed words and beside Other", () => {
  assert.throws(() => build(new Map([[3, { values: ["bell\u0007"], skipped: false }]])), BodyRefused);
  assert.throws(() => build(new Map([[5, { values: ["2"], skipped: false, other: "a\nb" }]])), BodyRefused);
});
