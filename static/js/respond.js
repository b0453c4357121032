// Deniable respondent pages (consent and form): the device checks the survey,
// says in its own words how answers are protected, randomizes protected
// answers, keeps a note that it answered, and sends only randomized reports.
//
// - The randomizer (the respondent's agent) and the wording module are loaded
//   from the <link rel="modulepreload"> tags that carry their Subresource
//   Integrity hashes; if either fails to load or verify, nothing can be sent.
// - Before anything is shown or randomized, randomizer.checkSurvey() verifies
//   every spec from its integer weights (exact ε, hard ceilings, no unknown or
//   self-contradicting specs). A refusal fails closed: the page says why in
//   plain words and nothing is sent.
// - A protected question's answer inputs have no `name` (outbox.js takes
//   away any the page adds), so no form can submit them; this script reads
//   them, randomizes, and outbox.js builds the body from the device's own
//   state through an allowlist: never a serialisation of the page's form.
// - Above "Send", the device lists every answer that goes as given (not
//   protected), and sends nothing if that list changed since it was shown.
// - Every report that leaves the device counts. Before the first byte is sent
//   the device writes a per-survey note in localStorage: {answered, expires
//   (a month), spentMilli (⌈1000 ε⌉ sent so far)}, nothing else. Until the
//   server acknowledges, the sealed body waits in sessionStorage so a retry
//   resends identical bytes; it is deleted on acknowledgement. A new
//   randomization of anything already sent is never silent: the device
//   refuses, or (where the researcher allows it) asks first and counts it.
// - An optional question may be skipped: declined ("Prefer not to answer") or
//   left blank. Then only its named marker is sent (`declined` or `blank`),
//   never a report (nothing derived from an answer leaves the device), and its
//   ε is not spent.
// - Sections are shown one at a time (Back/Next, "Section 2 of 4") within this
//   one document: moving between them sends nothing; only "Send" does. "Next"
//   checks its section first, in the server's words (section_checks.js); a
//   section with no question shown (display logic) is passed over; "Send"
//   names and focuses the first problem, with a link to its section.
// - The device's memory of this site (ledger.js, keyed by each question's
//   content hash, never by the page's survey id): the ε it gave this site in
//   the last 12 months is shown before every send and may never pass the
//   module's ceiling; content already sent for another survey is never
//   randomized again without the respondent's yes, and its report is never
//   re-sent there. Each question's content object is verified by its hash and
//   its words and protection are shown beside the controls the device reads.
// - Every question's content object (unprotected ones too) gives its wording
//   fingerprint (ledger.js, `askedKey`); every send or save remembers those
//   of the protected questions on its page, and a question this site asked under
//   stronger protection before, asked now without protection or with a larger
//   ε, gets the device's warning: its controls stay disabled and nothing of
//   it is sent until the respondent says yes, or leaves it out.
// - In a preview the device shows what it would send and posts nothing.
// - True answers are cleared from the page when it is sent and on pagehide;
//   the form has autocomplete="off"; a page restored from the back-forward
//   cache shows no answer.

const config = JSON.parse(document.getElementById("device-config").textContent);
const form = document.querySelector("form[data-respond]");
const button = form ? form.querySelector('button[type="submit"]') : null;
const statusLine = document.getElementById(form ? "respond-status" : "device-status");
const scriptNote = document.getElementById(form ? "script-note" : "device-status");
const notice = document.getElementById("device-notice");

const LEDGER_KEY = `deniable.answered.${config.survey}`;
const PENDING_KEY = `deniable.pending.${config.survey}`;
const LEDGER_MONTHS = 12;

let agent = null; // randomizer.js, once verified and loaded
let words = null; // wording.js, bound to this page's language (wordingFor)
let catalog = {}; // the djangojs catalog of this page's language: UI text only, never about protection
let plan = null; // what the next "Send" does: {mode, verdict, need, kept, spentMilli}
let sealedBody = null; // the exact bytes sealed for sending, kept for retries only
let outbox = null; // outbox.js: builds the body from the device's state (allowlist)
let order = null; // order.js: the device's own random order of questions and options
let quotas = null; // quotas.js: the quota check before anything is randomized
let piping = null; // piping.js: earlier answers not protected, repeated in later text
let checks = null; // section_checks.js: what still needs an answer, section by section
let pageValues = []; // the page's non-answer fields, read once before any answer
let review = null; // the device's list of answers that go as given (outbox.js)
let shownPlain = null; // what that list last showed: a send must match it
let sending = false;
let memory = null; // ledger.js, once verified and loaded
let contents = new Map(); // question id → its verified content {object, hash, asked}
let guards = new Map(); // question id → {state}: asked with less protection than before (ledger.js)

class NoLedger extends Error {}

// A UI string (not about protection) in this page's language, from the
// djangojs catalog the page links with its integrity hash; English without it.
function gettext(msgid) {
  return Object.prototype.hasOwnProperty.call(catalog, msgid) && typeof catalog[msgid] === "string"
    ? catalog[msgid] : msgid;
}

function interpolate(format, values) {
  return format.replace(/%\((\w+)\)s/g, (whole, key) =>
    Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole);
}

function say(message, isError = false) {
  if (!statusLine) return;
  statusLine.textContent = message;
  statusLine.classList.toggle("error", isError);
}

function showNotice(message, actions = []) {
  notice.replaceChildren();
  const paragraph = document.createElement("p");
  paragraph.textContent = message;
  notice.append(paragraph);
  for (const [label, onClick, id] of actions) {
    const action = document.createElement("button");
    action.type = "button";
    action.className = "button";
    action.textContent = label;
    if (id) action.id = id;
    action.addEventListener("click", onClick);
    notice.append(action);
  }
  notice.hidden = false;
}

