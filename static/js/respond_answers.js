// The answer controls the device reads: radios, checkboxes and number boxes,
// the "Prefer not to answer" marker, what each unprotected question sends,
// error lines, and locking the form (respond.js clears every true answer).
//
// Part of the page script: respond.js loads it by the <link rel="modulepreload">
// that carries its Subresource Integrity hash and installs it once.

let d = null; // the page's device state (respond.js), bound once by install()
let config, form, button, words, outbox, checks, guards; // fixed once installed

// --- answer inputs -------------------------------------------------------------
function groupInputs(groupName, type = "radio") {
  const group = form.querySelector(`[data-answer-group="${groupName}"]`);
  return group ? Array.from(group.querySelectorAll(`input[type="${type}"]`)) : [];
}

function answerInputs(question) {
  const group = form.querySelector(`[data-answer-group="${question.answer_group}"]`);
  return group ? Array.from(group.querySelectorAll("input")) : [];
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
    if (d.isHidden(id)) continue;
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
  if (!open && !d.sending) d.say("");
}

// Disable every answer input (or all but those of `open` question ids).
function lockForm(locked, open = new Set()) {
  for (const question of config.questions) {
    const closed = locked && !open.has(question.id);
    for (const input of answerInputs(question)) input.disabled = closed;
    if (skipBox(question.id)) skipBox(question.id).disabled = closed;
    const block = document.getElementById(`question-${question.id}`);
    if (block) block.classList.toggle("answered-before", closed && d.plan?.kept?.has(question.id));
  }
  for (const id of config.plain || []) {
    for (const input of document.querySelectorAll(`#question-${id} :is(input, textarea)`)) input.disabled = locked && !open.size;
  }
  if (button) button.disabled = locked && !open.size;
  d.holdDowngrades();
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

function numberInputs(question) {
  const group = form.querySelector(`[data-answer-group="${question.answer_group}"]`);
  return { box: group.querySelector("input.numeric-value"), slider: group.querySelector("input.numeric-slider") };
}

function setUpNumber(question) {
  const { box, slider } = numberInputs(question);
  const describedBy = `${box.getAttribute("aria-describedby") || ""} error-q${question.id}`;
  box.setAttribute("aria-describedby", describedBy.trim());
  const label = (level) => d.valueOfLevel(question, level);
  slider.addEventListener("input", () => {
    const shown = label(slider.value);
    slider.setAttribute("aria-valuetext", shown);
    box.value = shown;
    showError(question, "", box);
  });
  box.addEventListener("input", () => {
    const read = d.levelOf(question, box.value);
    if (read.answer !== undefined) {
      slider.value = String(read.answer);
      slider.setAttribute("aria-valuetext", label(read.answer));
      showError(question, "", box);
    }
  });
  box.addEventListener("change", () => {
    const read = box.value.trim() === "" ? {} : d.levelOf(question, box.value);
    showError(question, read.error || "", box);
  });
}

function chosenAnswer(question) {
  if (question.kind === "numeric") {
    const { box } = numberInputs(question);
    const read = d.levelOf(question, box.value);
    return read.error ? { error: read.error, focus: box } : read;
  }
  if (question.kind === "multi_select") return chosenOptions(question);
  const inputs = groupInputs(question.answer_group);
  const checked = inputs.find((input) => input.checked);
  return checked ? { answer: Number(checked.value) } : { error: words.sentence("page.chooseAnswer"), focus: inputs[0] };
}

// Binds this module to the page's device state, once, and adds its functions
// to it (a second install is refused: nothing can rebind it).
export function install(device) {
  if (d !== null) throw new Error("respond_answers.js is installed already");
  d = device;
  ({ config, form, button, words, outbox, checks, guards } = device);
  Object.assign(device, {
    answerInputs, skipBox, setUpSkip, leftBlank, setUpPlainProblems, plainAnswers,
    errorLine, showError, lockForm, setUpRadios, setUpCheckboxes,
    setUpNumber, chosenAnswer,
  });
}
