// The device's wording in every language it knows: Spanish and French
// complete, Arabic partial (English one whole sentence at a time), English
// for any other page language. The figures are the same in every language:
// each sentence's numbers, read back with the language's own separators,
// are exactly the English sentence's numbers.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { join } from "node:path";
import { ROOT, VECTORS_PATH } from "./support.mjs";
import { checkSpec, checkSurvey } from "../../ldp/js/randomizer.js";
import {
  CATALOG, COMPLETE_LANGUAGES, SUPPORTED_LANGUAGES, TABLES, languageOf, wordingFor,
} from "../../ldp/js/wording.js";

const document = JSON.parse(readFileSync(VECTORS_PATH, "utf8"));
const runnable = document.groups.filter((g) => g.check.verdict === "ok");
const TRANSLATED = COMPLETE_LANGUAGES.filter((code) => code !== "en");
const english = wordingFor("en");
const REFUSALS = ["unknown_mechanism", "unverifiable", "declared_mismatch", "above_question_ceiling", "above_survey_ceiling", "no_script"];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Every number written in `text` as the language writes it, back in plain
// decimal text ("23 000" -> "23000", "1,099" -> "1.099"), sorted.
function numbersIn(text, language) {
  const parts = new Intl.NumberFormat(wordingFor(language).locale).formatToParts(12345.5);
  const group = parts.find((p) => p.type === "group").value;
  const decimal = parts.find((p) => p.type === "decimal").value;
  const pattern = new RegExp(`\\d+(?:${escape(group)}\\d{3})*(?:${escape(decimal)}\\d+)?`, "g");
  return (text.match(pattern) || [])
    .map((n) => n.split(group).join("").replace(decimal, "."))
    .sort();
}

function assertSameFigures(translated, original, language) {
  assert.doesNotMatch(translated, /[{}]|undefined|NaN|null|\[object/, translated);
  assert.deepEqual(numbersIn(translated, language), numbersIn(original, "en"), `${translated}\n${original}`);
}

// Paths of every template in a table ("page.how"), plural forms as one template.
function templates(table, prefix = "") {
  return Object.entries(table).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const plural = typeof value === "object" && "other" in value;
    return typeof value === "string" || plural ? [[path, value]] : templates(value, path);
  });
}

const placeholders = (value) => [...new Set(
  (typeof value === "string" ? [value] : Object.values(value)).flatMap((t) => t.match(/\{\w+\}/g) || []),
)].sort();

test("the device speaks the page's language when it knows it, English otherwise", () => {
  const cases = { fr: "fr", "fr-CA": "fr", ES: "es", es_MX: "es", ar: "ar", "ar-EG": "ar", en: "en", de: "en", "": "en", "x-fr": "en" };
  for (const [tag, language] of Object.entries(cases)) assert.equal(languageOf(tag), language, tag);
  assert.equal(languageOf(undefined), "en");
  assert.equal(wordingFor("de").describeRefusal("no_script"), english.describeRefusal("no_script"));
  assert.deepEqual(SUPPORTED_LANGUAGES, ["en", "es", "fr", "ar"]);
});

