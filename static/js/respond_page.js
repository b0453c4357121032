// The answer and consent pages' own words and messages: UI text from the
// djangojs catalog (never about protection), the status line and notices, and
// every sentence about protection placed beside the controls the device reads,
// worded by wording.js from the verified content objects; a refusal, in plain
// words, locks the form.
//
// Part of the page script: respond.js loads it by the <link rel="modulepreload">
// that carries its Subresource Integrity hash and installs it once.

let d = null; // the page's device state (respond.js), bound once by install()
let config, form, statusLine, scriptNote, notice, words; // fixed once installed

// A UI string (not about protection) in this page's language, from the
// djangojs catalog the page links with its integrity hash; English without it.
function gettext(msgid) {
  return Object.prototype.hasOwnProperty.call(d.catalog, msgid) && typeof d.catalog[msgid] === "string"
    ? d.catalog[msgid] : msgid;
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
  const content = d.contents.get(question.id);
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
  fillText("keeps", words.keeps(d.expiryMonth()));
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

function refuse(error) {
  const message = error && error.name === "SpecRefused"
    ? words.describeRefusal(error.code, error.facts, config.contact)
    : words.describeRefusal("unverifiable", {}, config.contact);
  showNotice(message);
  notice.dataset.refusal = error && error.code ? error.code : "unverifiable";
  if (scriptNote) scriptNote.textContent = "";
  const takePart = document.getElementById("take-part");
  if (takePart) takePart.remove();
  if (form) d.lockForm(true);
  d.plan = null;
}

// Binds this module to the page's device state, once, and adds its functions
// to it (a second install is refused: nothing can rebind it).
export function install(device) {
  if (d !== null) throw new Error("respond_page.js is installed already");
  d = device;
  ({ config, form, statusLine, scriptNote, notice, words } = device);
  Object.assign(device, {
    gettext, interpolate, say, showNotice, renderWording, refuse,
  });
}
