// Deniable's outbox: what the respondent's device sends, built from the
// device's own state through an allowlist, never by serialising a form.
//
// The page is the server's: it may add a `name` to a true-answer control,
// add hidden inputs or whole forms, or rename controls. None of that reaches
// the body, because the body is made here from values the device holds:
//
// - the fields the page gave before anything was typed (the CSRF token, the
//   survey's revision, the open stamp, the survey's link fields), read once
//   at start from hidden inputs under exactly those names (`pageFields`);
// - for each protected question, the report the randomizer made, its spec
//   revision, or the skip marker (`declined` for "Prefer not to answer",
//   `blank` for left blank): never anything read from its answer controls
//   (`buildBody`);
// - for each question the configuration names as unprotected, the values of
//   its own named controls, but never of a control that is also a protected
//   question's answer control (`plainValues`), and the page's device shows
//   every such answer before the send (respond.js).
//
// `allowedNames(config)` is the whole list of names a body may hold; the
// server's ResponseForm expects exactly the same list (a Python test compares
// them), and `buildBody` refuses to emit any other name.

export const CSRF_FIELD = "csrfmiddlewaretoken";
// How a skipped question was left, as its marker says: "Prefer not to answer"
// or left blank (the server stores the two apart). A device that does not
// tell them apart says `true`, sent as the earlier marker "skipped" (stored
// as "declined or left blank").
export const SKIP_MARKERS = ["declined", "blank"];
const UNTOLD_MARKER = "skipped";
const PAGE_FIELDS = ["survey_revision", "opened"];
const LINK_PREFIX = "link_";
// Control characters (Unicode category Cc): no field ever holds one, but typed
// words (an unprotected answer) may hold line feeds and tabs.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const TEXT_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
export const OTHER_SUFFIX = "_other";

export class BodyRefused extends Error {
  constructor(message) {
    super(message);
    this.name = "BodyRefused";
  }
}

const ids = (list) => (Array.isArray(list) ? list.map((item) => (typeof item === "object" ? item.id : item)) : []);

/** Every field name a body for `config` may hold. */
export function allowedNames(config) {
  const names = new Set([CSRF_FIELD, "idempotency_key", ...PAGE_FIELDS]);
  for (const link of config.link_fields || []) names.add(`${LINK_PREFIX}${link}`);
  for (const question of config.questions || []) {
    names.add(`q${question.id}_report`);
    names.add(`q${question.id}_spec_revision`);
    if (question.optional) names.add(`q${question.id}_skipped`);
  }
  for (const id of ids(config.plain)) names.add(`q${id}`);
  for (const id of ids(config.plain_optional)) names.add(`q${id}_skipped`);
  for (const id of Object.keys(config.other || {})) names.add(`q${id}${OTHER_SUFFIX}`);
  return names;
}

/**
 * The values the page gave for the fields that are not answers, read from its
 * hidden inputs under exactly those names. Call it once, before anything is
 * typed: no true answer can be in them then.
 */
export function pageFields(form, config) {
  const wanted = [CSRF_FIELD, ...PAGE_FIELDS, ...(config.link_fields || []).map((n) => `${LINK_PREFIX}${n}`)];
  const fields = [];
  for (const name of wanted) {
    const inputs = Array.from(form.querySelectorAll('input[type="hidden"]')).filter((input) => input.name === name);
    if (inputs.length > 1) throw new BodyRefused(`the page holds the field ${name} twice`);
    if (inputs.length === 1 && inputs[0].value !== "") fields.push([name, inputs[0].value]);
  }
  return fields;
}

/** Every element a protected question's true answer is read from. */
export function protectedControls(form, config) {
  const controls = new Set();
  for (const question of config.questions || []) {
    for (const group of form.querySelectorAll("[data-answer-group]")) {
      if (group.dataset.answerGroup !== question.answer_group) continue;
      for (const input of group.querySelectorAll("input, select, textarea")) controls.add(input);
    }
  }
  return controls;
}

