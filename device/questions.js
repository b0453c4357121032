// The independent device's questions: each drawn from its checked content
// object (every text as text, every control the device's own), and read back
// from those controls only.
//
// - A protected question's answer is read here and handed to the randomizer
//   (app.js); it never leaves the device as given.
// - An unprotected question (a choice, a number, or typed words: a free-text
//   answer or the words beside "Other, please specify") is sent as given. The
//   words beside it say so, and where words are typed they say plainly that no
//   method randomizes words and that a sentence can identify its writer
//   (wording.js, `page.typedWords`).
// - An optional question may be declined ("Prefer not to answer") or left
//   blank; the two are read apart, as the answer page reads them, and only
//   the marker (`declined` or `blank`, outbox.js) is sent.

// The kinds a content object may hold (surveys/authoring/kinds.py).
export const KINDS = new Set(["yes_no", "single_choice", "ordinal", "numeric", "multi_select", "short_text", "long_text"]);
// Control characters but the line feed and the tab: never in typed words
// (surveys/collection/questions.py, typed_text).
const TEXT_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function fill(format, values) {
  return format.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
}

/** Whether a checked content object's kind-specific keys are well formed. */
export function wellFormed(body) {
  if (!KINDS.has(body.kind)) return false;
  const typed = body.typed;
  const free = body.kind === "short_text" || body.kind === "long_text";
  if (free !== (typed !== undefined)) return false;
  if (typed !== undefined && !(Number.isSafeInteger(typed.most) && typed.most > 0 && typeof typed.lines === "boolean")) return false;
  const pipes = body.pipes;
  if (pipes !== undefined && (body.protected || typeof pipes !== "object" || pipes === null ||
    !Object.entries(pipes).every(([n, id]) => /^\d{1,4}$/.test(n) && Number.isSafeInteger(id)))) return false;
  const other = body.other;
  if (other === undefined) return true;
  return !body.protected && Number.isSafeInteger(other.value) && Number.isSafeInteger(other.most) && other.most > 0 &&
    Array.isArray(body.values) && body.values.includes(other.value);
}

// --- piping: an earlier unprotected answer repeated in a later question's text ---
// `{{qN}}` (surveys/authoring/piping.py); only an unprotected question's
// content names its pipes, and each is filled with text, never markup.
const PIPE = /\{\{\s*[qQ]\s*(\d{1,4})\s*\}\}/g;
export const EMPTY = "…";

/** A question's text with every pipe shown as EMPTY (labels, the review list). */
export const plainText = (question) => question.text.replace(PIPE, EMPTY);

// The question's text as nodes: each pipe an empty <span data-pipe="id">.
function textNodes(question) {
  const pipes = question.protected ? {} : question.pipes || {};
  const nodes = [];
  let last = 0;
  for (const match of question.text.matchAll(PIPE)) {
    const id = pipes[String(Number(match[1]))];
    if (id === undefined) continue;
    nodes.push(question.text.slice(last, match.index), element("span", { "data-pipe": String(id) }, EMPTY));
    last = match.index + match[0].length;
  }
  nodes.push(question.text.slice(last));
  return nodes;
}

/** Fill every pipe with its question's current answer (EMPTY if none). */
export function fillPipes(questions, hidden, language) {
  for (const span of document.querySelectorAll("#device-form [data-pipe]")) {
    const question = questions.find((q) => String(q.question) === span.dataset.pipe);
    let text = EMPTY;
    if (question && !question.protected && !hidden.has(question.question)) {
      const read = readAnswer(question, language);
      if (!read.skipped && !read.error && read.answer !== undefined && [].concat(read.answer).length) {
        text = shownAnswer(question, read, language.words, true);
      }
    }
    span.textContent = text;
  }
}