for (const language of TRANSLATED) {
  test(`${language}: every English sentence has a translation with the same placeholders`, () => {
    const own = new Map(templates(TABLES[language]));
    for (const [path, value] of templates(CATALOG)) {
      assert.ok(own.has(path), `${language} lacks ${path}`);
      assert.deepEqual(placeholders(own.get(path)), placeholders(value), `${language} ${path}`);
      assert.notDeepEqual(own.get(path), value, `${language} ${path} is untranslated`);
    }
    assert.deepEqual([...own.keys()].sort(), templates(CATALOG).map(([path]) => path).sort());
  });

  for (const group of runnable) {
    test(`${language}: the same figures as English: ${group.name}`, () => {
      const verdict = checkSpec(group.spec);
      const words = wordingFor(language).describeQuestion(group.spec, verdict, group.spec.design);
      const original = english.describeQuestion(group.spec, verdict, group.spec.design);
      for (const part of ["sentence", "odds", "epsilon", "label"]) {
        assert.ok(words[part].length > 0);
        assertSameFigures(words[part], original[part], language);
        if (part !== "epsilon") assert.notEqual(words[part], original[part], `${part} left in English`);
      }
      assert.equal(words.strength, original.strength);
      const survey = checkSurvey([group.spec], 1099);
      const whole = wordingFor(language).describeSurvey(survey);
      const wholeEnglish = english.describeSurvey(survey);
      for (const part of ["summary", "odds", "epsilon", "label"]) assertSameFigures(whole[part], wholeEnglish[part], language);
    });
  }

  test(`${language}: the unrelated-question design and a split keep their figures`, () => {
    const designs = [
      [{ mechanism: "forced_response", weights: { truthful: 6, forced_yes: 1, forced_no: 3 } }, "unrelated_question"],
      [{ mechanism: "forced_response", weights: { truthful: 752, forced_yes: 125, forced_no: 123 } }, ""],
      [{ mechanism: "forced_response", weights: { truthful: 7, forced_yes: 2, forced_no: 1 } }, ""],
    ];
    for (const [spec, design] of designs) {
      assertSameFigures(wordingFor(language).mechanismSentence(spec, design), english.mechanismSentence(spec, design), language);
    }
  });

  test(`${language}: every refusal, with and without a contact, keeps its figures`, () => {
    for (const code of REFUSALS) {
      for (const contact of ["", "Ada Lovelace, ada@example.org."]) {
        const text = wordingFor(language).describeRefusal(code, { ceiling: 5 }, contact);
        assertSameFigures(text, english.describeRefusal(code, { ceiling: 5 }, contact), language);
        if (contact) assert.ok(text.endsWith("Ada Lovelace, ada@example.org."), text);
      }
    }
  });

  test(`${language}: every page sentence fills all its placeholders`, () => {
    // Every placeholder gets a number of its own (text ones too: a number is text).
    const names = [...new Set(templates(CATALOG).flatMap(([, value]) => placeholders(value)))];
    const values = Object.fromEntries(names.map((name, i) => [name.slice(1, -1), 1000 * i + 2]));
    for (const [path] of templates(CATALOG)) {
      const text = wordingFor(language).sentence(path, values);
      assertSameFigures(text, english.sentence(path, values), language);
    }
  });
}

test("plurals follow each language's rules: 1 against many", () => {
  const cases = {
    en: ["1 time in 4", "3 times in 4", "The researcher changed 1 question ", "The researcher changed 2 questions "],
    es: ["1 vez de cada 4", "3 veces de cada 4", "cambió 1 pregunta ", "cambió 2 preguntas "],
    fr: ["1 fois sur 4", "3 fois sur 4", "a modifié 1 question ", "a modifié 2 questions "],
  };
  const survey = checkSurvey([runnable.find((g) => g.name === "forced_response coin").spec], 1099);
  for (const [language, [one, many, changedOne, changedMany]] of Object.entries(cases)) {
    const words = wordingFor(language);
    assert.equal(words.frequency(1, 4), one);
    assert.equal(words.frequency(3, 4), many);
    assert.ok(words.describeAgain("changed", survey, 1).includes(changedOne), words.describeAgain("changed", survey, 1));
    assert.ok(words.describeAgain("changed", survey, 2).includes(changedMany));
    assert.notEqual(words.sentence("page.tooMany", { most: 1 }).replace("1", "3"), words.sentence("page.tooMany", { most: 3 }));
  }
});

