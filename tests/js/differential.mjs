// Python <-> JS differential, Node side: randomize a stream of answers with
// injected words and print one line per report: JSON report, space, words
// consumed. The words run on from one report to the next, so a single word
// consumed differently would also break every later line.
//
// Usage: node differential.mjs SPEC.json WORDS.bin ANSWERS
//   WORDS.bin: little-endian uint32 words; ANSWERS: a .bin file of
//   little-endian uint32 answers, or a .json list of answers (selections).
import { readFileSync } from "node:fs";
import { randomizeWithSource } from "../../ldp/js/randomizer.js";

const [specPath, wordsPath, answersPath] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, "utf8"));
const asWords = (buf) => new Uint32Array(Uint8Array.from(buf).buffer); // aligned copy
const words = asWords(readFileSync(wordsPath));
const answers = answersPath.endsWith(".json")
  ? JSON.parse(readFileSync(answersPath, "utf8"))
  : asWords(readFileSync(answersPath));

let pos = 0;
const next = () => {
  if (pos >= words.length) throw new Error("word stream exhausted");
  return words[pos++];
};
const lines = new Array(answers.length);
for (let i = 0; i < answers.length; i++) {
  const start = pos;
  const report = randomizeWithSource(spec, answers[i], next);
  lines[i] = `${JSON.stringify(report)} ${pos - start}`;
}
process.stdout.write(lines.join("\n") + "\n");