// --- the answers a question offers ---------------------------------------------
function numericValues(range) {
  const parts = range.map((text) => {
    const [whole, frac = ""] = String(text).split(".");
    return { whole, frac };
  });
  const places = Math.max(...parts.map((p) => p.frac.length));
  const [low, high, step] = parts.map((p) => BigInt(p.whole + p.frac.padEnd(places, "0")));
  const values = [];
  for (let v = low; v <= high && values.length <= 1000; v += step) {
    const negative = v < 0n;
    const digits = (negative ? -v : v).toString().padStart(places + 1, "0");
    let shown = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
    if (places) shown = shown.replace(/0+$/, "").replace(/\.$/, "");
    values.push((negative ? "-" : "") + shown);
  }
  return values;
}

function choices(question) {
  if (question.kind === "numeric") {
    const range = question.protected ? [question.spec.low, question.spec.high, question.spec.step] : question.range;
    return numericValues(range).map((label, level) => ({ value: question.protected ? level : label, label }));
  }
  return question.options.map((label, i) => ({ value: question.values[i], label }));
}

const isTyped = (question) => question.typed !== undefined;

// --- drawing -------------------------------------------------------------------
function protectionBlock(question, verdict, words) {
  const block = element("div", { class: "protection", "data-protection-for": String(question.question) });
  if (!question.protected) {
    const key = isTyped(question) ? "page.typedWords" : "page.notProtected";
    block.append(element("p", { class: "protection not-protected" }, words.sentence(key)));
    return block;
  }
  const described = words.describeQuestion(question.spec, verdict, question.wording.design || "");
  const line = element("p", { class: `protection strength-${described.strength}` },
    element("strong", {}, `${described.label}. `), described.sentence);
  const details = element("details", {}, element("summary", {}, words.sentence("details")),
    element("p", {}, described.odds), element("p", {}, described.epsilon));
  block.append(line, details);
  return block;
}

function typedControl(question, id, ui) {
  const attributes = { id: `${id}-text`, maxlength: String(question.typed.most), autocomplete: "off" };
  const box = question.typed.lines ? element("textarea", { ...attributes, rows: "5" }) : element("input", { ...attributes, type: "text" });
  return [element("label", { for: `${id}-text` }, ui.yourAnswer), box];
}

function choiceControls(question, id, ui, words) {
  const options = choices(question);
  if (question.kind === "numeric") {
    const select = element("select", { id: `${id}-value`, "aria-label": plainText(question) });
    select.append(element("option", { value: "" }, ui.choose));
    options.forEach((option, i) => select.append(element("option", { value: String(i) }, option.label)));
    return [select];
  }
  const type = question.kind === "multi_select" ? "checkbox" : "radio";
  const controls = options.map((option, i) => {
    const input = element("input", { type, id: `${id}-${i}`, "data-index": String(i) });
    if (type === "radio") input.setAttribute("name", `${id}-device`);
    return element("div", { class: "choice" }, input, element("label", { for: `${id}-${i}` }, option.label));
  });
  if (question.other) {
    const box = element("input", {
      type: "text", id: `${id}-other`, maxlength: String(question.other.most), autocomplete: "off", "data-other": id,
    });
    controls.push(element("div", { class: "other-specify" }, element("label", { for: `${id}-other` }, ui.specify), box,
      element("p", { class: "hint not-protected" }, words.sentence("page.typedWords"))));
  }
  return controls;
}

/** The fieldset of one question, drawn from its checked content object. */
export function questionBlock(question, verdict, number, { words, ui }) {
  const id = `q${question.question}`;
  const fieldset = element("fieldset", { class: "question", id: `question-${question.question}` });
  const optional = question.optional ? ` ${ui.optional}` : "";
  fieldset.append(element("legend", {}, `${number}. `, ...textNodes(question), optional));
  if (question.help) fieldset.append(element("p", { class: "help" }, question.help));
  fieldset.append(protectionBlock(question, verdict, words));
  const group = element("div", { class: "answers", "data-answer": id });
  group.append(...(isTyped(question) ? typedControl(question, id, ui) : choiceControls(question, id, ui, words)));
  fieldset.append(group);
  if (question.optional) {
    const box = element("input", { type: "checkbox", id: `${id}-skip`, "data-skip": id });
    fieldset.append(element("div", { class: "choice skip" }, box, element("label", { for: `${id}-skip` }, ui.skip)));
  }
  fieldset.append(element("p", { class: "field-error", id: `error-${id}`, role: "alert" }));
  return fieldset;
}