// --- the ledger (localStorage) and the sealed body (sessionStorage) -------------
function monthString(date) {
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, "0")}`;
}

function expiryMonth() {
  const now = new Date();
  return monthString(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + LEDGER_MONTHS, 1)));
}

// {answered, expires, spentMilli} or null (none, expired or unreadable).
function readLedger() {
  let raw;
  try {
    raw = localStorage.getItem(LEDGER_KEY);
  } catch {
    return null;
  }
  if (raw === null) return null;
  let entry;
  try {
    entry = JSON.parse(raw);
  } catch {
    entry = null;
  }
  const valid = entry && entry.answered === true && /^\d{4}-\d{2}$/.test(entry.expires) &&
    Number.isSafeInteger(entry.spentMilli) && entry.spentMilli >= 0;
  if (!valid) {
    // Unreadable: assume the worst (answered, with the most a survey allows).
    return { answered: true, expires: expiryMonth(), spentMilli: 10000 };
  }
  if (monthString(new Date()) > entry.expires) {
    localStorage.removeItem(LEDGER_KEY);
    return null;
  }
  return entry;
}

// Written BEFORE any byte is sent; throws NoLedger if the browser won't keep it.
function writeLedger(spentMilli) {
  const entry = JSON.stringify({ answered: true, expires: expiryMonth(), spentMilli });
  try {
    localStorage.setItem(LEDGER_KEY, entry);
    if (localStorage.getItem(LEDGER_KEY) === entry) return;
  } catch {
    // fall through
  }
  throw new NoLedger("the browser did not keep the note");
}

function readPending() {
  try {
    const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY));
    return pending && typeof pending.body === "string" && pending.reports ? pending : null;
  } catch {
    return null;
  }
}

function writePending(pending) {
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
}

function dropPending() {
  try {
    sessionStorage.removeItem(PENDING_KEY);
  } catch {
    // nothing to drop
  }
}

const specText = (question) => JSON.stringify(question.spec);

// --- the device's wording ------------------------------------------------------
function fillText(name, value) {
  for (const node of document.querySelectorAll(`[data-device-text="${name}"]`)) {
    node.textContent = value;
  }
}

function protectionBlock(container, question, verdict) {
  const described = words.describeQuestion(question.spec, verdict, question.design || "");
  // What the device protects here, from the verified content object (text).
  const own = [];
  const content = contents.get(question.id);
  if (content) {
    const asks = document.createElement("p");
    asks.className = "device-asks";
    asks.textContent = words.sentence("memory.asks", { text: content.object.text });
    own.push(asks);
    if (content.object.options.length) {
      const options = document.createElement("p");
      options.className = "device-options";
      options.textContent = words.sentence("memory.options", { options: content.object.options.join(", ") });
      own.push(options);
    }
  }
  const line = document.createElement("p");
  line.className = `protection strength-${described.strength}`;
  const label = document.createElement("strong");
  label.textContent = `${described.label}. `;
  line.append(label, described.sentence);
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = words.sentence("details");
  const odds = document.createElement("p");
  odds.textContent = described.odds;
  const epsilon = document.createElement("p");
  epsilon.textContent = described.epsilon;
  details.append(summary, odds, epsilon);
  container.replaceChildren(...own, line, details);
}

// `survey` is the device's verdict on one answer to every question; `total`
// the verdict whose figures the page shows for the whole survey (with what
// this device already sent, when it is about to send more).
function renderWording(survey, total = survey) {
  const byId = new Map(config.questions.map((q, i) => [String(q.id), [q, survey.questions[i]]]));
  // On the form, each protection is placed by the controls the device reads,
  // whatever `data-protection-for` the page wrote (it may have swapped them).
  const placed = new Set();
  if (form) {
    config.questions.forEach((question, i) => {
      const holder = protectionHolder(question);
      if (!holder) return;
      protectionBlock(holder, question, survey.questions[i]);
      placed.add(holder);
    });
  }
  for (const container of document.querySelectorAll("[data-protection-for]")) {
    if (placed.has(container)) continue;
    const found = form ? null : byId.get(container.dataset.protectionFor);
    if (found) {
      protectionBlock(container, ...found);
    } else {
      // Typed words (open text): said plainly that a sentence can identify its writer.
      const typed = (config.typed || []).includes(Number(container.dataset.protectionFor));
      const line = document.createElement("p");
      line.className = "protection not-protected";
      line.textContent = words.sentence(typed ? "page.typedWords" : "page.notProtected");
      container.replaceChildren(line);
    }
  }
  // The words beside "Other, please specify" are typed too.
  for (const id of Object.keys(config.other || {})) {
    const box = document.querySelector(`[data-other-box="${id}"]`);
    if (!box) continue;
    const hint = box.querySelector("[data-typed-words]") || box.appendChild(document.createElement("p"));
    hint.className = "hint not-protected";
    hint.dataset.typedWords = "";
    hint.textContent = words.sentence("page.typedWords");
  }
  const whole = words.describeSurvey(total);
  fillText("how", words.sentence("page.how"));
  for (const node of document.querySelectorAll('[data-device-text="overall"]')) {
    const label = document.createElement("strong");
    label.className = `strength-${whole.strength}`;
    label.textContent = words.sentence("overall", { label: whole.label });
    node.replaceChildren(label, ` ${words.sentence(`strengthExplained.${whole.strength}`)} ${whole.odds}`);
  }
  fillText("keeps", words.keeps(expiryMonth()));
  fillText("total-odds", whole.odds);
  fillText("total-epsilon", whole.epsilon);
  const summary = document.getElementById("device-summary");
  if (summary) summary.hidden = false;
  const details = document.getElementById("full-details");
  if (details) details.hidden = false;
}

// The device's protection block for `question`: just before the answer
// controls it reads (the page's own block there, or one the device adds).
function protectionHolder(question) {
  const group = form.querySelector(`[data-answer-group="${question.answer_group}"]`);
  if (!group) return null;
  const fieldset = group.closest("fieldset");
  let holder = fieldset ? fieldset.querySelector(":scope > [data-protection-for]") : null;
  if (!holder || !(holder.compareDocumentPosition(group) & Node.DOCUMENT_POSITION_FOLLOWING)) {
    holder = document.createElement("div");
    holder.className = "protection";
    group.parentNode.insertBefore(holder, group);
  }
  holder.dataset.protectionFor = String(question.id);
  return holder;
}

// Canonical-enough text of a parsed JSON value (keys sorted) to compare two
// parses of the same spec; floats are written alike by the same engine.
function sortedJson(value) {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function contentRefused() {
  const error = new Error("a question does not match its content object");
  error.name = "SpecRefused";
  error.code = "content_mismatch";
  error.facts = {};
  return error;
}

// Each protected question's content object, its hash recomputed here over
// the text the page gave, before parsing: a missing object, a wrong hash, or
// an object that does not say what the device was given to check (kind,
// text, spec, wording inputs) is refused. The memory's key comes from it.
async function verifyContents() {
  const verified = new Map();
  for (const question of config.questions) {
    let object;
    let key;
    try {
      object = await memory.verifyContent(question.content);
      key = await memory.memoryKey(object);
    } catch {
      throw contentRefused();
    }
    const same = object.protected === true && object.kind === question.kind && object.text === question.text &&
      Array.isArray(object.options) && object.wording && object.wording.design === (question.design || "") &&
      sortedJson(object.spec) === sortedJson(question.spec);
    if (!same) throw contentRefused();
    verified.set(question.id, { object, hash: key, asked: await memory.askedKey(object) });
  }
  // Each unprotected question's content object too: its words are what the
  // device compares with the protected questions it was shown before.
  for (const id of config.plain || []) {
    let object;
    try {
      object = await memory.verifyContent((config.plain_content || {})[String(id)]);
    } catch {
      throw contentRefused();
    }
    if (object.protected !== false || object.question !== id || typeof object.text !== "string" ||
        !Array.isArray(object.options)) throw contentRefused();
    verified.set(id, { object, hash: null, asked: await memory.askedKey(object) });
  }
  return verified;
}

// --- a question asked with less protection than before (ledger.js, `downgrades`) ---
// Every send (or save) notes the protected questions on its page (`asked`); a
// question this site asked under stronger protection before gets the
// device's warning beside its controls, which stay disabled until a real click
// on "Answer it anyway"; an optional one may be left out (sent as declined).
function watchDowngrades() {
  let milli;
  try {
    milli = new Map(config.questions.map((q) => [q.id, agent.checkSurvey([q.spec], 0).epsilonMilli]));
  } catch {
    return; // a spec the device refuses: start() says so, and nothing is sent
  }
  const site = memory.readMemory(localStorage, today());
  const ids = [...config.questions.map((q) => q.id), ...(config.plain || [])];
  const asked = ids.map((id) => ({ id, key: contents.get(id).asked, milli: milli.has(id) ? milli.get(id) : null }));
  for (const found of memory.downgrades(site, asked)) guards.set(found.id, guardDowngrade(found));
  holdDowngrades();
}

// The answer controls (and "Prefer not to answer") of question `id`.
function guardedControls(id) {
  const question = config.questions.find((q) => q.id === id);
  const inputs = question ? answerInputs(question) : Array.from(document.querySelectorAll(`#question-${id} :is(input, textarea, select)`));
  const skip = skipBox(id);
  return skip && !inputs.includes(skip) ? [...inputs, skip] : inputs;
}

// What a send notes: the wording fingerprint and ε of each protected question shown.
function askedNow() {
  return config.questions.filter((q) => !isHidden(q.id))
    .map((q) => ({ key: contents.get(q.id).asked, milli: agent.checkSurvey([q.spec], 0).epsilonMilli }));
}

// Keep every warned question's controls disabled until its yes.
function holdDowngrades() {
  for (const [id, guard] of guards) {
    if (guard.state === "accepted") continue;
    for (const input of guardedControls(id)) input.disabled = true;
  }
}

function guardDowngrade(found) {
  const id = found.id;
  const guard = { state: "asked" };
  const fieldset = document.getElementById(`question-${id}`);
  const optional = config.questions.some((q) => q.id === id && q.optional) || (config.plain_optional || []).includes(id);
  const sentence = found.now === null
    ? words.sentence("downgrade.unprotected")
    : words.sentence("downgrade.weaker", { before: words.epsilonText(found.before), now: words.epsilonText(found.now) });
  const warning = document.createElement("div");
  warning.className = "downgrade message";
  warning.id = `downgrade-q${id}`;
  warning.setAttribute("role", "alert");
  const lead = document.createElement("p");
  const strong = document.createElement("strong");
  strong.textContent = sentence;
  lead.append(strong);
  warning.append(lead);
  const actions = document.createElement("p");
  actions.className = "downgrade-actions";
  const action = (key, state, extra = "") => {
    const choice = document.createElement("button");
    choice.type = "button";
    choice.className = `button${extra}`;
    choice.id = `${state === "accepted" ? "accept" : "decline"}-downgrade-q${id}`;
    choice.textContent = words.sentence(key);
    choice.addEventListener("click", (event) => {
      if (!event.isTrusted || event.currentTarget.parentNode !== actions || guard.state !== "asked") return;
      guard.state = state;
      for (const input of guardedControls(id)) input.disabled = state === "declined";
      const skip = skipBox(id);
      if (state === "declined" && skip) skip.checked = true;
      actions.replaceChildren(...(state === "declined" ? [words.sentence("downgrade.declined")] : []));
      applyLogic();
      showReview();
    });
    actions.append(choice);
  };
  action("downgrade.accept", "accepted");
  if (optional) action("downgrade.decline", "declined", " secondary");
  else {
    const required = document.createElement("p");
    required.textContent = words.sentence("downgrade.required");
    warning.append(required);
  }
  warning.append(actions);
  let anchor = fieldset.querySelector("input, textarea, select");
  while (anchor && anchor.parentNode !== fieldset) anchor = anchor.parentNode;
  fieldset.insertBefore(warning, anchor);
  return guard;
}

