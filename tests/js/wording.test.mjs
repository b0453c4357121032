// What respondents read is produced on the device from the checked weights:
// one sentence for every mechanism kind and every vector spec, exact small
// frequencies, numbers rounded against the respondent, plain strength labels.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, VECTORS_PATH } from "./support.mjs";
import { checkSpec, checkSurvey } from "../../ldp/js/randomizer.js";
import {
  CATALOG, certainty, describeQuestion, describeRefusal, describeSurvey, frequency, mechanismSentence,
  oddsFactor,
  strength,
} from "../../ldp/js/wording.js";

const document = JSON.parse(readFileSync(VECTORS_PATH, "utf8"));
const runnable = document.groups.filter((g) => g.check.verdict === "ok");
const MECHANISMS = [
  "duchi", "forced_response", "gaussian", "geometric", "grr", "hadamard", "multi_rr", "olh",
  "ordinal", "oue", "padding_sampling", "piecewise", "sue", "warner",
];

// Every number written in a sentence (percentages, "N times in D", factors).
const numbers = (text) => (text.match(/\d[\d,.]*/g) || []).map((n) => n.replace(/,/g, ""));
const significant = (n) => n.replace(".", "").replace(/^0+/, "").replace(/0+$/, "").length;

test("every mechanism kind has wording and a runnable vector spec", () => {
  assert.deepEqual(Object.keys(CATALOG.mechanism).filter((k) => !["grr_two", "forced_response_split", "unrelated_question"].includes(k)).sort(), MECHANISMS);
  assert.deepEqual([...new Set(runnable.map((g) => g.spec.mechanism))].sort(), MECHANISMS);
});

for (const group of runnable) {
  test(`wording is produced on the device: ${group.name}`, () => {
    const words = describeQuestion(group.spec, checkSpec(group.spec));
    for (const text of [words.sentence, words.odds, words.epsilon, words.label]) {
      assert.ok(text.length > 0);
      assert.doesNotMatch(text, /[{}]|undefined|NaN|null/, text);
    }
    assert.ok(words.sentence.length <= 220, `too long: ${words.sentence}`);
    // Main text: at most two significant digits in any figure (counts of
    // answers or groups, like "4096 answers", are not figures of chance).
    const chances = words.sentence.match(/\d+ times? in \d+/g) || [];
    assert.ok(chances.length > 0 || /every time|never/.test(words.sentence), words.sentence);
    for (const chance of chances) {
      for (const n of numbers(chance)) if (n !== "100") assert.ok(significant(n) <= 2, chance);
    }
    assert.match(words.epsilon, new RegExp(`ε = ${group.check.epsilon_display.replace(".", "\\.")}\\b`));
  });
}

test("the coin design reads “3 times in 4” and “at most 75% sure”", () => {
  const coin = runnable.find((g) => g.name === "forced_response coin").spec;
  const words = describeQuestion(coin, checkSpec(coin));
  assert.match(words.sentence, /reports your true answer 3 times in 4; otherwise it reports the other answer/);
  assert.match(words.odds, /at most 75% sure/);
  assert.match(words.odds, /by at most 3\./);
  assert.equal(words.label, "Strong protection");
});

test("a custom forced-response split names its three exact frequencies in 100", () => {
  const spec = runnable.find((g) => g.name === "forced_response 7/10 1/5 1/10").spec;
  assert.equal(
    describeQuestion(spec, checkSpec(spec)).sentence,
    "Your device sends your true answer 70 times in 100; 20 times it sends “Yes” and 10 times “No” instead, whatever your answer.",
  );
});

test("a split on a finer grid is about whole percents: the truth rounded up, forced answers down", () => {
  // 12.5% / 12.3% / 75.2%: 1000ths do not fit in 100.
  const spec = { mechanism: "forced_response", weights: { truthful: 752, forced_yes: 125, forced_no: 123 } };
  assert.equal(
    mechanismSentence(spec),
    "Your device sends your true answer about 76 times in 100; about 12 times it sends “Yes” and about 12 times “No” instead, whatever your answer.",
  );
});