// --- reading -------------------------------------------------------------------
// Typed words as sent: line ends as "\n" (the server stores them so).
const typedText = (text) => text.replace(/\r\n?/g, "\n");

function readTyped(question, id, { ui }) {
  const text = typedText(document.getElementById(`${id}-text`).value);
  if (text.trim() === "") {
    return question.optional ? { skipped: "blank" } : { error: fill(ui.pleaseAnswer, { question: plainText(question) }) };
  }
  if (TEXT_CONTROL.test(text) || (!question.typed.lines && text.includes("\n"))) return { error: ui.lettersOnly };
  return { answer: text };
}

// The words beside "Other, please specify", when "Other" is among `picked`.
function readOther(question, id, picked, { ui }) {
  if (!question.other || !picked.includes(question.other.value)) return { other: "" };
  const text = typedText(document.getElementById(`${id}-other`).value);
  if (TEXT_CONTROL.test(text) || text.includes("\n")) return { error: ui.lettersOnly };
  return { other: text.trim() === "" ? "" : text };
}

/**
 * The answer to one question from the device's own controls: {answer, other},
 * {skipped: "declined"} ("Prefer not to answer"), {skipped: "blank"} (an
 * optional question left without an answer) or {error}.
 */
export function readAnswer(question, language) {
  const { words } = language;
  const id = `q${question.question}`;
  const skip = document.querySelector(`[data-skip="${id}"]`);
  if (skip?.checked) return { skipped: "declined" };
  if (isTyped(question)) return readTyped(question, id, language);
  const options = choices(question);
  if (question.kind === "numeric") {
    const chosen = document.getElementById(`${id}-value`).value;
    if (chosen === "") return question.optional ? { skipped: "blank" } : { error: words.sentence("page.enterNumber") };
    return { answer: options[Number(chosen)].value };
  }
  const inputs = Array.from(document.querySelectorAll(`[data-answer="${id}"] input[data-index]`));
  const picked = inputs.filter((input) => input.checked).map((input) => options[Number(input.dataset.index)].value);
  if (question.kind === "multi_select") {
    if (question.max_selections && picked.length > question.max_selections) {
      return { error: words.sentence("page.tooMany", { most: question.max_selections }) };
    }
    const other = readOther(question, id, picked, language);
    return other.error ? other : { answer: picked.sort((a, b) => a - b), other: other.other };
  }
  if (picked.length === 0) return question.optional ? { skipped: "blank" } : { error: words.sentence("page.chooseAnswer") };
  const other = readOther(question, id, picked, language);
  return other.error ? other : { answer: picked[0], other: other.other };
}

// --- display logic on an unprotected answer: a hidden question sends nothing ---
function hiddenQuestions(questions, language) {
  const hidden = new Set();
  for (const question of questions) {
    const rule = question.show_if;
    if (!rule) continue;
    const driver = questions.find((q) => q.question === rule.question);
    let shown = false;
    if (driver && !driver.protected && !hidden.has(driver.question)) {
      const read = readAnswer(driver, language);
      const given = read.answer === undefined ? [] : [].concat(read.answer);
      shown = given.some((value) => (rule.any_of || []).includes(Number(value)));
    }
    if (!shown) hidden.add(question.question);
  }
  return hidden;
}

/** Hide the questions display logic hides; returns their ids. */
export function applyLogic(questions, language) {
  const hidden = hiddenQuestions(questions, language);
  for (const question of questions) {
    document.getElementById(`question-${question.question}`).hidden = hidden.has(question.question);
  }
  return hidden;
}

