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
function groupInputs(groupName) {
  const group = form.querySelector(`[data-answer-group="${groupName}"]`);
  return group ? Array.from(group.querySelectorAll('input[type="radio"]')) : [];
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

for (const question of config.questions) {
  const inputs = groupInputs(question.answer_group);
  updateTabStops(inputs);
  inputs.forEach((input, i) => {
    input.addEventListener("change", () => {
      if (input.checked) choose(inputs, input);
      document.getElementById(`error-q${question.id}`).textContent = "";
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

// --- randomizing ---------------------------------------------------------------
function uuid4() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function chosenAnswer(question) {
  const checked = groupInputs(question.answer_group).find((input) => input.checked);
  return checked ? Number(checked.value) : null;
}

// Returns the body to send, or null (with the first unanswered question focused).
function seal(randomize) {
  let firstMissing = null;
  const answers = new Map();
  for (const question of config.questions) {
    const answer = chosenAnswer(question);
    const errorLine = document.getElementById(`error-q${question.id}`);
    if (answer === null) {
      errorLine.textContent = "Please choose an answer.";
      firstMissing ??= groupInputs(question.answer_group)[0];
    } else {
      errorLine.textContent = "";
      answers.set(question, answer);
    }
  }
  if (firstMissing) {
    say("Some questions have no answer yet; nothing was sent.", true);
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
