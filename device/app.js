// Deniable's independent device: a page served from an origin the survey
// server cannot write to (docs/threat-model.md). It reads a survey's content
// objects from the survey server, checks each one's SHA-256 against the hash
// it came with, shows every text as text, builds every control itself, words
// the protection beside each protected question from the spec it checked,
// keeps its memory of what it gave each survey server in its own origin's
// storage (ledger.js: one memory per survey server, keyed by each question's
// content, never by the survey's address; with the words of every protected
// question it sent, so the same words asked again with less protection are
// held until the respondent's yes), and
// sends only reports and the survey's non-answer fields (outbox.js's
// allowlist). It sends no cookie and reads none.
//
// It is opened as index.html#server=https://survey.example.org&survey=TOKEN
// (or &invitation=TOKEN); `language=` picks the language, `link_NAME=` gives
// a link field. The fragment never reaches the host that serves this page.

import * as agent from "./randomizer.js";
import * as wording from "./wording.js";
import * as outbox from "./outbox.js";
import * as ledger from "./ledger.js";
import {
  KINDS, applyLogic as showLogic, element, fill, fillPipes, guardDowngrade, questionBlock, readAnswer as readOne, renderReview,
  wellFormed,
} from "./questions.js";

const CONTENT_VERSION = 1;
const app = document.getElementById("app");
const status = document.getElementById("status");

// The device's own words that are not about protection (wording.js has those).
const UI = {
  en: {
    skip: "Prefer not to answer",
    optional: "(optional)",
    choose: "Choose…",
    yourAnswer: "Your answer",
    specify: "Please specify",
    pleaseAnswer: "Please answer “{question}”.",
    lettersOnly: "Use letters, digits and punctuation only.",
    badLink: "This link does not name a survey server and a survey, so nothing can be shown.",
    unreachable: "The survey server could not be reached or refused: {reason}. Nothing was sent.",
    badContent: "The survey server sent a question whose content does not match its fingerprint, so this device shows nothing and sends nothing.",
    receipt: "Your receipt",
    done: "Received. Nothing else is kept on this device but the note that you answered.",
  },
  es: {
    skip: "Prefiero no responder",
    optional: "(opcional)",
    choose: "Elija…",
    yourAnswer: "Su respuesta",
    specify: "Especifique",
    pleaseAnswer: "Responda a «{question}».",
    lettersOnly: "Use solo letras, cifras y signos de puntuación.",
    badLink: "Este enlace no indica un servidor de encuestas y una encuesta, así que no se puede mostrar nada.",
    unreachable: "No se pudo contactar con el servidor de la encuesta o se negó: {reason}. No se envió nada.",
    badContent: "El servidor de la encuesta envió una pregunta cuyo contenido no coincide con su huella, así que este dispositivo no muestra ni envía nada.",
    receipt: "Su comprobante",
    done: "Recibido. Este dispositivo no guarda nada más que la nota de que respondió.",
  },
  fr: {
    skip: "Je préfère ne pas répondre",
    optional: "(facultative)",
    choose: "Choisir…",
    yourAnswer: "Votre réponse",
    specify: "Veuillez préciser",
    pleaseAnswer: "Veuillez répondre à « {question} ».",
    lettersOnly: "Utilisez seulement des lettres, des chiffres et de la ponctuation.",
    badLink: "Ce lien n’indique pas de serveur d’enquête ni d’enquête, rien ne peut donc être affiché.",
    unreachable: "Le serveur de l’enquête n’a pas pu être joint ou a refusé : {reason}. Rien n’a été envoyé.",
    badContent: "Le serveur de l’enquête a envoyé une question dont le contenu ne correspond pas à son empreinte : cet appareil n’affiche et n’envoie donc rien.",
    receipt: "Votre reçu",
    done: "Reçu. Cet appareil ne garde rien d’autre que la note indiquant que vous avez répondu.",
  },
};