function refuse(error) {
  const message = error && error.name === "SpecRefused"
    ? words.describeRefusal(error.code, error.facts, config.contact)
    : words.describeRefusal("unverifiable", {}, config.contact);
  showNotice(message);
  notice.dataset.refusal = error && error.code ? error.code : "unverifiable";
  if (scriptNote) scriptNote.textContent = "";
  const takePart = document.getElementById("take-part");
  if (takePart) takePart.remove();
  if (form) lockForm(true);
  plan = null;
}

// --- answer inputs -------------------------------------------------------------
function groupInputs(groupName, type = "radio") {
  const group = form.querySelector(`[data-answer-group="${groupName}"]`);
  return group ? Array.from(group.querySelectorAll(`input[type="${type}"]`)) : [];
}

function answerInputs(question) {
  const group = form.querySelector(`[data-answer-group="${question.answer_group}"]`);
  return group ? Array.from(group.querySelectorAll("input")) : [];
}

// --- sections: one at a time, all in this page -------------------------------------
const sections = form ? Array.from(form.querySelectorAll("[data-section]")) : [];
let current = 0;

function showSection(index, focus = true) {
  if (sections.length < 2) return;
  current = Math.max(0, Math.min(index, sections.length - 1));
  sections.forEach((section, i) => {
    section.hidden = i !== current;
  });
  placeSection();
  if (focus) sections[current].querySelector("h2").focus();
}

// Where the respondent is among the sections with something to show; "Send"
// belongs to the last of them, and no "Next" leads past it.
function placeSection() {
  if (sections.length < 2) return;
  const shown = checks.shownSections(sections);
  const position = document.getElementById("section-position");
  const at = Math.max(0, shown.indexOf(current));
  position.textContent = interpolate(gettext("Section %(current)s of %(total)s"), {
    current: words.number(at + 1), total: words.number(Math.max(shown.length, 1)),
  });
  const bar = document.getElementById("section-bar");
  bar.max = Math.max(shown.length, 1);
  bar.value = at + 1;
  form.querySelector(".send").hidden = checks.neighbour(sections, current, 1) !== -1;
  sections.forEach((section, i) => {
    const next = section.querySelector("[data-section-next]");
    if (next) next.hidden = checks.neighbour(sections, i, 1) === -1;
    const back = section.querySelector("[data-section-back]");
    if (back) back.hidden = checks.neighbour(sections, i, -1) === -1;
  });
}

// "Next" goes on only when its section has nothing left to answer.
function nextSection() {
  const problem = checks.firstProblem([sections[current]], problemOf);
  if (problem) {
    checks.markProblem(problem.block, problem.id, problem.message, problem.focus);
    say(problem.message, true);
    problem.focus.focus();
    return;
  }
  say("");
  const to = checks.neighbour(sections, current, 1);
  if (to !== -1) showSection(to);
}

function setUpSections() {
  if (sections.length < 2) return;
  form.querySelector("[data-section-progress]").hidden = false;
  for (const nav of form.querySelectorAll("[data-section-nav]")) nav.hidden = false;
  for (const back of form.querySelectorAll("[data-section-back]")) {
    back.addEventListener("click", () => {
      const to = checks.neighbour(sections, current, -1);
      if (to !== -1) showSection(to);
    });
  }
  for (const next of form.querySelectorAll("[data-section-next]")) {
    next.addEventListener("click", nextSection);
  }
  showSection(Math.max(0, checks.shownSections(sections)[0] ?? 0), false);
}

// --- what a shown question still needs (Next and Send) ------------------------------
const messagesOf = (id) => (config.messages || {})[String(id)] || {};

// The problem of one shown question, in the server's words where it has them:
// {message, focus} or null. A question this send does not ask again (kept
// from before) or an optional one skipped or left blank has none.
function problemOf(id, block) {
  const question = config.questions.find((q) => q.id === id);
  const messages = messagesOf(id);
  if (!question) {
    if (!(config.plain || []).includes(id)) return null;
    const optional = (config.plain_optional || []).includes(id);
    if (optional && skipBox(id)?.checked) return null;
    const guarded = outbox.protectedControls(form, config);
    return checks.plainProblem(outbox.plainControls(form, id, guarded), messages, optional);
  }
  if (plan && plan.need && !plan.need.some((q) => q.id === id)) return null;
  if (question.optional && (skipBox(id)?.checked || leftBlank(question))) return null;
  if (leftBlank(question)) {
    const read = chosenAnswer(question);
    return { message: messages.required || read.error, focus: read.focus || block.querySelector("input") };
  }
  const read = chosenAnswer(question);
  return read.error ? { message: read.error, focus: read.focus || block.querySelector("input") } : null;
}

// "Send" with a problem: the section holding the first one is shown, the
// problem marked, focused and named, with a link back to its section.
function refuseSend(problem) {
  const go = () => {
    showSection(problem.section, false);
    problem.focus.focus();
  };
  checks.markProblem(problem.block, problem.id, problem.message, problem.focus);
  go();
  const heading = sections.length > 1 ? sections[problem.section].querySelector("h2") : null;
  checks.showRefusal(statusLine, problem, {
    gettext, interpolate, sectionTitle: heading ? heading.textContent.trim() : "", go,
  });
}

// The section holding `element` is shown (e.g. a question still unanswered).
function revealSection(element) {
  const index = sections.findIndex((section) => section.contains(element));
  if (index >= 0 && index !== current) showSection(index, false);
}

// --- optional questions: the "Prefer not to answer" marker -------------------------
// Read where the page cannot make a true-answer control stand in for it
// (outbox.js): never a protected question's answer control.
function skipBox(id) {
  return outbox.skipControl(form, id, outbox.protectedControls(form, config));
}

// Choosing "Prefer not to answer" clears that question's answer; answering
// clears the marker.
function setUpSkip(id, inputs) {
  const box = skipBox(id);
  if (!box) return;
  box.addEventListener("change", () => {
    if (!box.checked) return;
    for (const input of inputs()) {
      if (input.type === "radio" || input.type === "checkbox") input.checked = false;
      else if (input.type !== "range") input.value = "";
    }
    const question = config.questions.find((q) => q.id === id);
    if (question) showError(question, "");
  });
  for (const input of inputs()) {
    const event = input.type === "radio" || input.type === "checkbox" ? "change" : "input";
    input.addEventListener(event, () => {
      if (input.type === "range" || input.checked || input.value) box.checked = false;
    });
  }
}

// Nothing chosen (a radio group with no choice, an empty number): an optional
// question left so is skipped. (No box ticked is an answer of its own.)
function leftBlank(question) {
  if (question.kind === "numeric") return numberInputs(question).box.value.trim() === "";
  if (question.kind === "multi_select") return false;
  return !groupInputs(question.answer_group).some((input) => input.checked);
}

// Answering an unprotected question clears the problem line "Next" or "Send" set.
function setUpPlainProblems() {
  for (const id of config.plain || []) {
    const block = document.getElementById(`question-${id}`);
    if (!block) continue;
    const clear = (event) => checks.markProblem(block, id, "", event.target);
    block.addEventListener("change", clear);
    block.addEventListener("input", clear);
  }
}

function plainLeftBlank(id) {
  const inputs = outbox.plainControls(form, id, outbox.protectedControls(form, config));
  if (inputs.some((input) => input.type === "checkbox")) return false;
  return !inputs.some((input) => (input.type === "radio" ? input.checked : input.value.trim() !== ""));
}

// What each shown unprotected question sends: id → {values, skipped}, where
// skipped is false, "declined" ("Prefer not to answer") or "blank".
function plainAnswers() {
  const guarded = outbox.protectedControls(form, config);
  const sent = new Map();
  for (const id of config.plain || []) {
    if (isHidden(id)) continue;
    const optional = (config.plain_optional || []).includes(id);
    const guard = guards.get(id);
    if (guard && guard.state !== "accepted") {
      sent.set(id, { values: [], skipped: guard.state === "declined" ? "declined" : optional && "blank", other: "" });
      continue;
    }
    const skipped = !optional ? false
      : skipBox(id)?.checked ? "declined" : plainLeftBlank(id) ? "blank" : false;
    const values = skipped ? [] : outbox.plainValues(form, id, guarded);
    sent.set(id, { values, skipped, other: outbox.otherText(form, id, config, guarded, values) });
  }
  return sent;
}

function errorLine(question) {
  return document.getElementById(`error-q${question.id}`);
}

function showError(question, message, input = null) {
  errorLine(question).textContent = message;
  if (input) input.setAttribute("aria-invalid", message ? "true" : "false");
  const open = config.questions.some((q) => errorLine(q).textContent !== "");
  if (!open && !sending) say("");
}

