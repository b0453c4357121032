// Sections shown one at a time within this one document (moving between them
// sends nothing), what a shown question still needs before "Next" or "Send"
// (section_checks.js), and display logic: only an unprotected answer decides
// what is shown.
//
// Part of the page script: respond.js loads it by the <link rel="modulepreload">
// that carries its Subresource Integrity hash and installs it once.

let d = null; // the page's device state (respond.js), bound once by install()
let config, form, statusLine, words, outbox, piping, checks, sections, logic; // fixed once installed

// --- sections: one at a time, all in this page -------------------------------------
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
  position.textContent = d.interpolate(d.gettext("Section %(current)s of %(total)s"), {
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
    d.say(problem.message, true);
    problem.focus.focus();
    return;
  }
  d.say("");
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
    if (optional && d.skipBox(id)?.checked) return null;
    const guarded = outbox.protectedControls(form, config);
    return checks.plainProblem(outbox.plainControls(form, id, guarded), messages, optional);
  }
  if (d.plan && d.plan.need && !d.plan.need.some((q) => q.id === id)) return null;
  if (question.optional && (d.skipBox(id)?.checked || d.leftBlank(question))) return null;
  if (d.leftBlank(question)) {
    const read = d.chosenAnswer(question);
    return { message: messages.required || read.error, focus: read.focus || block.querySelector("input") };
  }
  const read = d.chosenAnswer(question);
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
    gettext: d.gettext, interpolate: d.interpolate, sectionTitle: heading ? heading.textContent.trim() : "", go,
  });
}

// The section holding `element` is shown (e.g. a question still unanswered).
function revealSection(element) {
  const index = sections.findIndex((section) => section.contains(element));
  if (index >= 0 && index !== current) showSection(index, false);
}

// --- display logic: some questions are shown only for some unprotected answers ---
// Only an unprotected answer (sent as given anyway) may decide what is shown, so
// which questions a respondent answered reveals nothing more about them. A
// hidden question's answers are cleared and it sends nothing at all.

function plainAnswer(id) {
  const fieldset = document.getElementById(`question-${id}`);
  if (!fieldset || fieldset.hidden || d.skipBox(id)?.checked) return [];
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

// Binds this module to the page's device state, once, and adds its functions
// to it (a second install is refused: nothing can rebind it).
export function install(device) {
  if (d !== null) throw new Error("respond_sections.js is installed already");
  d = device;
  ({ config, form, statusLine, words, outbox, piping, checks, sections, logic } = device);
  Object.assign(device, {
    setUpSections, problemOf, refuseSend, revealSection, isHidden, clearQuestion,
    applyLogic,
  });
}