// --- the list of what goes as given, shown above "Send" ----------------------------
// An answer in words: the typed text, or the chosen options' labels (in a
// pipe, "Other" is the words typed beside it, as the answer page shows it).
function shownAnswer(question, read, words, piped = false) {
  if (read.skipped) return words.sentence("page.skippedPlain");
  const given = read.answer === undefined ? [] : [].concat(read.answer);
  if (read.error || given.length === 0) return words.sentence("page.noAnswerYet");
  if (isTyped(question)) return read.answer;
  const labels = new Map(choices(question).map((option) => [String(option.value), option.label]));
  const typedOther = (value) => piped && read.other && value === question.other?.value;
  const shown = given.map((value) => (typedOther(value) ? read.other : labels.get(String(value)) ?? String(value))).join(", ");
  return read.other && !piped ? `${shown}: ${read.other}` : shown;
}

/**
 * Fill `panel` with every shown unprotected answer as it will be sent (the
 * question's text and the chosen option's words or the typed text), in the
 * respondent's language, or say that none goes as given.
 */
export function renderReview(panel, questions, hidden, language) {
  const { words } = language;
  const plain = questions.filter((q) => !q.protected && !hidden.has(q.question));
  const lead = element("p", {}, element("strong", {}, words.sentence(plain.length ? "page.sentAsTyped" : "page.noneAsTyped")));
  const list = element("ul");
  for (const question of plain) {
    const shown = shownAnswer(question, readAnswer(question, language), words);
    list.append(element("li", { "data-question": String(question.question) },
      `${plainText(question)}: `, element("strong", { class: "as-typed" }, shown)));
  }
  panel.replaceChildren(lead, ...(plain.length ? [list] : []));
}

// --- a question asked with less protection than before (ledger.js, `downgrades`) ---
/**
 * Put the device's warning into the fieldset of `question`, which this site
 * asked under stronger protection before (`found`: {before, now}, ⌈1000 ε⌉,
 * `now` null when unprotected). Its answer controls stay disabled until the
 * respondent presses "Answer it anyway"; an optional question may be left
 * out instead (sent as declined: nothing of the answer). Only a real click on
 * these buttons counts. Returns the guard {state: "asked" | "accepted" |
 * "declined"} that app.js reads before sealing.
 */
export function guardDowngrade(question, found, { words }) {
  const id = `q${question.question}`;
  const fieldset = document.getElementById(`question-${question.question}`);
  const controls = () => fieldset.querySelectorAll(`[data-answer="${id}"] :is(input, select, textarea), [data-skip="${id}"]`);
  const guard = { state: "asked" };
  for (const input of controls()) input.disabled = true;
  const text = (milli) => words.epsilonText(milli);
  const sentence = found.now === null
    ? words.sentence("downgrade.unprotected")
    : words.sentence("downgrade.weaker", { before: text(found.before), now: text(found.now) });
  const warning = element("div", { class: "downgrade message", id: `downgrade-${id}`, role: "alert" },
    element("p", {}, element("strong", {}, sentence)));
  const accept = element("button", { type: "button", class: "button", id: `accept-downgrade-${id}` }, words.sentence("downgrade.accept"));
  const actions = element("p", { class: "downgrade-actions" }, accept);
  const answer = (state) => (event) => {
    if (!event.isTrusted || event.currentTarget.parentNode !== actions || guard.state !== "asked") return;
    guard.state = state;
    const skip = fieldset.querySelector(`[data-skip="${id}"]`);
    for (const input of controls()) input.disabled = state === "declined";
    if (state === "declined" && skip) skip.checked = true;
    actions.replaceChildren(...(state === "declined" ? [words.sentence("downgrade.declined")] : []));
    fieldset.dispatchEvent(new Event("change", { bubbles: true }));
  };
  accept.addEventListener("click", answer("accepted"));
  if (question.optional) {
    const decline = element("button", { type: "button", class: "button secondary", id: `decline-downgrade-${id}` },
      words.sentence("downgrade.decline"));
    decline.addEventListener("click", answer("declined"));
    actions.append(" ", decline);
  } else {
    warning.append(element("p", {}, words.sentence("downgrade.required")));
  }
  warning.append(actions);
  fieldset.querySelector(`[data-answer="${id}"]`).before(warning);
  return guard;
}