// Every true answer on the page is removed: protected and unprotected.
function clearAnswers() {
  if (!form) return;
  for (const box of form.querySelectorAll(".question textarea")) box.value = "";
  for (const input of form.querySelectorAll(".question input")) {
    if (input.type === "radio" || input.type === "checkbox") input.checked = false;
    else if (input.type === "range") input.value = String(Math.floor(Number(input.max || 0) / 2));
    else if (input.type === "text" || input.type === "number" || input.type === "") input.value = "";
    input.removeAttribute("aria-invalid");
  }
  for (const question of config.questions) {
    const slider = form.querySelector(`[data-answer-group="${question.answer_group}"] input.numeric-slider`);
    if (slider) slider.setAttribute("aria-valuetext", "");
  }
}

// Disable every answer input (or all but those of `open` question ids).
function lockForm(locked, open = new Set()) {
  for (const question of config.questions) {
    const closed = locked && !open.has(question.id);
    for (const input of answerInputs(question)) input.disabled = closed;
    if (skipBox(question.id)) skipBox(question.id).disabled = closed;
    const block = document.getElementById(`question-${question.id}`);
    if (block) block.classList.toggle("answered-before", closed && plan?.kept?.has(question.id));
  }
  for (const id of config.plain || []) {
    for (const input of document.querySelectorAll(`#question-${id} :is(input, textarea)`)) input.disabled = locked && !open.size;
  }
  if (button) button.disabled = locked && !open.size;
  holdDowngrades();
}

function updateTabStops(inputs) {
  const checked = inputs.find((input) => input.checked);
  inputs.forEach((input, i) => {
    input.tabIndex = (checked ? input === checked : i === 0) ? 0 : -1;
  });
}

function choose(inputs, chosen) {
  for (const input of inputs) input.checked = input === chosen;
  updateTabStops(inputs);
}

const NEXT = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 };

function setUpRadios(question) {
  const inputs = groupInputs(question.answer_group);
  updateTabStops(inputs);
  inputs.forEach((input, i) => {
    input.addEventListener("change", () => {
      if (input.checked) choose(inputs, input);
      showError(question, "");
    });
    input.addEventListener("keydown", (event) => {
      const step = NEXT[event.key];
      if (step === undefined || input.disabled) return;
      event.preventDefault();
      const target = inputs[(i + step + inputs.length) % inputs.length];
      choose(inputs, target);
      target.focus();
    });
  });
}

function tooMany(question) {
  return words.sentence("page.tooMany", { most: question.max_selections });
}

function setUpCheckboxes(question) {
  const inputs = groupInputs(question.answer_group, "checkbox");
  for (const input of inputs) {
    input.addEventListener("change", () => {
      const count = inputs.filter((box) => box.checked).length;
      if (input.checked && question.max_selections && count > question.max_selections) {
        input.checked = false;
        showError(question, tooMany(question), input);
        return;
      }
      showError(question, "", input);
    });
  }
}

function chosenOptions(question) {
  const inputs = groupInputs(question.answer_group, "checkbox");
  const chosen = inputs.filter((box) => box.checked).map((box) => Number(box.value));
  chosen.sort((a, b) => a - b);
  if (question.max_selections && chosen.length > question.max_selections) {
    return { error: tooMany(question), focus: inputs[0] };
  }
  return { answer: chosen };
}

// --- numeric: exact decimal arithmetic on the grid low, low + step, …, high ---
// Reading what the respondent typed. Pure functions between the markers:
// tests/js/typed_number.test.mjs runs this very block. The rule
// (docs/device-languages.md, section 4): "." or "," is a decimal mark, but a
// form that could also be a thousands separator is refused, never guessed.
// <typed-number>
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:[.,](\d*))?$/;
// Digits with separators between them that are not one decimal mark: more
// than one "." or ",", or spaces (no-break and thin ones too) or apostrophes.
const GROUPED_TEXT = /^[+-]?\d[\d.,'\u2019\u02bc\s]*\d$/u;
// One to three digits (not a lone 0), one mark, three digits: "1.000",
// "12,500". In English that is a thousand, in Spanish or French one.
const ONE_GROUP = /^[+-]?[1-9]\d{0,2}[.,]\d{3}$/;

// An exact decimal {units, places} from text with at most one "." or ",",
// or null. (Also reads the spec's own low, high and step.)
function parseDecimal(value) {
  const match = DECIMAL_TEXT.exec(value.trim());
  if (value.trim().length > 40 || !match) return null;
  const [, sign, whole, frac = ""] = match;
  if (whole === "" && frac === "") return null;
  const units = BigInt((whole || "0") + frac);
  return { units: sign === "-" ? -units : units, places: frac.length };
}

// Decimals a plain decimal text really has ("0.50" has 1).
function significantPlaces(text) {
  const [, frac = ""] = String(text).split(".");
  return frac.replace(/0+$/, "").length;
}

// What the respondent typed, on a grid whose values have at most `gridPlaces`
// decimals: {units, places}, {grouped: true} when it may be written with
// thousands separators (refused, never guessed), or null (not a number).
function readTypedNumber(value, gridPlaces) {
  const text = value.trim();
  if (text.length > 40) return null;
  if (ONE_GROUP.test(text) && gridPlaces < 3) return { grouped: true };
  const parsed = parseDecimal(text);
  if (parsed !== null) return parsed;
  return GROUPED_TEXT.test(text) ? { grouped: true } : null;
}
// </typed-number>

function scaled(value, places) {
  return value.units * 10n ** BigInt(places - value.places);
}

function formatScaled(units, places) {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, "0");
  let shown = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
  if (places) shown = shown.replace(/0+$/, "").replace(/\.$/, "");
  return (negative && shown !== "0" ? "-" : "") + shown;
}

function numericGrid(question) {
  const parts = ["low", "high", "step"].map((f) => parseDecimal(question.spec[f]));
  const places = Math.max(...parts.map((p) => p.places));
  const [low, high, step] = parts.map((p) => scaled(p, places));
  return { low, high, step, places };
}

function valueOfLevel(question, level) {
  const g = numericGrid(question);
  return formatScaled(g.low + BigInt(level) * g.step, g.places);
}

function levelOf(question, value) {
  const { low: lowText, high: highText, step: stepText } = question.spec;
  const number = words.number;
  if (value.trim() === "") return { error: words.sentence("page.enterNumber") };
  const g = numericGrid(question);
  const parsed = readTypedNumber(value, Math.max(significantPlaces(lowText), significantPlaces(stepText)));
  if (parsed === null) return { error: words.sentence("page.notANumber", { text: value.trim(), low: number(lowText) }) };
  if (parsed.grouped) {
    // The example is the highest allowed value, written plainly: no grouping,
    // the language's decimal sign.
    const decimalSign = number("0.5").slice(1, -1);
    const example = formatScaled(g.high, g.places).replace(".", decimalSign);
    return { error: words.sentence("page.groupedNumber", { text: value.trim(), example }) };
  }
  const places = Math.max(g.places, parsed.places);
  const up = 10n ** BigInt(places - g.places);
  const [low, high, step] = [g.low * up, g.high * up, g.step * up];
  const v = scaled(parsed, places);
  if (v < low || v > high) return { error: words.sentence("page.outOfRange", { low: number(lowText), high: number(highText) }) };
  if ((v - low) % step !== 0n) {
    const below = low + ((v - low) / step) * step;
    return {
      error: words.sentence("page.offGrid", {
        text: value.trim(), step: number(stepText), low: number(lowText),
        below: number(formatScaled(below, places)), above: number(formatScaled(below + step, places)),
      }),
    };
  }
  return { answer: Number((v - low) / step) };
}

function numberInputs(question) {
  const group = form.querySelector(`[data-answer-group="${question.answer_group}"]`);
  return { box: group.querySelector("input.numeric-value"), slider: group.querySelector("input.numeric-slider") };
}

function setUpNumber(question) {
  const { box, slider } = numberInputs(question);
  const describedBy = `${box.getAttribute("aria-describedby") || ""} error-q${question.id}`;
  box.setAttribute("aria-describedby", describedBy.trim());
  const label = (level) => valueOfLevel(question, level);
  slider.addEventListener("input", () => {
    const shown = label(slider.value);
    slider.setAttribute("aria-valuetext", shown);
    box.value = shown;
    showError(question, "", box);
  });
  box.addEventListener("input", () => {
    const read = levelOf(question, box.value);
    if (read.answer !== undefined) {
      slider.value = String(read.answer);
      slider.setAttribute("aria-valuetext", label(read.answer));
      showError(question, "", box);
    }
  });
  box.addEventListener("change", () => {
    const read = box.value.trim() === "" ? {} : levelOf(question, box.value);
    showError(question, read.error || "", box);
  });
}

