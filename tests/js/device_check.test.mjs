// The device's own check (randomizer.js): exact likelihood ratios and ε from
// the integer weights, agreeing with the Python reference for every vector
// spec, and refusal of every hostile spec in the shared vectors.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { MODULE_PATH, VECTORS_PATH } from "./support.mjs";
import {
  EPSILON_CEILING_QUESTION, EPSILON_CEILING_SURVEY, SpecRefused, checkSpec, checkSurvey,
  epsilonMilli, likelihoodRatio, randomize,
} from "../../ldp/js/randomizer.js";

const document = JSON.parse(readFileSync(VECTORS_PATH, "utf8"));
const milliOf = (display) => Number(display.replace(".", ""));
const fraction = (r) => `${r.n}/${r.d}`;

test("the ceilings in the module are the ones the vectors were made with", () => {
  assert.deepEqual(document.ceilings, { question: EPSILON_CEILING_QUESTION, survey: EPSILON_CEILING_SURVEY });
});

for (const group of document.groups) {
  test(`exact ratio and ε agree with Python: ${group.name}`, () => {
    const ratio = likelihoodRatio(group.spec);
    assert.equal(fraction(ratio), group.check.likelihood_ratio);
    assert.equal(epsilonMilli(ratio, 30000), milliOf(group.check.epsilon_display));
    if (group.check.verdict === "ok") {
      const verdict = checkSpec(group.spec);
      assert.equal(verdict.epsilonMilli, milliOf(group.check.epsilon_display));
      assert.equal(fraction(verdict.ratio), group.check.likelihood_ratio);
    } else {
      assert.throws(() => checkSpec(group.spec), { name: "SpecRefused", code: group.check.verdict });
    }
  });
}

for (const item of document.device_checks) {
  test(`hostile spec gets the expected verdict: ${item.name}`, () => {
    if (item.likelihood_ratio !== undefined) {
      const ratio = likelihoodRatio(item.spec);
      assert.equal(fraction(ratio), item.likelihood_ratio);
      assert.equal(epsilonMilli(ratio, 30000), milliOf(item.epsilon_display));
    }
    if (item.verdict === "ok") {
      assert.equal(checkSpec(item.spec).epsilonMilli, milliOf(item.epsilon_display));
      return;
    }
    assert.throws(() => checkSpec(item.spec), (error) => error instanceof SpecRefused && error.code === item.verdict);
    // Refused before any random word is drawn: randomize throws the same.
    assert.throws(() => randomize(item.spec, 0), { code: item.verdict });
  });
}

for (const survey of document.survey_checks) {
  test(`whole-survey verdict: ${survey.name}`, () => {
    const specs = survey.questions.map((name) => document.groups.find((g) => g.name === name).spec);
    if (survey.verdict === "ok") {
      assert.equal(checkSurvey(specs).totalMilli, milliOf(survey.epsilon_display));
    } else {
      assert.throws(() => checkSurvey(specs), { code: survey.verdict });
    }
  });
}

test("ε already spent on a survey counts towards its ceiling", () => {
  const coin = document.groups.find((g) => g.name === "forced_response coin").spec;
  assert.equal(checkSurvey([coin], 0).totalMilli, 1099);
  assert.equal(checkSurvey([coin], 8901).totalMilli, 10000);
  assert.throws(() => checkSurvey([coin], 8902), { code: "above_survey_ceiling" });
  assert.throws(() => checkSurvey([coin], -1), { code: "unverifiable" });
});

test("a checked spec changed afterwards is still sampled as checked", () => {
  const spec = structuredClone(document.groups.find((g) => g.name === "warner eps=1").spec);
  randomize(spec, 1);
  spec.weights.keep = 2 ** 32 - 1;
  spec.weights.flip = 1;
  let truthful = 0;
  for (let i = 0; i < 2000; i++) truthful += randomize(spec, 1) === 1 ? 1 : 0;
  // keep/(keep+flip) ≈ 0.731: far below the 2000 of the degenerate weights.
  assert.ok(truthful < 1600, `${truthful} of 2000 truthful reports`);
});

test("ε is exact at the rounding boundary: R = e^(m/1000) bracketing", () => {
  // 3 = e^1.0986122…: 1098 thousandths is too few, 1099 is enough.
  assert.equal(epsilonMilli({ n: 3n, d: 1n }, 5000), 1099);
  assert.equal(epsilonMilli({ n: 1n, d: 1n }, 5000), 0);
  // e^5 = 148.4131591025766…: 148 is within the ceiling, 149 is not.
  assert.equal(epsilonMilli({ n: 148n, d: 1n }, 5000), 4998);
  assert.equal(epsilonMilli({ n: 149n, d: 1n }, 5000), null);
  assert.equal(epsilonMilli({ n: 1484131591n, d: 10000000n }, 5000), 5000);
  assert.equal(epsilonMilli({ n: 1484131592n, d: 10000000n }, 5000), null);
});

test("the privacy path has no floating-point randomness or logarithms", () => {
  const source = readFileSync(MODULE_PATH, "utf8");
  for (const banned of ["Math.random", "Math.exp", "Math.log", "Math.pow"]) {
    assert.ok(!source.includes(banned), `randomizer.js uses ${banned}`);
  }
});