test("the unrelated-question design is told as a made-up answer with its prevalence", () => {
  // t = 3/5, π = 1/4: weights 6, 1, 3 (ldp.mechanisms.binary.unrelated_question_spec).
  const spec = { mechanism: "forced_response", weights: { truthful: 6, forced_yes: 1, forced_no: 3 } };
  assert.equal(
    mechanismSentence(spec, "unrelated_question"),
    "Your device sends your true answer 3 times in 5; otherwise it answers a made-up question for you, “Yes” 1 time in 4 and “No” the rest of the time.",
  );
});

test("frequencies: exact small fractions, otherwise two digits rounded up", () => {
  assert.equal(frequency(3, 4), "3 times in 4");
  assert.equal(frequency(2, 4), "1 time in 2");
  assert.equal(frequency(3139872685n, 4294967296n), "about 74 times in 100"); // 73.1%
  assert.equal(frequency(3139872685n, 4294967296n, false), "about 73 times in 100");
  assert.equal(frequency(148, 149), "more than 99 times in 100");
  assert.equal(frequency(5, 5), "every time");
});

test("what an observer can learn is rounded up, never down", () => {
  for (const [n, d] of [[3n, 1n], [2718281828n, 1000000000n], [49n, 1n], [148n, 1n], [22026n, 1n], [7n, 3n]]) {
    const shown = Number(certainty({ n, d }).replace("%", "")) / 100;
    const exact = Number(n) / Number(n + d);
    assert.ok(shown >= exact, `${n}/${d}: ${shown} < ${exact}`);
    assert.ok(shown - exact < 0.01, `${n}/${d}: ${shown} is too far above ${exact}`);
    const factor = Number(oddsFactor({ n, d }).replace(/,/g, ""));
    assert.ok(factor >= Number(n) / Number(d) && significant(String(factor)) <= 2, `${n}/${d}: ${factor}`);
  }
  assert.equal(certainty({ n: 3n, d: 1n }), "75%");
  assert.equal(certainty({ n: 1484131591n, d: 10000000n }), "99.4%");
});

test("strength labels follow the odds bound: 75%, 90%, 99%", () => {
  assert.equal(strength({ n: 3n, d: 1n }), "strong");
  assert.equal(strength({ n: 301n, d: 100n }), "moderate");
  assert.equal(strength({ n: 9n, d: 1n }), "moderate");
  assert.equal(strength({ n: 99n, d: 1n }), "weak");
  assert.equal(strength({ n: 100n, d: 1n }), "veryWeak");
});

test("a survey near certainty is labelled weak, never plainly protected", () => {
  const names = ["multi_rr k=8 eps=4", "geometric 0..10 step 1 eps=4"];
  const specs = names.map((name) => runnable.find((g) => g.name === name).spec);
  const words = describeSurvey(checkSurvey(specs));
  assert.equal(words.strength, "veryWeak");
  assert.match(words.summary, /^Very weak protection overall\./);
  assert.match(words.odds, /at most 99\.9+\d*% sure/);
});

test("the survey figures include ε already sent from this device", () => {
  const coin = runnable.find((g) => g.name === "forced_response coin").spec;
  const words = describeSurvey(checkSurvey([coin], 1099));
  assert.match(words.epsilon, /ε = 2\.198 .*including ε = 1\.099 already sent/);
  // R ≤ 3·e^1.099 = 9.0036 (what was spent is known only rounded up): 90.004% → 91%.
  assert.match(words.odds, /at most 91% sure/);
});

test("a refusal names the researcher's contact when the survey gives one", () => {
  const text = describeRefusal("unknown_mechanism", {}, "Ada Lovelace, ada@example.org.");
  assert.match(text, /You may want to tell the researcher: Ada Lovelace, ada@example\.org\.$/);
});

test("every refusal is explained in plain words and says nothing was sent", () => {
  const codes = ["unknown_mechanism", "unverifiable", "declared_mismatch", "above_question_ceiling", "above_survey_ceiling", "no_script"];
  for (const code of codes) {
    const text = describeRefusal(code, { ceiling: 5 });
    assert.match(text, /nothing was sent/);
    assert.doesNotMatch(text, /[{}]/);
    assert.ok(text.length < 320, text);
  }
});

test("wording.js is dependency-free and has no floating-point logarithms", () => {
  const source = readFileSync(join(ROOT, "ldp", "js", "wording.js"), "utf8");
  assert.doesNotMatch(source, /\bimport\b|\brequire\s*\(|Math\.(log|exp|random|pow)/);
});