function chosenAnswer(question) {
  if (question.kind === "numeric") {
    const { box } = numberInputs(question);
    const read = levelOf(question, box.value);
    return read.error ? { error: read.error, focus: box } : read;
  }
  if (question.kind === "multi_select") return chosenOptions(question);
  const inputs = groupInputs(question.answer_group);
  const checked = inputs.find((input) => input.checked);
  return checked ? { answer: Number(checked.value) } : { error: words.sentence("page.chooseAnswer"), focus: inputs[0] };
}

// --- what the next "Send" may do ---------------------------------------------------
// Every spec is checked first (whatever happens next); then the ledger and any
// sealed body decide between a fresh answer, a byte-identical resend, changed
// questions only, a re-answer offer, or "already answered".
function decide() {
  const specs = config.questions.map((q) => q.spec);
  const survey = agent.checkSurvey(specs, 0); // throws SpecRefused
  const ledger = readLedger();
  const pending = readPending();
  const spentMilli = Math.max(ledger ? ledger.spentMilli : 0, pending ? pending.spentMilli ?? 0 : 0);
  if (pending && pending.survey_revision === config.survey_revision &&
      config.questions.every((q) => pending.reports[q.id]?.spec === specText(q))) {
    return { mode: "resend", survey, pending, spentMilli };
  }
  if (pending) {
    const kept = new Map();
    const need = [];
    for (const question of config.questions) {
      const before = pending.reports[question.id];
      if (before && before.spec === specText(question) && before.spec_revision === question.spec_revision) {
        kept.set(question.id, before.report);
      } else {
        need.push(question);
      }
    }
    const verdict = agent.checkSurvey(need.map((q) => q.spec), spentMilli); // throws
    return { mode: "changed", survey, pending, kept, need, verdict, spentMilli };
  }
  if (ledger) {
    if (!config.allow_reanswer) return { mode: "answered", survey, spentMilli };
    const verdict = agent.checkSurvey(specs, spentMilli); // throws
    return { mode: "reanswer", survey, need: config.questions, kept: new Map(), verdict, spentMilli };
  }
  return remembered({ mode: "fresh", survey, need: config.questions, kept: new Map(), verdict: survey, spentMilli: 0 });
}

// --- the device's memory of this site (ledger.js) -----------------------------------
const today = () => memory.dayOf(new Date());
const contentOf = (question) => contents.get(question.id).hash;

// A fresh answer, seen by the memory: content already sent for this survey
// re-sends its remembered report; content sent for another survey needs the
// respondent's yes (never its report: that would join the two studies).
function remembered(next) {
  const site = memory.readMemory(localStorage, today());
  const need = [];
  const elsewhere = [];
  for (const question of next.need) {
    const recalled = memory.recall(site, contentOf(question), config.survey);
    if (recalled.report !== null) {
      next.kept.set(question.id, recalled.report);
      next.spentMilli += recalled.milli; // sent before: it counts in this survey's note
    } else {
      need.push(question);
    }
    if (recalled.report === null && recalled.elsewhere) elsewhere.push(question);
  }
  if (need.length === next.need.length && elsewhere.length === 0) return next;
  const verdict = agent.checkSurvey(need.map((q) => q.spec), 0); // throws
  if (need.length === 0) return { ...next, mode: "remembered", need, verdict };
  return { ...next, mode: elsewhere.length ? "seen" : "fresh", need, elsewhere, verdict };
}

// ⌈1000 ε⌉ the next send adds: the questions it randomizes afresh.
function addedMilli(next) {
  if (!next || !next.need || next.need.length === 0 || next.mode === "answered" || next.mode === "resend") return 0;
  return agent.checkSurvey(next.need.map((q) => q.spec), 0).epsilonMilli;
}

// The site's total before every send, in the device's words, or null when the
// ceiling (or an unreadable memory) refuses the send.
function showSiteTotal(next) {
  const panel = siteTotalPanel();
  const site = memory.readMemory(localStorage, today());
  const added = addedMilli(next);
  const given = memory.givenMilli(site);
  const text = (milli) => words.epsilonText(milli);
  const values = { given: text(given), added: text(added), total: text(given + added), ceiling: text(memory.ORIGIN_CEILING_MILLI) };
  try {
    memory.checkCeiling(site, added);
  } catch (error) {
    panel.textContent = words.sentence(error.code === "unreadable" ? "memory.unreadable" : "memory.siteCeiling", values);
    panel.dataset.state = "refused";
    return null;
  }
  panel.textContent = words.sentence("memory.siteTotal", values);
  panel.dataset.state = "ok";
  panel.dataset.givenMilli = String(given);
  panel.dataset.totalMilli = String(given + added);
  return values;
}

function siteTotalPanel() {
  let panel = document.getElementById("device-site-total");
  if (panel && panel.parentNode === form.querySelector(".send")) return panel;
  panel = document.createElement("p");
  panel.id = "device-site-total";
  panel.className = "device-site-total";
  const sendBlock = form.querySelector(".send");
  sendBlock.insertBefore(panel, sendBlock.querySelector('button[type="submit"]'));
  return panel;
}

function applyPlan(next) {
  plan = next;
  const answered = (key) => words.sentence(`answered.${key}`);
  // "Will be randomized when you press Send" holds only where that can happen.
  scriptNote.textContent = ["fresh", "reanswer", "changed", "seen"].includes(plan.mode)
    ? words.sentence("page.ready") : "";
  notice.hidden = true;
  delete notice.dataset.state;
  // The site's total before every send; above the ceiling nothing is sent.
  const site = showSiteTotal(plan);
  if (site === null) {
    showNotice(document.getElementById("device-site-total").textContent);
    notice.dataset.state = "site-ceiling";
    scriptNote.textContent = "";
    plan = { ...plan, mode: "answered" };
    lockForm(true);
    return;
  }
  if (plan.mode === "fresh" && plan.kept.size === 0) {
    lockForm(false);
    return;
  }
  if (plan.mode === "fresh" || plan.mode === "remembered") {
    // Content this device already sent for this survey: its remembered report
    // goes again, never a new randomization.
    lockForm(true, new Set(plan.need.map((q) => q.id)));
    for (const id of config.plain || []) unlockPlain(id);
    markKept();
    if (button) button.disabled = false;
    return;
  }
  if (plan.mode === "seen") {
    lockForm(true);
    showNotice(words.sentence("memory.seenElsewhere", { count: plan.elsewhere.length, ...site }), [[
      words.sentence("memory.acceptSeen"), (event) => {
        if (!event.isTrusted || event.currentTarget.parentNode !== notice) return;
        plan.accepted = true;
        notice.hidden = true;
        lockForm(true, new Set(plan.need.map((q) => q.id)));
        for (const id of config.plain || []) unlockPlain(id);
        resumeDraft();
      }, "accept-seen"]]);
    notice.dataset.state = "seen";
    return;
  }
  notice.dataset.state = plan.mode;
  if (plan.mode === "answered") {
    showNotice(answered("already"));
    notice.dataset.state = "answered";
    lockForm(true);
    return;
  }
  if (plan.mode === "resend") {
    sealedBody = plan.pending.body;
    showNotice(answered("resendReady"));
    notice.dataset.state = "resend";
    lockForm(true);
    button.disabled = false;
    button.textContent = words.sentence("page.sendAgain");
    return;
  }
  const offer = plan.mode === "reanswer" ? "reanswerOffer" : "changed";
  const accept = answered(plan.mode === "reanswer" ? "accept" : "acceptChanged");
  if (plan.mode === "changed" && plan.need.length === 0) {
    showNotice(answered("unchangedResend"));
    notice.dataset.state = "changed";
    lockForm(true, new Set());
    restorePlain(plan.pending);
    applyLogic();
    markKept();
    button.disabled = false;
    return;
  }
  lockForm(true);
  if (plan.mode === "changed") {
    restorePlain(plan.pending);
    applyLogic();
    markKept();
  }
  // The respondent's explicit yes: a click on the button the device rendered
  // itself, never a state the page could have set or a scripted click.
  showNotice(words.describeAgain(offer, plan.verdict, plan.need.length), [[accept, (event) => {
    if (!event.isTrusted || event.currentTarget.parentNode !== notice) return;
    plan.accepted = true;
    notice.hidden = true;
    lockForm(true, new Set(plan.need.map((q) => q.id)));
    if (plan.mode === "changed") for (const id of config.plain || []) unlockPlain(id);
  }, "accept-reanswer"]]);
}

// --- display logic: some questions are shown only for some unprotected answers ---
// Only an unprotected answer (sent as given anyway) may decide what is shown, so
// which questions a respondent answered reveals nothing more about them. A
// hidden question's answers are cleared and it sends nothing at all.
const logic = config.logic || {};