/**
 * Take from every protected answer control what would let a form carry it
 * (a `name`, a `form` owner), now and whenever the page puts it back, and
 * stop the native submission of any form that holds one: without a name, no
 * form submission, the device's or another, can carry a true answer.
 */
export function disarm(form, config) {
  const strip = () => {
    for (const control of protectedControls(form, config)) {
      for (const attribute of ["name", "form", "formaction"]) {
        if (control.hasAttribute(attribute)) control.removeAttribute(attribute);
      }
    }
  };
  strip();
  new MutationObserver(strip).observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["name", "form", "formaction", "data-answer-group"],
  });
  document.addEventListener("submit", (event) => {
    const guarded = protectedControls(form, config);
    const elements = Array.from(event.target.elements || []);
    if (event.target !== form && elements.some((element) => guarded.has(element))) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
  return strip;
}

// An element that may speak for an unprotected question or a skip: not a
// protected answer control, and not inside any protected answer group.
function outsideProtected(element, forbidden) {
  return !forbidden.has(element) && element.closest("[data-answer-group]") === null;
}

/** The "Prefer not to answer" box of question `id`, or null. */
export function skipControl(form, id, forbidden) {
  const holder = form.querySelector(`[data-skip-for="${id}"]`);
  if (!holder) return null;
  const box = holder.querySelector('input[type="checkbox"].skip-marker');
  return box && outsideProtected(box, forbidden) ? box : null;
}

/** The inputs of unprotected question `id` (its named controls in its own block). */
export function plainControls(form, id, forbidden, name = `q${id}`) {
  const block = form.querySelector(`#question-${id}`);
  if (!block) return [];
  return Array.from(block.querySelectorAll("input, textarea")).filter(
    (input) => input.name === name && outsideProtected(input, forbidden));
}

// Typed words as sent: line ends as "\n" (the server stores them so).
const typed = (text) => text.replace(/\r\n?/g, "\n");

/**
 * The words beside "Other, please specify" of question `id`, or "" unless the
 * configuration gives it an "Other" answer and that answer is chosen.
 */
export function otherText(form, id, config, forbidden, values) {
  const other = (config.other || {})[String(id)];
  if (other === undefined || !values.includes(String(other))) return "";
  const boxes = plainControls(form, id, forbidden, `q${id}${OTHER_SUFFIX}`);
  const box = boxes.length === 1 && !boxes[0].disabled ? boxes[0] : null;
  return box && box.value.trim() !== "" ? typed(box.value) : "";
}

/** What unprotected question `id` sends: its values (checked or typed). */
export function plainValues(form, id, forbidden) {
  const values = [];
  for (const input of plainControls(form, id, forbidden)) {
    if (input.disabled) continue;
    if (input.type === "radio" || input.type === "checkbox") {
      if (input.checked) values.push(input.value);
    } else if (input.value.trim() !== "") {
      values.push(typed(input.value));
    }
  }
  return values;
}

/**
 * The body (application/x-www-form-urlencoded) from the device's own state:
 *
 * - `page`: [name, value] pairs from `pageFields`;
 * - `idempotencyKey`: the random UUID of this send;
 * - `reports`: question id → {report (JSON text) | null, skipped, spec_revision},
 *   one per protected question that sends anything (a hidden one sends nothing);
 * - `plain`: question id → {values: [...], skipped, other}, one per
 *   unprotected question that sends anything (`other`: the words beside
 *   "Other, please specify", sent only with that answer);
 *
 * where `skipped` is false, one of SKIP_MARKERS ("declined", "blank"), or
 * true (not told apart: sent as "skipped").
 * Throws BodyRefused for a name outside `allowedNames(config)`, a skip that
 * is not one of SKIP_MARKERS, or a value holding a control character.
 */
export function buildBody(config, { page, idempotencyKey, reports, plain }) {
  const allowed = allowedNames(config);
  const body = new URLSearchParams();
  const add = (name, value, words = false) => {
    const text = String(value);
    if (!allowed.has(name)) throw new BodyRefused(`the device does not send ${name}`);
    if ((words ? TEXT_CONTROL : CONTROL).test(text)) throw new BodyRefused(`${name} holds a control character`);
    body.append(name, text);
  };
  const marker = (id, skipped) => {
    if (skipped === true) add(`q${id}_skipped`, UNTOLD_MARKER);
    else if (SKIP_MARKERS.includes(skipped)) add(`q${id}_skipped`, skipped);
    else throw new BodyRefused(`q${id} has no skip marker ${String(skipped)}`);
  };
  for (const [name, value] of page) add(name, value);
  add("idempotency_key", idempotencyKey);
  for (const [id, sent] of reports) {
    if (sent.report !== null && sent.report !== undefined) {
      add(`q${id}_report`, sent.report);
      add(`q${id}_spec_revision`, sent.spec_revision);
    } else if (sent.skipped) {
      marker(id, sent.skipped);
    }
  }
  for (const [id, sent] of plain) {
    if (sent.skipped) marker(id, sent.skipped);
    else for (const value of sent.values) add(`q${id}`, value, true);
    if (!sent.skipped && sent.other) add(`q${id}${OTHER_SUFFIX}`, sent.other);
  }
  return body.toString();
}

// --- the review: every answer that goes as given, shown before the send -------
/** A stable text of what the unprotected questions send (to compare). */
export function plainKey(plain) {
  return JSON.stringify(Array.from(plain, ([id, sent]) => [id, sent.skipped, sent.values, sent.other || ""]));
}

function labelOf(form, input) {
  const label = input.id ? form.querySelector(`label[for="${CSS.escape(input.id)}"]`) : null;
  const text = label ? label.textContent.trim() : "";
  return text || input.value;
}

function questionText(form, id) {
  const legend = form.querySelector(`#question-${id} legend`);
  return legend ? legend.textContent.replace(/\s+/g, " ").trim() : `q${id}`;
}

/** The device's own review panel, placed just above the send button. */
export function reviewPanel(form) {
  const panel = document.createElement("section");
  panel.className = "device-review message";
  panel.id = "device-review";
  // Inside the send block, so it is shown wherever "Send" is.
  const send = form.querySelector(".send");
  if (send) send.insertBefore(panel, send.firstChild);
  else form.append(panel);
  return panel;
}

/**
 * Fill `panel` with every unprotected answer as it will be sent: the
 * question's text and the chosen option's words or the typed text, in the
 * respondent's language (`words`, wording.js).
 */
export function renderReview(panel, form, plain, words, forbidden) {
  const lead = document.createElement("p");
  const strong = document.createElement("strong");
  if (plain.size === 0) {
    strong.textContent = words.sentence("page.noneAsTyped");
    lead.append(strong);
    panel.replaceChildren(lead);
    panel.dataset.asTyped = "0";
    return;
  }
  strong.textContent = words.sentence("page.sentAsTyped");
  lead.append(strong);
  const list = document.createElement("ul");
  for (const [id, sent] of plain) {
    const item = document.createElement("li");
    item.dataset.question = String(id);
    const inputs = plainControls(form, id, forbidden);
    let shown;
    if (sent.skipped) {
      shown = words.sentence("page.skippedPlain");
    } else if (sent.values.length === 0) {
      shown = words.sentence("page.noAnswerYet");
    } else {
      shown = sent.values.map((value) => {
        const input = inputs.find((box) => box.value === value && (box.type === "radio" || box.type === "checkbox"));
        return input ? labelOf(form, input) : value;
      }).join(", ");
      if (sent.other) shown = `${shown}: ${sent.other}`;
    }
    const answer = document.createElement("strong");
    answer.className = "as-typed";
    answer.textContent = shown;
    item.append(`${questionText(form, id)}: `, answer);
    list.append(item);
  }
  panel.replaceChildren(lead, list);
  panel.dataset.asTyped = String(plain.size);
}
