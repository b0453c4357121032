// Deniable respondent page: randomize protected answers on this device, then
// send only the randomized reports.
//
// - A protected question's answer inputs have no `name`, so the browser can
//   never submit them; this script reads them and writes only the report
//   (JSON) into that question's hidden field.
// - Randomize once per response: the first "Send" seals the body (reports and
//   an idempotency key) in memory; a retry after a network error resends the
//   byte-identical body, never a fresh randomization (fresh ones would let
//   averaging undo the protection). Nothing is put in cookies or storage.
// - The randomizer module is loaded from the <link rel="modulepreload"> that
//   carries its Subresource Integrity hash; if it fails to load or to verify,
//   nothing can be sent.

const form = document.querySelector("form[data-respond]");
const config = JSON.parse(document.getElementById("respond-config").textContent);
const button = form.querySelector('button[type="submit"]');
const statusLine = document.getElementById("respond-status");
const scriptNote = document.getElementById("script-note");

let randomizeFn = null; // set once the verified randomizer module has loaded
let sealedBody = null; // the exact body sent, kept for retries only
let sending = false;

function say(text, isError = false) {
  statusLine.textContent = text;
  statusLine.classList.toggle("error", isError);
}

// --- unnamed radios behave as one group (names would group them natively) ---
function groupElement(question) {
  return form.querySelector(`[data-answer-group="${question.answer_group}"]`);
}

function groupInputs(groupName, type = "radio") {
  const group = form.querySelector(`[data-answer-group="${groupName}"]`);
  return group ? Array.from(group.querySelectorAll(`input[type="${type}"]`)) : [];
}

function errorLine(question) {
  return document.getElementById(`error-q${question.id}`);
}