function plainAnswer(id) {
  const fieldset = document.getElementById(`question-${id}`);
  if (!fieldset || fieldset.hidden || skipBox(id)?.checked) return [];
  const inputs = Array.from(fieldset.querySelectorAll(`input[name="q${id}"]`));
  return inputs.filter((input) => input.checked).map((input) => Number(input.value));
}

function isHidden(id) {
  return Boolean(logic[String(id)]) && document.getElementById(`question-${id}`)?.hidden === true;
}

function clearQuestion(fieldset) {
  for (const input of fieldset.querySelectorAll("input, textarea")) {
    if (input.type === "radio" || input.type === "checkbox") input.checked = false;
    else if (input.type === "range") input.value = String(Math.floor(Number(input.max || 0) / 2));
    else if (input.type !== "hidden") input.value = "";
    input.removeAttribute("aria-invalid");
  }
  const line = fieldset.querySelector(".field-error, [id^='error-q']");
  if (line) line.textContent = "";
}

// In page order, so that a question hidden itself hides those that follow it.
function applyLogic() {
  if (!form) return;
  for (const fieldset of form.querySelectorAll("fieldset.question")) {
    const id = fieldset.id.slice("question-".length);
    const rule = logic[id];
    if (!rule) continue;
    const shown = plainAnswer(rule.question).some((value) => rule.any_of.includes(value));
    if (fieldset.hidden === !shown) continue;
    fieldset.hidden = !shown;
    if (!shown) clearQuestion(fieldset);
  }
  renumber();
  if (piping) piping.fill(form, config, outbox.OTHER_SUFFIX);
  if (checks) placeSection();
}

// Number the questions the respondent sees 1, 2, 3, ... (a question hidden by
// display logic leaves no gap); only the digits change, not the words.
function renumber() {
  let n = 0;
  for (const fieldset of form.querySelectorAll("fieldset.question")) {
    const label = fieldset.querySelector(".question-number");
    if (fieldset.hidden || !label) continue;
    n += 1;
    label.textContent = label.textContent.replace(/\d+/, String(n));
  }
}

function unlockPlain(id) {
  for (const input of document.querySelectorAll(`#question-${id} :is(input, textarea)`)) input.disabled = false;
  holdDowngrades();
}

function markKept() {
  for (const question of config.questions) {
    if (!plan.kept.has(question.id)) continue;
    const line = errorLine(question);
    line.textContent = words.sentence("answered.keptFromBefore");
    line.classList.add("kept");
  }
}

// Unprotected answers from the sealed body (they were sent as they are); an
// unprotected question the body has no answer for (a new one) stays open.
function restorePlain(pending) {
  const sent = new URLSearchParams(pending.body);
  for (const id of config.plain || []) {
    const values = sent.getAll(`q${id}`);
    if (skipBox(id)) skipBox(id).checked = ["declined", "skipped"].includes(sent.get(`q${id}_skipped`));
    for (const input of document.querySelectorAll(`#question-${id} :is(input, textarea)[name="q${id}"]`)) {
      if (input.type === "radio" || input.type === "checkbox") input.checked = values.includes(input.value);
      else if (values.length) input.value = values[0];
    }
    const other = document.querySelector(`#question-${id} input[name="q${id}${outbox.OTHER_SUFFIX}"]`);
    if (other && sent.has(`q${id}${outbox.OTHER_SUFFIX}`)) other.value = sent.get(`q${id}${outbox.OTHER_SUFFIX}`);
    if (!sent.has(`q${id}`)) unlockPlain(id);
  }
}

// --- save and finish later, on this device only (where the survey allows it) -------
// Answers not protected are kept as they would be sent (ledger.js `drafts`);
// each protected answer is randomized when saved and its report kept in the
// device's memory as a sent one, its ε counted (any page of this site can read
// it), never its true answer. Opening the survey link again on this device
// restores both; the server keeps nothing, so no other device can continue.
let saveArea = null;
let resumePanel = null;
const savable = () => Boolean(plan) && !config.preview &&
  (["fresh", "remembered"].includes(plan.mode) || (plan.mode === "seen" && plan.accepted === true));

function setUpSave() {
  if (!config.save_resume || config.preview) return;
  saveArea = document.createElement("div");
  saveArea.id = "device-save";
  saveArea.className = "device-save";
  const about = document.createElement("p");
  about.textContent = gettext("You can save your answers on this device and finish later by opening the survey link again here. Nothing is saved on the server, so you cannot continue on another device. Protected answers are randomized when you save: their randomized reports count as sent to this site, and your true protected answers are never saved. Answers not protected are saved as you gave them. This site's pages can read everything saved on this device, even if you never send it.");
  const save = document.createElement("button");
  save.type = "button";
  save.className = "button secondary";
  save.id = "save-for-later";
  save.textContent = gettext("Save and finish later");
  save.addEventListener("click", offerSave);
  saveArea.append(about, save);
  // Beside "Send", not in it: "Send" shows on the last section only, and a
  // respondent may want to stop in any section.
  form.querySelector(".send").after(saveArea);
  resumePanel = document.createElement("div");
  resumePanel.id = "device-resume";
  resumePanel.className = "message notice";
  resumePanel.setAttribute("role", "status");
  resumePanel.hidden = true;
  form.prepend(resumePanel);
}

// The protected answers a save randomizes now: shown, answered, not kept.
function toSave() {
  const found = [];
  for (const question of plan.need) {
    if (isHidden(question.id) || plan.kept.has(question.id) || skipBox(question.id)?.checked) continue;
    const read = chosenAnswer(question);
    if (!read.error) found.push([question, read.answer]);
  }
  return found;
}

// Before anything is saved: what saving does, with this site's figures.
function offerSave() {
  if (!savable() || sending) {
    say(gettext("Nothing was saved: answer or accept the offer above first."), true);
    return;
  }
  const answers = toSave();
  let added = 0;
  try {
    if (answers.length) {
      agent.checkSurvey(answers.map(([q]) => q.spec), plan.spentMilli); // the survey's ceiling
      added = agent.checkSurvey(answers.map(([q]) => q.spec), 0).epsilonMilli;
    }
    memory.checkCeiling(memory.readMemory(localStorage, today()), added);
  } catch (error) {
    if (error && error.name === "SpecRefused") refuse(error);
    else settle();
    return;
  }
  const given = memory.givenMilli(memory.readMemory(localStorage, today()));
  showNotice(interpolate(gettext("Saving randomizes the protected answers you gave (%(count)s) now and keeps only their randomized reports, which count as sent: this site's total becomes ε = %(total)s (ε = %(added)s added). Your answers not protected are saved as you gave them. Both stay on this device only."), {
    count: answers.length, added: words.epsilonText(added), total: words.epsilonText(given + added),
  }), [[gettext("Save on this device"), (event) => {
    if (!event.isTrusted || event.currentTarget.parentNode !== notice) return;
    notice.hidden = true;
    saveNow(answers, added);
  }, "confirm-save"]]);
  notice.dataset.state = "save";
}

function saveNow(answers, added) {
  try {
    const made = answers.length ? agent.randomizeAll(answers.map(([q, answer]) => ({ spec: q.spec, answer }))) : [];
    let site = memory.readMemory(localStorage, today());
    site = memory.remember(localStorage, site, {
      today: today(), scope: config.survey, addedMilli: added,
      fresh: answers.map(([q], i) => ({
        hash: contentOf(q), report: JSON.stringify(made[i]), milli: agent.checkSurvey([q.spec], 0).epsilonMilli,
      })),
      asked: askedNow(),
    });
    memory.saveDraft(localStorage, site, { today: today(), scope: config.survey, plain: plainAnswers() });
  } catch (error) {
    if (error && error.name === "MemoryRefused" && error.code === "no_storage") showNotice(words.sentence("page.noStorage"));
    else say(gettext("Nothing was saved: this device could not keep the answers."), true);
    return;
  }
  clearAnswers(); // the true protected answers are gone; what was saved comes back
  if (settle()) say(gettext("Saved on this device. To finish later, open the survey link again on this device."));
}

// Unprotected answers saved on this device, put back (as restorePlain does).
function restoreDraft(draft) {
  const params = new URLSearchParams();
  for (const [id, sent] of Object.entries(draft.plain)) {
    if (sent.skipped === "declined") params.append(`q${id}_skipped`, "declined");
    for (const value of sent.values) params.append(`q${id}`, value);
    if (sent.other) params.append(`q${id}${outbox.OTHER_SUFFIX}`, sent.other);
  }
  restorePlain({ body: params.toString() });
}

