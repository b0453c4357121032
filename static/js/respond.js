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
//
// The page script is this file and its parts, each a module with one job,
// loaded like the modules above (a <link rel="modulepreload" data-respond-part>
// with its hash; without every part the page sends nothing):
//   respond_page.js      the page's words, notices and protection blocks
//   respond_note.js      the per-survey note and the sealed body
//   respond_contents.js  content objects verified by hash; the downgrade warning
//   respond_answers.js   the answer controls the device reads
//   respond_numbers.js   typed numbers on the question's exact grid
//   respond_sections.js  sections, what a question still needs, display logic
//   respond_plan.js      what the next "Send" may do, with the site's memory
//   respond_save.js      save and finish later, on this device only
//   respond_send.js      sealing and sending
// They share one state, `d` below, which only this file creates.

const config = JSON.parse(document.getElementById("device-config").textContent);
const form = document.querySelector("form[data-respond]");
const button = form ? form.querySelector('button[type="submit"]') : null;
const statusLine = document.getElementById(form ? "respond-status" : "device-status");
const scriptNote = document.getElementById(form ? "script-note" : "device-status");
const notice = document.getElementById("device-notice");

// The page's device state, shared with the parts (each binds to it once).
const d = {
  config, form, button, statusLine, scriptNote, notice,
  sections: form ? Array.from(form.querySelectorAll("[data-section]")) : [],
  logic: config.logic || {}, // display logic: which unprotected answers show a question
  agent: null, // randomizer.js, once verified and loaded
  words: null, // wording.js, bound to this page's language (wordingFor)
  catalog: {}, // the djangojs catalog of this page's language: UI text only, never about protection
  plan: null, // what the next "Send" does: {mode, verdict, need, kept, spentMilli}
  sealedBody: null, // the exact bytes sealed for sending, kept for retries only
  outbox: null, // outbox.js: builds the body from the device's state (allowlist)
  order: null, // order.js: the device's own random order of questions and options
  quotas: null, // quotas.js: the quota check before anything is randomized
  piping: null, // piping.js: earlier answers not protected, repeated in later text
  checks: null, // section_checks.js: what still needs an answer, section by section
  pageValues: [], // the page's non-answer fields, read once before any answer
  review: null, // the device's list of answers that go as given (outbox.js)
  sending: false,
  memory: null, // ledger.js, once verified and loaded
  contents: new Map(), // question id → its verified content {object, hash, asked}
  guards: new Map(), // question id → {state}: asked with less protection than before (ledger.js)
  settle, clearAnswers,
};

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

// --- start ---------------------------------------------------------------------
function start() {
  let survey;
  try {
    survey = d.agent.checkSurvey(config.questions.map((q) => q.spec), 0);
  } catch (error) {
    d.refuse(error);
    return;
  }
  const ledger = d.readLedger();
  if (!form) {
    // Where answering again is allowed, the figures include what was sent.
    let total = survey;
    if (ledger && config.allow_reanswer) {
      try {
        total = d.agent.checkSurvey(config.questions.map((q) => q.spec), ledger.spentMilli);
      } catch (error) {
        d.refuse(error);
        return;
      }
    }
    d.renderWording(survey, total);
    if (scriptNote) scriptNote.hidden = true;
    if (ledger) {
      // Re-answering (where allowed) is offered, with its added ε, on the form.
      d.showNotice(config.allow_reanswer ? d.words.sentence("page.alreadyConsent") : d.words.sentence("answered.already"));
      notice.dataset.state = "answered";
      if (!config.allow_reanswer) document.getElementById("take-part")?.remove();
    }
    return;
  }
  if (button) button.textContent = d.words.sentence("page.send");
  settle();
}

// Decide what the form may do now (ledger, sealed body, specs) and show it.
function settle() {
  let survey;
  let next;
  try {
    survey = d.agent.checkSurvey(config.questions.map((q) => q.spec), 0);
    next = d.decide();
  } catch (error) {
    if (survey) d.renderWording(survey);
    d.refuse(error);
    return false;
  }
  d.renderWording(survey, next.verdict && next.mode !== "fresh" ? next.verdict : survey);
  d.applyPlan(next);
  d.showReview();
  d.resumeDraft();
  return true;
}

window.addEventListener("pagehide", () => clearAnswers());
window.addEventListener("pageshow", (event) => {
  if (!event.persisted || d.agent === null) return;
  clearAnswers();
  if (form) {
    d.sealedBody = null;
    button.textContent = d.words.sentence("page.send");
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
// This script's parts, in the order they are installed.
const PARTS = ["page", "note", "contents", "answers", "numbers", "sections", "plan", "save", "send"];
const partLink = (name) => document.querySelector(`link[rel="modulepreload"][data-respond-part="${name}"]`);
try {
  if (!globalThis.crypto || typeof globalThis.crypto.getRandomValues !== "function") {
    throw new Error("this browser has no secure random number source");
  }
  let wording;
  let parts;
  [d.agent, wording, d.catalog, parts] = await Promise.all([
    import(preloads.randomizer.href), import(preloads.wording.href), loadCatalog(),
    Promise.all(PARTS.map((name) => import(partLink(name).href))),
  ]);
  d.words = wording.wordingFor(document.documentElement.lang);
  if (form) {
    [d.outbox, d.memory, d.order, d.quotas, d.checks, d.piping] = await Promise.all([
      import(preloads.outbox.href), import(preloads.ledger.href),
      import(preloads.order.href), import(preloads.quotas.href), import(preloads.checks.href),
      import(preloads.piping.href),
    ]);
    d.outbox.disarm(form, config);
    d.pageValues = d.outbox.pageFields(form, config);
  }
  for (const part of parts) part.install(d);
} catch (error) {
  d.agent = null;
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
if (d.agent !== null && form) {
  try {
    d.contents = await d.verifyContents();
  } catch (error) {
    contentProblem = error;
  }
}
if (d.agent !== null) {
  if (form) {
    for (const question of config.questions) {
      if (question.kind === "numeric") d.setUpNumber(question);
      else if (question.kind === "multi_select") d.setUpCheckboxes(question);
      else d.setUpRadios(question);
      d.setUpSkip(question.id, () => d.answerInputs(question));
    }
    for (const id of config.plain_optional || []) {
      d.setUpSkip(id, () => Array.from(document.querySelectorAll(`#question-${id} input[name="q${id}"]`)));
    }
    d.order.shuffleOptions(form, config);
    d.order.shuffleQuestions(form, config);
    form.addEventListener("submit", d.onSubmit);
    form.addEventListener("change", d.applyLogic);
    d.setUpPlainProblems();
    d.review = d.outbox.reviewPanel(form);
    form.addEventListener("input", d.showReview);
    form.addEventListener("input", () => d.piping.fill(form, config, d.outbox.OTHER_SUFFIX));
    form.addEventListener("change", d.showReview);
    d.applyLogic();
    d.setUpSections();
    d.setUpSave();
    d.showReview();
  }
  if (contentProblem) d.refuse(contentProblem);
  else {
    if (form) d.watchDowngrades();
    start();
  }
}