function showError(question, text, input = null) {
  errorLine(question).textContent = text;
  if (input) input.setAttribute("aria-invalid", text ? "true" : "false");
  // Every problem fixed: the "nothing was sent" line no longer applies.
  const open = config.questions.some((q) => errorLine(q).textContent !== "");
  if (!open && sealedBody === null && !sending) say("");
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

// --- multi-select: at most `max_selections` ticks -------------------------------
function tooMany(question) {
  return `You can choose at most ${question.max_selections} options here; untick one first.`;
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
// Values are read as decimal strings and scaled to integers (BigInt) by the
// largest number of decimal places involved, so 0.1 + 0.2 is exactly 0.3 here.
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:[.,](\d*))?$/;

function parseDecimal(text) {
  const match = DECIMAL_TEXT.exec(text.trim());
  if (text.trim().length > 40 || !match) return null;
  const [, sign, whole, frac = ""] = match;
  if (whole === "" && frac === "") return null;
  const units = BigInt((whole || "0") + frac);
  return { units: sign === "-" ? -units : units, places: frac.length };
}

function scaled(value, places) {
  return value.units * 10n ** BigInt(places - value.places);
}

function formatScaled(units, places) {
  const negative = units < 0n;
  let digits = (negative ? -units : units).toString().padStart(places + 1, "0");
  let text = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
  if (places) text = text.replace(/0+$/, "").replace(/\.$/, "");
  return (negative && text !== "0" ? "-" : "") + text;
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

// The grid level index of `text`, or an error sentence for the respondent.
function levelOf(question, text) {
  const { low: lowText, high: highText, step: stepText } = question.spec;
  if (text.trim() === "") return { error: "Please enter a number." };
  const value = parseDecimal(text);
  if (value === null) {
    return { error: `“${text.trim()}” is not a number. Use digits, e.g. ${lowText}.` };
  }
  const g = numericGrid(question);
  const places = Math.max(g.places, value.places);
  const up = 10n ** BigInt(places - g.places);
  const [low, high, step] = [g.low * up, g.high * up, g.step * up];
  const v = scaled(value, places);
  if (v < low || v > high) {
    return { error: `Please enter a number from ${lowText} to ${highText}.` };
  }
  if ((v - low) % step !== 0n) {
    const below = low + ((v - low) / step) * step;
    return {
      error:
        `${text.trim()} is not one of the allowed values: use steps of ${stepText} ` +
        `from ${lowText} (the nearest are ${formatScaled(below, places)} and ` +
        `${formatScaled(below + step, places)}).`,
    };
  }
  return { answer: Number((v - low) / step) };
}

function numberInputs(question) {
  const group = groupElement(question);
  return {
    box: group.querySelector("input.numeric-value"),
    slider: group.querySelector("input.numeric-slider"),
  };
}

function setUpNumber(question) {
  const { box, slider } = numberInputs(question);
  const describedBy = `${box.getAttribute("aria-describedby") || ""} error-q${question.id}`;
  box.setAttribute("aria-describedby", describedBy.trim());
  const label = (level) => valueOfLevel(question, level);
  slider.setAttribute("aria-valuetext", label(slider.value));
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

for (const question of config.questions) {
  if (question.kind === "numeric") setUpNumber(question);
  else if (question.kind === "multi_select") setUpCheckboxes(question);
  else setUpRadios(question);
}

// --- randomizing ---------------------------------------------------------------
function uuid4() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// {answer} (what the randomizer takes) or {error, focus} for one question.
function chosenAnswer(question) {
  if (question.kind === "numeric") {
    const { box } = numberInputs(question);
    const read = levelOf(question, box.value);
    return read.error ? { error: read.error, focus: box } : read;
  }
  if (question.kind === "multi_select") return chosenOptions(question);
  const inputs = groupInputs(question.answer_group);
  const checked = inputs.find((input) => input.checked);
  return checked
    ? { answer: Number(checked.value) }
    : { error: "Please choose an answer.", focus: inputs[0] };
}

// Returns the body to send, or null (with the first unanswered question focused).
function seal(randomize) {
  let firstMissing = null;
  const answers = new Map();
  for (const question of config.questions) {
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
    say("Some questions have no valid answer yet; nothing was sent.", true);
    firstMissing.focus();
    return null;
  }
  for (const [question, answer] of answers) {
    form.elements[question.report_field].value = JSON.stringify(
      randomize(question.spec, answer),
    );
  }
  form.elements.idempotency_key.value = uuid4();
  // FormData holds named controls only: the reports, never the true answers.
  const body = new URLSearchParams(new FormData(form)).toString();
  // The answers are now fixed: changing them would need a new randomization.
  for (const input of form.querySelectorAll(".question input")) input.disabled = true;
  return body;
}

async function send() {
  sending = true;
  button.disabled = true;
  say("Sending your randomized answers…");
  let response;
  try {
    response = await fetch(form.action || window.location.href, {
      method: "POST",
      body: sealedBody,
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
      },
      credentials: "same-origin",
      redirect: "error",
    });
  } catch {
    sending = false;
    button.disabled = false;
    button.textContent = "Send again";
    say(
      "The connection failed, so your answers may not have arrived. Press “Send " +
        "again”: exactly the same randomized answers will be sent, never new ones.",
      true,
    );
    return;
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (response.ok && data && data.receipt_url) {
    say("Received. Opening your receipt…");
    window.location.assign(data.receipt_url);
    return;
  }
  sending = false;
  const retryable = response.status >= 500 || response.status === 429;
  if (retryable) {
    button.disabled = false;
    button.textContent = "Send again";
  }
  const reason = data && data.error ? data.error : `The server answered ${response.status}.`;
  say(
    retryable
      ? `${reason} Press “Send again” to resend exactly the same randomized answers.`
      : reason,
    true,
  );
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (sending || randomizeFn === null) return;
  if (sealedBody === null) {
    try {
      sealedBody = seal(randomizeFn);
    } catch (error) {
      say(`Your answers could not be randomized, so nothing was sent: ${error.message}`, true);
      return;
    }
    if (sealedBody === null) return;
  }
  send();
});

// --- loading the randomizer -----------------------------------------------------
const preload = document.querySelector('link[rel="modulepreload"][data-randomizer]');
try {
  if (!globalThis.crypto || typeof globalThis.crypto.getRandomValues !== "function") {
    throw new Error("this browser has no secure random number source");
  }
  const module = await import(preload.href);
  randomizeFn = module.randomize;
  scriptNote.textContent =
    "The randomizer has loaded and passed its integrity check. Your protected " +
    "answers will be randomized on this device when you press “Send”.";
  button.disabled = false;
} catch (error) {
  scriptNote.textContent =
    "The randomizer could not be loaded or failed its integrity check, so this " +
    `page cannot send anything. (${error.message})`;
  scriptNote.classList.add("error");
}