// After every settle: restore what this device saved and say what it was.
function resumeDraft() {
  if (!saveArea) return;
  saveArea.hidden = !savable();
  const draft = savable() ? memory.readDraft(memory.readMemory(localStorage, today()), config.survey) : null;
  resumePanel.hidden = draft === null;
  if (draft === null) return;
  restoreDraft(draft);
  applyLogic();
  const restored = Object.values(draft.plain).filter((sent) => sent.values.length || sent.skipped === "declined").length;
  const text = document.createElement("p");
  text.textContent = interpolate(gettext("Restored from this device. Answers not protected, as you saved them: %(plain)s. Protected answers, randomized when you saved them and sent as they are: %(kept)s."), {
    plain: restored, kept: plan.kept.size,
  });
  const over = document.createElement("button");
  over.type = "button";
  over.className = "button secondary";
  over.id = "start-over";
  over.textContent = gettext("Start over");
  over.addEventListener("click", startOver);
  resumePanel.replaceChildren(text, over);
  showReview();
}

// Starting over forgets the saved answers not protected. A saved protected
// answer was randomized and counted already: it is never randomized again here.
function startOver() {
  try {
    memory.dropDraft(localStorage, memory.readMemory(localStorage, today()), config.survey);
  } catch {
    // nothing more can be forgotten
  }
  for (const id of config.plain || []) {
    const block = document.getElementById(`question-${id}`);
    if (block) clearQuestion(block);
    if (skipBox(id)) skipBox(id).checked = false;
  }
  applyLogic();
  showReview();
  const text = document.createElement("p");
  text.textContent = gettext("Started over: the answers not protected were cleared from this device. Protected answers you saved stay as they were randomized, because answering them again would give this site a second randomization of the same answer.");
  resumePanel.replaceChildren(text);
}

// --- sealing and sending -----------------------------------------------------------
function uuid4() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// Show, just above "Send", every unprotected answer exactly as it will go.
function showReview() {
  if (!review || !outbox) return;
  const plain = plainAnswers();
  outbox.renderReview(review, form, plain, words, outbox.protectedControls(form, config));
  shownPlain = outbox.plainKey(plain);
}

// The body to send (already written to the ledger and sessionStorage), or null.
function seal() {
  // What goes as given must be what the respondent was just shown; if the
  // page changed it, show it again and send nothing.
  if (outbox.plainKey(plainAnswers()) !== shownPlain) {
    showReview();
    say(words.sentence("page.reviewChanged"), true);
    return null;
  }
  const need = new Set(plan.need.map((q) => q.id));
  let firstMissing = null;
  const answers = new Map();
  const skipped = new Map(); // id → "declined" or "blank"
  // Not shown (display logic): no answer, no report, no marker, no ε spent.
  const hidden = new Set(config.questions.filter((q) => isHidden(q.id)).map((q) => q.id));
  for (const question of config.questions) {
    if (!need.has(question.id)) continue;
    if (hidden.has(question.id)) {
      showError(question, "");
      continue;
    }
    if (question.optional && (skipBox(question.id)?.checked || leftBlank(question))) {
      skipped.set(question.id, skipBox(question.id)?.checked ? "declined" : "blank");
      showError(question, "");
      continue;
    }
    const read = chosenAnswer(question);
    if (read.error) {
      showError(question, read.error, question.kind === "numeric" ? read.focus : null);
      firstMissing ??= read.focus;
    } else {
      showError(question, "");
      answers.set(question, read.answer);
    }
  }
  if (firstMissing) {
    say(words.sentence("page.missing"), true);
    revealSection(firstMissing);
    firstMissing.focus();
    return null;
  }
  // The survey as it will leave the device, checked once more right here;
  // a skipped question sends no report, so spends no ε.
  const sent = plan.need.filter((q) => !skipped.has(q.id) && !hidden.has(q.id));
  const verdict = agent.checkSurvey(sent.map((q) => q.spec), plan.spentMilli);
  // Every answer that leaves is randomized in one call: the device checks
  // each answer, each spec and its secure source before drawing anything, so
  // either all reports are made or none.
  const fresh = config.questions.filter((q) => !hidden.has(q.id) && need.has(q.id) && !skipped.has(q.id));
  const made = agent.randomizeAll(fresh.map((q) => ({ spec: q.spec, answer: answers.get(q) })));
  const randomized = new Map(fresh.map((q, i) => [q.id, JSON.stringify(made[i])]));
  const reports = {};
  const sentReports = new Map();
  for (const question of config.questions) {
    const report = hidden.has(question.id)
      ? null
      : need.has(question.id)
        ? (skipped.has(question.id) ? null : randomized.get(question.id))
        : plan.kept.get(question.id);
    reports[question.id] = { spec: specText(question), spec_revision: question.spec_revision, report };
    // A skip leaves only its marker; a hidden question leaves nothing at all.
    if (hidden.has(question.id)) continue;
    const skip = report === null || report === undefined;
    if (skip && !question.optional) continue;
    sentReports.set(question.id, {
      report: skip ? null : report, skipped: skip ? skipped.get(question.id) || "declined" : false,
      spec_revision: question.spec_revision,
    });
  }
  const plainSent = plainAnswers();
  // The body from the device's own state, through outbox.js's allowlist:
  // never a serialisation of the page's form.
  const body = outbox.buildBody(config, {
    page: pageValues, idempotencyKey: uuid4(), reports: sentReports, plain: plainSent,
  });
  if (config.preview) {
    // A preview shows what would leave and sends nothing: nothing counts.
    showPreview(sentReports);
    clearAnswers();
    lockForm(true);
    return null;
  }
  // Every report now counts, whether or not the server ever acknowledges it:
  // first in the site's memory (which refuses past its ceiling), then here.
  const site = memory.readMemory(localStorage, today());
  memory.remember(localStorage, site, {
    today: today(), scope: config.survey, addedMilli: verdict.epsilonMilli,
    fresh: fresh.map((q) => ({
      hash: contentOf(q), report: randomized.get(q.id), milli: agent.checkSurvey([q.spec], 0).epsilonMilli,
    })),
    asked: askedNow(),
  });
  writeLedger(verdict.totalMilli);
  writePending({ survey_revision: config.survey_revision, body, reports, spentMilli: verdict.totalMilli });
  // What was saved to finish later is in this body now: forget the draft.
  if (config.save_resume) {
    try {
      memory.dropDraft(localStorage, memory.readMemory(localStorage, today()), config.survey);
    } catch {
      // the send goes on; a draft left behind holds only what this body sends
    }
  }
  clearAnswers();
  lockForm(true);
  return body;
}

// What a preview would have sent: each protected question's report, as text.
function showPreview(sentReports) {
  const panel = document.createElement("section");
  panel.id = "device-preview";
  panel.className = "message notice";
  const lead = document.createElement("p");
  lead.textContent = words.sentence("memory.preview");
  const list = document.createElement("ul");
  for (const question of config.questions) {
    const sent = sentReports.get(question.id);
    if (!sent) continue;
    const item = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = sent.skipped ? "skipped" : sent.report;
    item.append(`${contents.get(question.id)?.object.text ?? question.text}: `, code);
    list.append(item);
  }
  panel.append(lead, list);
  document.getElementById("device-preview")?.remove();
  form.querySelector(".send").append(panel);
  say(words.sentence("memory.preview"));
}

function markRetry() {
  button.disabled = false;
  button.textContent = words.sentence("page.sendAgain");
}