test("numbers are written the language's way and stay exact", () => {
  const ratio = { n: 1484131591n, d: 10000000n }; // R = 148.4: 99.4%, factor 150
  assert.equal(wordingFor("en").certainty(ratio), "99.4%");
  // (the no-break space is U+00A0 or U+202F, depending on the browser's CLDR)
  assert.match(wordingFor("es").certainty(ratio), /^99,4[\u00a0\u202f]%$/);
  assert.match(wordingFor("fr").certainty(ratio), /^99,4[\u00a0\u202f]%$/);
  assert.match(wordingFor("fr").oddsFactor({ n: 22026n, d: 1n }), /^23[\u00a0\u202f]000$/);
  assert.equal(wordingFor("es").oddsFactor({ n: 22026n, d: 1n }), "23.000");
  assert.equal(wordingFor("fr").epsilonText(1099), "1,099");
  assert.equal(wordingFor("fr").number("-0.25"), "-0,25");
  assert.match(wordingFor("fr").describeQuestion(runnable[0].spec, checkSpec(runnable[0].spec)).epsilon, /ε = 1,099\b/);
});

test("French puts a no-break space before ; and : and inside « »", () => {
  for (const [path, value] of templates(TABLES.fr)) {
    for (const text of typeof value === "string" ? [value] : Object.values(value)) {
      assert.doesNotMatch(text, / [;:?!»]|« /, `fr ${path}: ${text}`);
    }
  }
});

test("Arabic is partial: what it has is Arabic, the rest is whole English sentences", () => {
  const arabic = wordingFor("ar");
  for (const [path, value] of templates(TABLES.ar)) {
    const english = new Map(templates(CATALOG)).get(path);
    assert.ok(english !== undefined, `ar has ${path}, which English lacks`);
    assert.deepEqual(placeholders(value), placeholders(english), `ar ${path}`);
  }
  const coin = runnable.find((g) => g.name === "forced_response coin").spec;
  const words = arabic.describeQuestion(coin, checkSpec(coin));
  const original = english.describeQuestion(coin, checkSpec(coin));
  assert.equal(words.label, "حماية قوية");
  // No Arabic sentence for the mechanism or the odds: English, whole and exact.
  assert.equal(words.sentence, original.sentence);
  assert.equal(words.odds, original.odds);
  assert.equal(words.epsilon, original.epsilon);
  assert.match(arabic.describeRefusal("above_question_ceiling", { ceiling: 5 }), /ε = 5\)/);
  assert.match(arabic.describeRefusal("no_script"), /[\u0600-\u06ff]/);
  // An English sentence never carries an Arabic fragment (the re-answer
  // offer's label comes from the same language as its sentence).
  const survey = checkSurvey([coin], 1099);
  assert.equal(arabic.describeAgain("reanswerOffer", survey), english.describeAgain("reanswerOffer", survey));
  assert.equal(arabic.sentence("page.outOfRange", { low: 1, high: 2000 }), "Please enter a number from 1 to 2,000.");
  assert.equal(arabic.sentence("page.send"), "أرسل إجاباتي");
});

test("the tables cannot be changed by another script on the page", () => {
  assert.throws(() => { TABLES.es.page.how = "Your answers are perfectly safe."; }, TypeError);
  assert.throws(() => { CATALOG.strength.weak = "Strong protection"; }, TypeError);
  assert.throws(() => { wordingFor("fr").describeQuestion = () => ({}); }, TypeError);
});

test("an unknown sentence is an error, not an empty string", () => {
  assert.throws(() => wordingFor("fr").sentence("page.nonsense"), /no sentence/);
});

test("the page script's own load-failure sentence is wording.js's, in every language", () => {
  // respond.js must say it when wording.js itself failed, so it keeps a copy.
  const source = readFileSync(join(ROOT, "static", "js", "respond.js"), "utf8");
  const literal = /const LOAD_FAILED = (\{[\s\S]*?\n\});/.exec(source);
  assert.ok(literal, "respond.js defines LOAD_FAILED as a JSON object");
  const copies = JSON.parse(literal[1]);
  assert.deepEqual(Object.keys(copies), SUPPORTED_LANGUAGES);
  for (const language of SUPPORTED_LANGUAGES) {
    assert.equal(copies[language], wordingFor(language).sentence("page.loadFailed"), language);
  }
});
