// What the next "Send" may do, from the note, the sealed body and the device's
// memory of this site (ledger.js): a fresh answer, a byte-identical resend,
// changed questions only, a re-answer offer, content sent before, or "already
// answered"; the site's total before every send, refused past the ceiling.
//
// Part of the page script: respond.js loads it by the <link rel="modulepreload">
// that carries its Subresource Integrity hash and installs it once.

let d = null; // the page's device state (respond.js), bound once by install()
let config, form, button, scriptNote, notice, agent, words, memory, outbox; // fixed once installed

// --- what the next "Send" may do ---------------------------------------------------
// Every spec is checked first (whatever happens next); then the ledger and any
// sealed body decide between a fresh answer, a byte-identical resend, changed
// questions only, a re-answer offer, or "already answered".
function decide() {
  const specs = config.questions.map((q) => q.spec);
  const survey = agent.checkSurvey(specs, 0); // throws SpecRefused
  const ledger = d.readLedger();
  const pending = d.readPending();
  const spentMilli = Math.max(ledger ? ledger.spentMilli : 0, pending ? pending.spentMilli ?? 0 : 0);
  if (pending && pending.survey_revision === config.survey_revision &&
      config.questions.every((q) => pending.reports[q.id]?.spec === d.specText(q))) {
    return { mode: "resend", survey, pending, spentMilli };
  }
  if (pending) {
    const kept = new Map();
    const need = [];
    for (const question of config.questions) {
      const before = pending.reports[question.id];
      if (before && before.spec === d.specText(question) && before.spec_revision === question.spec_revision) {
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
const contentOf = (question) => d.contents.get(question.id).hash;

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
  d.plan = next;
  const answered = (key) => words.sentence(`answered.${key}`);
  // "Will be randomized when you press Send" holds only where that can happen.
  scriptNote.textContent = ["fresh", "reanswer", "changed", "seen"].includes(d.plan.mode)
    ? words.sentence("page.ready") : "";
  notice.hidden = true;
  delete notice.dataset.state;
  // The site's total before every send; above the ceiling nothing is sent.
  const site = showSiteTotal(d.plan);
  if (site === null) {
    d.showNotice(document.getElementById("device-site-total").textContent);
    notice.dataset.state = "site-ceiling";
    scriptNote.textContent = "";
    d.plan = { ...d.plan, mode: "answered" };
    d.lockForm(true);
    return;
  }
  if (d.plan.mode === "fresh" && d.plan.kept.size === 0) {
    d.lockForm(false);
    return;
  }
  if (d.plan.mode === "fresh" || d.plan.mode === "remembered") {
    // Content this device already sent for this survey: its remembered report
    // goes again, never a new randomization.
    d.lockForm(true, new Set(d.plan.need.map((q) => q.id)));
    for (const id of config.plain || []) unlockPlain(id);
    markKept();
    if (button) button.disabled = false;
    return;
  }
  if (d.plan.mode === "seen") {
    d.lockForm(true);
    d.showNotice(words.sentence("memory.seenElsewhere", { count: d.plan.elsewhere.length, ...site }), [[
      words.sentence("memory.acceptSeen"), (event) => {
        if (!event.isTrusted || event.currentTarget.parentNode !== notice) return;
        d.plan.accepted = true;
        notice.hidden = true;
        d.lockForm(true, new Set(d.plan.need.map((q) => q.id)));
        for (const id of config.plain || []) unlockPlain(id);
        d.resumeDraft();
      }, "accept-seen"]]);
    notice.dataset.state = "seen";
    return;
  }
  notice.dataset.state = d.plan.mode;
  if (d.plan.mode === "answered") {
    d.showNotice(answered("already"));
    notice.dataset.state = "answered";
    d.lockForm(true);
    return;
  }
  if (d.plan.mode === "resend") {
    d.sealedBody = d.plan.pending.body;
    d.showNotice(answered("resendReady"));
    notice.dataset.state = "resend";
    d.lockForm(true);
    button.disabled = false;
    button.textContent = words.sentence("page.sendAgain");
    return;
  }
  const offer = d.plan.mode === "reanswer" ? "reanswerOffer" : "changed";
  const accept = answered(d.plan.mode === "reanswer" ? "accept" : "acceptChanged");
  if (d.plan.mode === "changed" && d.plan.need.length === 0) {
    d.showNotice(answered("unchangedResend"));
    notice.dataset.state = "changed";
    d.lockForm(true, new Set());
    restorePlain(d.plan.pending);
    d.applyLogic();
    markKept();
    button.disabled = false;
    return;
  }
  d.lockForm(true);
  if (d.plan.mode === "changed") {
    restorePlain(d.plan.pending);
    d.applyLogic();
    markKept();
  }
  // The respondent's explicit yes: a click on the button the device rendered
  // itself, never a state the page could have set or a scripted click.
  d.showNotice(words.describeAgain(offer, d.plan.verdict, d.plan.need.length), [[accept, (event) => {
    if (!event.isTrusted || event.currentTarget.parentNode !== notice) return;
    d.plan.accepted = true;
    notice.hidden = true;
    d.lockForm(true, new Set(d.plan.need.map((q) => q.id)));
    if (d.plan.mode === "changed") for (const id of config.plain || []) unlockPlain(id);
  }, "accept-reanswer"]]);
}

function unlockPlain(id) {
  for (const input of document.querySelectorAll(`#question-${id} :is(input, textarea)`)) input.disabled = false;
  d.holdDowngrades();
}

function markKept() {
  for (const question of config.questions) {
    if (!d.plan.kept.has(question.id)) continue;
    const line = d.errorLine(question);
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
    if (d.skipBox(id)) d.skipBox(id).checked = ["declined", "skipped"].includes(sent.get(`q${id}_skipped`));
    for (const input of document.querySelectorAll(`#question-${id} :is(input, textarea)[name="q${id}"]`)) {
      if (input.type === "radio" || input.type === "checkbox") input.checked = values.includes(input.value);
      else if (values.length) input.value = values[0];
    }
    const other = document.querySelector(`#question-${id} input[name="q${id}${outbox.OTHER_SUFFIX}"]`);
    if (other && sent.has(`q${id}${outbox.OTHER_SUFFIX}`)) other.value = sent.get(`q${id}${outbox.OTHER_SUFFIX}`);
    if (!sent.has(`q${id}`)) unlockPlain(id);
  }
}

// Binds this module to the page's device state, once, and adds its functions
// to it (a second install is refused: nothing can rebind it).
export function install(device) {
  if (d !== null) throw new Error("respond_plan.js is installed already");
  d = device;
  ({ config, form, button, scriptNote, notice, agent, words, memory, outbox } = device);
  Object.assign(device, {
    decide, today, contentOf, applyPlan, restorePlain,
  });
}