async function send(body) {
  sending = true;
  button.disabled = true;
  const page = (key, values) => words.sentence(`page.${key}`, values);
  say(page("sending"));
  let response;
  try {
    response = await fetch(form.action || window.location.href, {
      method: "POST",
      body,
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      credentials: "same-origin",
      redirect: "error",
    });
  } catch {
    sending = false;
    markRetry();
    say(page("connectionFailed"), true);
    return;
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  sending = false;
  if (response.ok && data && data.receipt_url) {
    dropPending();
    sealedBody = null;
    say(page("received"));
    // The researcher's completion address (https, one code for everyone), or
    // the receipt, which shows the same address as a link.
    const next = typeof data.redirect_url === "string" && data.redirect_url.startsWith("https://")
      ? data.redirect_url : data.receipt_url;
    window.location.assign(next);
    return;
  }
  const reason = data && data.error ? data.error : page("serverAnswered", { status: response.status });
  if (response.status === 409 && data && data.code === "stale") {
    // Nothing was stored. The sealed body stays for the review after reload.
    say(reason, true);
    showNotice(page("changedNotice"), [[page("reviewChanges"), () => window.location.reload(), "review-changes"]]);
    notice.dataset.state = "stale";
    return;
  }
  if (response.status >= 500 || response.status === 429) {
    markRetry();
    say(page("retry", { reason }), true);
    return;
  }
  // Refused for good (nothing stored): these reports cannot be resent, and
  // they already count, so the ledger decides what may happen next.
  dropPending();
  sealedBody = null;
  say(reason, true);
  settle();
}

function onSubmit(event) {
  event.preventDefault();
  if (sending || agent === null || plan === null || plan.mode === "answered") return;
  if (sealedBody !== null) {
    send(sealedBody); // a retry: the identical bytes, never a new randomization
    return;
  }
  const asks = plan.mode === "reanswer" || plan.mode === "seen" || (plan.mode === "changed" && plan.need.length);
  if (asks && !plan.accepted) {
    say(checks.acceptFirst(gettext), true);
    return;
  }
  // Another tab may have sent some of this content since the plan was made:
  // the memory decides again, and what it now knows needs the respondent's yes.
  if (!plan.accepted && (plan.mode === "fresh" || plan.mode === "remembered")) {
    const now = decide();
    if (now.mode !== plan.mode || now.need.length !== plan.need.length) {
      applyPlan(now);
      return;
    }
  }
  // A question asked with less protection than before sends nothing without a yes.
  if ([...guards].some(([id, guard]) => guard.state === "asked" && !isHidden(id))) {
    say(words.sentence("downgrade.pending"), true);
    return;
  }
  // Quotas first: a respondent a full quota turns away has nothing randomized.
  if (quotas.fullCell(config, plainAnswers()) !== null) {
    clearAnswers();
    lockForm(true);
    quotas.closePolitely(form, gettext("Thank you. This survey already has all the answers it needs from people who answered as you did, so nothing was sent and none of your answers was randomized."), config.completion, {
      code: gettext("Your completion code:"), continue: gettext("Continue"),
    });
    return;
  }
  const problem = checks.firstProblem(sections, problemOf);
  if (problem) {
    refuseSend(problem);
    return;
  }
  try {
    sealedBody = seal();
  } catch (error) {
    sealedBody = null;
    const noStorage = error instanceof NoLedger || (error && error.name === "MemoryRefused" && error.code === "no_storage");
    if (noStorage) showNotice(words.sentence("page.noStorage"));
    else if (error && error.name === "MemoryRefused") settle(); // the ceiling, said plainly
    else if (error && error.name === "SpecRefused") refuse(error);
    else say(words.sentence("page.randomizeFailed", { error: error.message }), true);
    clearAnswers();
    lockForm(true);
    return;
  }
  if (sealedBody !== null) send(sealedBody);
}

// --- start ---------------------------------------------------------------------
function start() {
  let survey;
  try {
    survey = agent.checkSurvey(config.questions.map((q) => q.spec), 0);
  } catch (error) {
    refuse(error);
    return;
  }
  const ledger = readLedger();
  if (!form) {
    // Where answering again is allowed, the figures include what was sent.
    let total = survey;
    if (ledger && config.allow_reanswer) {
      try {
        total = agent.checkSurvey(config.questions.map((q) => q.spec), ledger.spentMilli);
      } catch (error) {
        refuse(error);
        return;
      }
    }
    renderWording(survey, total);
    if (scriptNote) scriptNote.hidden = true;
    if (ledger) {
      // Re-answering (where allowed) is offered, with its added ε, on the form.
      showNotice(config.allow_reanswer ? words.sentence("page.alreadyConsent") : words.sentence("answered.already"));
      notice.dataset.state = "answered";
      if (!config.allow_reanswer) document.getElementById("take-part")?.remove();
    }
    return;
  }
  if (button) button.textContent = words.sentence("page.send");
  settle();
}

// Decide what the form may do now (ledger, sealed body, specs) and show it.
function settle() {
  let survey;
  let next;
  try {
    survey = agent.checkSurvey(config.questions.map((q) => q.spec), 0);
    next = decide();
  } catch (error) {
    if (survey) renderWording(survey);
    refuse(error);
    return false;
  }
  renderWording(survey, next.verdict && next.mode !== "fresh" ? next.verdict : survey);
  applyPlan(next);
  showReview();
  resumeDraft();
  return true;
}

window.addEventListener("pagehide", () => clearAnswers());
window.addEventListener("pageshow", (event) => {
  if (!event.persisted || agent === null) return;
  clearAnswers();
  if (form) {
    sealedBody = null;
    button.textContent = words.sentence("page.send");
    settle();
  }
});

// The sentence shown when the device's modules cannot be loaded or verified,
// in each language wording.js knows (English for any other).
const LOAD_FAILED = {
  "en": "This page's code could not be loaded or failed its integrity check, so it cannot send anything. ({error})",
  "es": "El código de esta página no se pudo cargar o no superó su control de integridad, así que no puede enviar nada. ({error})",
  "fr": "Le code de cette page n’a pas pu être chargé ou a échoué à son contrôle d’intégrité, il ne peut donc rien envoyer. ({error})",
  "ar": "تعذّر تحميل شيفرة هذه الصفحة أو فشلت في التحقق من سلامتها، لذلك لا يمكنها إرسال أي شيء. ({error})"
};

function loadFailed(tag) {
  const primary = String(tag ?? "").trim().toLowerCase().split(/[-_]/)[0];
  return Object.prototype.hasOwnProperty.call(LOAD_FAILED, primary) ? LOAD_FAILED[primary] : LOAD_FAILED.en;
}

// The djangojs catalog (UI text that says nothing about protection), fetched
// with the integrity hash its <link data-js-catalog> carries; {} (English)
// when the page has none or it fails, which never stops the page.
async function loadCatalog() {
  const link = document.querySelector("link[data-js-catalog]");
  if (!link) return {};
  try {
    const response = await fetch(link.href, { integrity: link.integrity, credentials: "same-origin" });
    const data = response.ok ? await response.json() : null;
    return data && typeof data.catalog === "object" && data.catalog !== null ? data.catalog : {};
  } catch {
    return {};
  }
}

const preloads = {
  randomizer: document.querySelector('link[rel="modulepreload"][data-randomizer]'),
  wording: document.querySelector('link[rel="modulepreload"][data-wording]'),
  outbox: document.querySelector('link[rel="modulepreload"][data-outbox]'),
  ledger: document.querySelector('link[rel="modulepreload"][data-ledger]'),
  order: document.querySelector('link[rel="modulepreload"][data-order]'),
  quotas: document.querySelector('link[rel="modulepreload"][data-quotas]'),
  piping: document.querySelector('link[rel="modulepreload"][data-piping]'),
  checks: document.querySelector('link[rel="modulepreload"][data-section-checks]'),
};
try {
  if (!globalThis.crypto || typeof globalThis.crypto.getRandomValues !== "function") {
    throw new Error("this browser has no secure random number source");
  }
  let wording;
  [agent, wording, catalog] = await Promise.all([
    import(preloads.randomizer.href), import(preloads.wording.href), loadCatalog(),
  ]);
  words = wording.wordingFor(document.documentElement.lang);
  if (form) {
    [outbox, memory, order, quotas, checks, piping] = await Promise.all([
      import(preloads.outbox.href), import(preloads.ledger.href),
      import(preloads.order.href), import(preloads.quotas.href), import(preloads.checks.href),
      import(preloads.piping.href),
    ]);
    outbox.disarm(form, config);
    pageValues = outbox.pageFields(form, config);
  }
} catch (error) {
  agent = null;
  // wording.js may be what failed, so this one sentence cannot come from it:
  // it is wording.js's page.loadFailed, in every language (a test compares).
  const message = loadFailed(document.documentElement.lang).replace("{error}", () => error.message);
  if (scriptNote) {
    scriptNote.textContent = message;
    scriptNote.classList.add("error");
  }
  document.getElementById("take-part")?.remove();
}
let contentProblem = null;
if (agent !== null && form) {
  try {
    contents = await verifyContents();
  } catch (error) {
    contentProblem = error;
  }
}
if (agent !== null) {
  if (form) {
    for (const question of config.questions) {
      if (question.kind === "numeric") setUpNumber(question);
      else if (question.kind === "multi_select") setUpCheckboxes(question);
      else setUpRadios(question);
      setUpSkip(question.id, () => answerInputs(question));
    }
    for (const id of config.plain_optional || []) {
      setUpSkip(id, () => Array.from(document.querySelectorAll(`#question-${id} input[name="q${id}"]`)));
    }
    order.shuffleOptions(form, config);
    order.shuffleQuestions(form, config);
    form.addEventListener("submit", onSubmit);
    form.addEventListener("change", applyLogic);
    setUpPlainProblems();
    review = outbox.reviewPanel(form);
    form.addEventListener("input", showReview);
    form.addEventListener("input", () => piping.fill(form, config, outbox.OTHER_SUFFIX));
    form.addEventListener("change", showReview);
    applyLogic();
    setUpSections();
    setUpSave();
    showReview();
  }
  if (contentProblem) refuse(contentProblem);
  else {
    if (form) watchDowngrades();
    start();
  }
}