let words = wording.wordingFor(navigator.language || "en");
let ui = UI[wording.languageOf(navigator.language || "en")] || UI.en;
// What questions.js reads and words answers in (the survey's language, once known).
const language = () => ({ words, ui });
const applyLogic = (questions) => showLogic(questions, language());
const readAnswer = (question) => readOne(question, language());

function say(message, isError = false) {
  status.textContent = message;
  status.classList.toggle("error", isError);
}

// --- where to ask: the survey server and the survey, from the fragment ---------
export function readLink(hash, search = "") {
  const params = new URLSearchParams(hash.replace(/^#/, "") || search.replace(/^\?/, ""));
  let server;
  try {
    server = new URL(params.get("server") || "");
  } catch {
    return null;
  }
  const local = ["127.0.0.1", "localhost", "[::1]"].includes(server.hostname);
  if (server.protocol !== "https:" && !(server.protocol === "http:" && local)) return null;
  const survey = params.get("survey");
  const invitation = params.get("invitation");
  const token = invitation || survey;
  if (!token || /[/?#\s]/.test(token)) return null;
  const links = {};
  for (const [name, value] of params) if (name.startsWith("link_")) links[name.slice(5)] = value;
  return {
    origin: server.origin,
    content: `${server.origin}/s/device/${invitation ? "i/" : ""}${encodeURIComponent(token)}/`,
    language: params.get("language") || "",
    links,
  };
}

// --- the content objects: fingerprints checked before anything is read --------
export class ContentRefused extends Error {}

/**
 * The checked content objects of a survey, in order: each one's text hashed
 * before it is parsed (ledger.verifyContent), its shape checked, and its
 * memory key (its content without its place in a survey) added.
 */
export async function checkedContent(data, language) {
  if (!data || !Array.isArray(data.questions) || data.questions.length === 0) {
    throw new ContentRefused("no questions");
  }
  const questions = [];
  for (const item of data.questions) {
    let body;
    try {
      body = await ledger.verifyContent(item);
    } catch {
      throw new ContentRefused("fingerprint");
    }
    const fine = body.v === CONTENT_VERSION && Number.isSafeInteger(body.question) && KINDS.has(body.kind) &&
      typeof body.text === "string" && Array.isArray(body.options) && body.language === language &&
      typeof body.protected === "boolean" && (!body.protected || (body.spec && body.wording)) && wellFormed(body) &&
      !(body.protected && body.typed !== undefined);
    if (!fine) throw new ContentRefused("malformed");
    questions.push({ ...body, hash: item.hash, key: await ledger.memoryKey(body), asked: await ledger.askedKey(body) });
  }
  if (new Set(questions.map((q) => q.question)).size !== questions.length) throw new ContentRefused("duplicate");
  return questions;
}

// --- the device's memory: this origin's storage, one memory per survey server ---
/** A Storage holding only `origin`'s memory (ledger.js reads and writes one key). */
export function serverStorage(origin) {
  const key = (name) => `${origin} ${name}`;
  return {
    getItem: (name) => localStorage.getItem(key(name)),
    setItem: (name, value) => localStorage.setItem(key(name), value),
    removeItem: (name) => localStorage.removeItem(key(name)),
  };
}

const today = () => ledger.dayOf(new Date());

/**
 * What the memory says of this survey's protected questions: "answered"
 * (a report was sent for this survey: nothing more is sent), "seen" (their
 * content was answered for another survey: nothing is randomized again
 * without a yes), or "fresh".
 */
export function recalled(memory, questions, scope) {
  const found = questions.filter((q) => q.protected).map((q) => ledger.recall(memory, q.key, scope));
  if (found.some((r) => r.report !== null)) return { mode: "answered", seen: 0 };
  const seen = found.filter((r) => r.elsewhere).length;
  return { mode: seen ? "seen" : "fresh", seen };
}

/**
 * Each question this site asked under stronger protection before, on a page
 * this device sent: question id → {before, now} (ledger.js, `downgrades`).
 */
export function downgraded(storage, questions, verdict) {
  const milli = new Map(questions.filter((q) => q.protected).map((q, i) => [q.question, verdict.questions[i].epsilonMilli]));
  const asked = questions.map((q) => ({ id: q.question, key: q.asked, milli: q.protected ? milli.get(q.question) : null }));
  return new Map(ledger.downgrades(ledger.readMemory(storage, today()), asked).map((found) => [found.id, found]));
}

// --- sending ----------------------------------------------------------------------
function uuid4() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function outboxConfig(questions, data) {
  return {
    questions: questions.filter((q) => q.protected).map((q) => ({ id: q.question, optional: q.optional })),
    plain: questions.filter((q) => !q.protected).map((q) => q.question),
    plain_optional: questions.filter((q) => !q.protected && q.optional).map((q) => q.question),
    // "Other, please specify": question id → the value of "Other".
    other: Object.fromEntries(questions.filter((q) => q.other).map((q) => [String(q.question), q.other.value])),
    link_fields: data.link_fields || [],
  };
}

async function send(url, body) {
  const response = await fetch(url, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    credentials: "omit",
    redirect: "error",
    cache: "no-store",
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { response, data };
}

// --- start ------------------------------------------------------------------------
async function start() {
  const link = readLink(window.location.hash, window.location.search);
  if (!link) {
    say(ui.badLink, true);
    return;
  }
  const asked = link.language || navigator.language || "en";
  let data;
  try {
    const url = new URL(link.content);
    url.searchParams.set("language", wording.languageOf(asked));
    const response = await fetch(url, {
      credentials: "omit", redirect: "error", cache: "no-store", headers: { Accept: "application/json" },
    });
    data = await response.json();
    if (!response.ok) throw new Error(data?.error || String(response.status));
  } catch (error) {
    say(fill(ui.unreachable, { reason: error.message }), true);
    return;
  }
  words = wording.wordingFor(data.language);
  ui = UI[wording.languageOf(data.language)] || UI.en;
  document.documentElement.lang = data.language;
  let questions;
  try {
    questions = await checkedContent(data, data.language);
  } catch {
    say(ui.badContent, true);
    return;
  }
  // Reports go to the survey server named in the link, and nowhere else.
  let reportUrl;
  try {
    reportUrl = new URL(data.report_url);
  } catch {
    reportUrl = null;
  }
  if (!reportUrl || reportUrl.origin !== link.origin) {
    say(ui.badContent, true);
    return;
  }
  const storage = serverStorage(link.origin);
  let verdict;
  try {
    verdict = agent.checkSurvey(questions.filter((q) => q.protected).map((q) => q.spec), 0);
  } catch (error) {
    say(words.describeRefusal(error.code || "unverifiable", error.facts || {}, data.survey?.contact || ""), true);
    return;
  }
  render(link, data, questions, verdict, storage, reportUrl.href, downgraded(storage, questions, verdict));
}

// The site's total before the send, in the device's words (null: refused).
function siteTotal(panel, memory, added) {
  const given = ledger.givenMilli(memory);
  const text = (milli) => words.epsilonText(milli);
  const values = { given: text(given), added: text(added), total: text(given + added), ceiling: text(ledger.ORIGIN_CEILING_MILLI) };
  try {
    ledger.checkCeiling(memory, added);
  } catch (error) {
    panel.textContent = words.sentence(error.code === "unreadable" ? "memory.unreadable" : "memory.siteCeiling", values);
    panel.dataset.state = "refused";
    return null;
  }
  panel.textContent = words.sentence("memory.siteTotal", values);
  panel.dataset.state = "ok";
  return values;
}

// What the memory allows, shown in the device's words: nothing more for a
// survey already answered; for content answered for another survey, nothing
// randomized again until the respondent says yes on this device's own button,
// told the ε it adds and the site's new total. Returns a function that reads
// the memory and updates the page: true when a send may go ahead.
function memoryGate({ form, notice, button, total, questions, verdict, storage, scope, state }) {
  const lock = () => {
    button.disabled = true;
    for (const input of form.querySelectorAll("input, select, textarea")) input.disabled = true;
  };
  return () => {
    const memory = ledger.readMemory(storage, today());
    const known = recalled(memory, questions, scope);
    if (siteTotal(total, memory, verdict.epsilonMilli) === null) {
      button.disabled = true;
      return false;
    }
    if (known.mode === "answered") {
      notice.hidden = false;
      notice.dataset.state = "answered";
      notice.replaceChildren(element("p", {}, words.sentence("answered.already")));
      lock();
      return false;
    }
    if (known.mode === "fresh" || state.accepted) {
      state.consent = true;
      return true;
    }
    const given = ledger.givenMilli(memory);
    const text = (milli) => words.epsilonText(milli);
    const accept = element("button", { type: "button", class: "button", id: "accept-seen" },
      words.sentence("memory.acceptSeen"));
    notice.replaceChildren(element("p", { id: "seen-words" }, words.sentence("memory.seenElsewhere", {
      count: known.seen, added: text(verdict.epsilonMilli), total: text(given + verdict.epsilonMilli),
    })), accept);
    notice.hidden = false;
    notice.dataset.state = "seen";
    state.consent = false;
    button.disabled = true;
    accept.addEventListener("click", (event) => {
      if (!event.isTrusted || event.currentTarget.parentNode !== notice) return;
      state.accepted = true;
      state.consent = true;
      button.disabled = false;
      notice.hidden = true;
    });
    return false;
  };
}

function render(link, data, questions, verdict, storage, reportUrl, lowered) {
  const scope = `${link.origin} ${link.content}`;
  const form = element("form", { id: "device-form", novalidate: "" });
  const header = element("header", {}, element("h1", {}, data.survey?.title || ""));
  if (data.survey?.description) header.append(element("p", {}, data.survey.description));
  header.append(element("p", { class: "how" }, words.sentence("page.how")));
  const verdicts = new Map(questions.filter((q) => q.protected).map((q, i) => [q.question, verdict.questions[i]]));
  questions.forEach((question, i) => form.append(questionBlock(question, verdicts.get(question.question), i + 1, language())));
  const notice = element("div", { id: "device-notice", class: "message", hidden: "" });
  const total = element("p", { id: "device-site-total" });
  const button = element("button", { type: "submit", class: "button" }, words.sentence("page.send"));
  // Every answer that goes as given, listed above "Send" as it will be sent.
  const review = element("section", { id: "device-review", class: "device-review message" });
  form.append(notice, element("div", { class: "send" }, review, total, button));
  app.replaceChildren(header, form);
  // Asked with less protection than before: nothing of it leaves without a yes.
  const guards = new Map([...lowered].map(([id, found]) =>
    [id, guardDowngrade(questions.find((q) => q.question === id), found, language())]));
  const update = () => {
    const hidden = applyLogic(questions);
    fillPipes(questions, hidden, language());
    renderReview(review, questions, hidden, language());
  };
  form.addEventListener("change", update);
  form.addEventListener("input", update);
  update();
  const state = { consent: false, accepted: false };
  const ask = memoryGate({ form, notice, button, total, questions, verdict, storage, scope, state });
  ask();
  let sealed = null;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!state.consent || button.disabled) return;
    const hidden = applyLogic(questions);
    if (sealed === null && [...guards].some(([id, guard]) => guard.state === "asked" && !hidden.has(id))) {
      say(words.sentence("downgrade.pending"), true);
      return;
    }
    if (sealed === null) {
      // The memory is read again: another tab may have sent the same content
      // since this page was drawn, and that needs a yes of its own.
      if (!ask()) return;
      sealed = seal(link, data, questions, storage, scope, total);
      if (sealed === null) return;
    }
    button.disabled = true;
    say(words.sentence("page.sending"));
    let result;
    try {
      result = await send(reportUrl, sealed);
    } catch {
      button.disabled = false;
      button.textContent = words.sentence("page.sendAgain");
      say(words.sentence("page.connectionFailed"), true);
      return;
    }
    const { response, data: answer } = result;
    if (response.ok && answer?.receipt_url) {
      const receipt = new URL(answer.receipt_url, link.origin);
      const done = element("section", { id: "device-done", class: "message" }, element("p", {}, ui.done));
      if (receipt.origin === link.origin) done.append(element("p", {}, element("a", { href: receipt.href }, ui.receipt)));
      app.replaceChildren(done);
      say("");
      return;
    }
    const reason = answer?.error || words.sentence("page.serverAnswered", { status: response.status });
    if (response.status >= 500 || response.status === 429) {
      button.disabled = false;
      button.textContent = words.sentence("page.sendAgain");
      say(words.sentence("page.retry", { reason }), true);
      return;
    }
    say(reason, true); // refused for good: what was sealed already counts
  });
}

// The body, after the memory notes every report that will leave; null if an
// answer is missing or the memory refuses.
function seal(link, data, questions, storage, scope, total) {
  const hidden = applyLogic(questions);
  const answers = new Map();
  let missing = false;
  for (const question of questions) {
    if (hidden.has(question.question)) continue;
    const read = readAnswer(question);
    document.getElementById(`error-q${question.question}`).textContent = read.error || "";
    if (read.error) missing = true;
    else answers.set(question.question, read);
  }
  if (missing) {
    say(words.sentence("page.missing"), true);
    return null;
  }
  const fresh = questions.filter((q) => q.protected && answers.get(q.question) && !answers.get(q.question).skipped);
  const verdict = agent.checkSurvey(fresh.map((q) => q.spec), 0);
  const memory = ledger.readMemory(storage, today());
  if (siteTotal(total, memory, verdict.epsilonMilli) === null) return null;
  const made = agent.randomizeAll(fresh.map((q) => ({ spec: q.spec, answer: answers.get(q.question).answer })));
  const reports = new Map();
  const plain = new Map();
  for (const question of questions) {
    const read = answers.get(question.question);
    if (!read) continue;
    if (question.protected) {
      const index = fresh.indexOf(question);
      if (index >= 0) {
        reports.set(question.question, { report: JSON.stringify(made[index]), skipped: false, spec_revision: question.spec_revision });
      } else if (question.optional) {
        reports.set(question.question, { report: null, skipped: read.skipped, spec_revision: question.spec_revision });
      }
    } else {
      const skipped = read.skipped || false;
      plain.set(question.question, {
        skipped, values: skipped ? [] : [].concat(read.answer).map(String), other: skipped ? "" : read.other || "",
      });
    }
  }
  const config = outboxConfig(questions, data);
  const page = [["survey_revision", String(data.fields.survey_revision)], ["opened", String(data.fields.opened)]];
  for (const name of config.link_fields) if (link.links[name]) page.push([`link_${name}`, link.links[name]]);
  const body = outbox.buildBody(config, { page, idempotencyKey: uuid4(), reports, plain });
  // Every report now counts, whether or not the server ever acknowledges it.
  try {
    ledger.remember(storage, memory, {
      today: today(),
      scope,
      addedMilli: verdict.epsilonMilli,
      fresh: fresh.map((q, i) => ({ hash: q.key, report: JSON.stringify(made[i]), milli: verdict.questions[i].epsilonMilli })),
      // The protected questions this page asked: the same words coming back
      // with less protection are asked about first.
      asked: questions.filter((q) => q.protected && !hidden.has(q.question))
        .map((q) => ({ key: q.asked, milli: agent.checkSurvey([q.spec], 0).epsilonMilli })),
    });
  } catch {
    say(words.sentence("page.noStorage"), true);
    return null;
  }
  for (const input of document.querySelectorAll("#device-form input, #device-form select, #device-form textarea")) {
    if (input.type === "radio" || input.type === "checkbox") input.checked = false;
    else input.value = "";
    input.disabled = true;
  }
  return body;
}

if (app) start();
