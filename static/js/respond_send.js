// Sealing and sending: the list of answers that go as given, the body built
// from the device's own state through outbox.js's allowlist (never the page's
// form), every report counted before a byte leaves, and the retry with the
// identical bytes.
//
// Part of the page script: respond.js loads it by the <link rel="modulepreload">
// that carries its Subresource Integrity hash and installs it once.

let d = null; // the page's device state (respond.js), bound once by install()
// Fixed once installed:
let config, form, button, notice, agent, words, outbox, memory, quotas, checks, sections, guards;
let shownPlain = null; // what the list of answers that go as given last showed: a send must match it

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
  if (!d.review || !outbox) return;
  const plain = d.plainAnswers();
  outbox.renderReview(d.review, form, plain, words, outbox.protectedControls(form, config));
  shownPlain = outbox.plainKey(plain);
}

// The body to send (already written to the ledger and sessionStorage), or null.
function seal() {
  // What goes as given must be what the respondent was just shown; if the
  // page changed it, show it again and send nothing.
  if (outbox.plainKey(d.plainAnswers()) !== shownPlain) {
    showReview();
    d.say(words.sentence("page.reviewChanged"), true);
    return null;
  }
  const need = new Set(d.plan.need.map((q) => q.id));
  let firstMissing = null;
  const answers = new Map();
  const skipped = new Map(); // id → "declined" or "blank"
  // Not shown (display logic): no answer, no report, no marker, no ε spent.
  const hidden = new Set(config.questions.filter((q) => d.isHidden(q.id)).map((q) => q.id));
  for (const question of config.questions) {
    if (!need.has(question.id)) continue;
    if (hidden.has(question.id)) {
      d.showError(question, "");
      continue;
    }
    if (question.optional && (d.skipBox(question.id)?.checked || d.leftBlank(question))) {
      skipped.set(question.id, d.skipBox(question.id)?.checked ? "declined" : "blank");
      d.showError(question, "");
      continue;
    }
    const read = d.chosenAnswer(question);
    if (read.error) {
      d.showError(question, read.error, question.kind === "numeric" ? read.focus : null);
      firstMissing ??= read.focus;
    } else {
      d.showError(question, "");
      answers.set(question, read.answer);
    }
  }
  if (firstMissing) {
    d.say(words.sentence("page.missing"), true);
    d.revealSection(firstMissing);
    firstMissing.focus();
    return null;
  }
  // The survey as it will leave the device, checked once more right here;
  // a skipped question sends no report, so spends no ε.
  const sent = d.plan.need.filter((q) => !skipped.has(q.id) && !hidden.has(q.id));
  const verdict = agent.checkSurvey(sent.map((q) => q.spec), d.plan.spentMilli);
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
        : d.plan.kept.get(question.id);
    reports[question.id] = { spec: d.specText(question), spec_revision: question.spec_revision, report };
    // A skip leaves only its marker; a hidden question leaves nothing at all.
    if (hidden.has(question.id)) continue;
    const skip = report === null || report === undefined;
    if (skip && !question.optional) continue;
    sentReports.set(question.id, {
      report: skip ? null : report, skipped: skip ? skipped.get(question.id) || "declined" : false,
      spec_revision: question.spec_revision,
    });
  }
  const plainSent = d.plainAnswers();
  // The body from the device's own state, through outbox.js's allowlist:
  // never a serialisation of the page's form.
  const body = outbox.buildBody(config, {
    page: d.pageValues, idempotencyKey: uuid4(), reports: sentReports, plain: plainSent,
  });
  if (config.preview) {
    // A preview shows what would leave and sends nothing: nothing counts.
    showPreview(sentReports);
    d.clearAnswers();
    d.lockForm(true);
    return null;
  }
  // Every report now counts, whether or not the server ever acknowledges it:
  // first in the site's memory (which refuses past its ceiling), then here.
  const site = memory.readMemory(localStorage, d.today());
  memory.remember(localStorage, site, {
    today: d.today(), scope: config.survey, addedMilli: verdict.epsilonMilli,
    fresh: fresh.map((q) => ({
      hash: d.contentOf(q), report: randomized.get(q.id), milli: agent.checkSurvey([q.spec], 0).epsilonMilli,
    })),
    asked: d.askedNow(),
  });
  d.writeLedger(verdict.totalMilli);
  d.writePending({ survey_revision: config.survey_revision, body, reports, spentMilli: verdict.totalMilli });
  // What was saved to finish later is in this body now: forget the draft.
  if (config.save_resume) {
    try {
      memory.dropDraft(localStorage, memory.readMemory(localStorage, d.today()), config.survey);
    } catch {
      // the send goes on; a draft left behind holds only what this body sends
    }
  }
  d.clearAnswers();
  d.lockForm(true);
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
    item.append(`${d.contents.get(question.id)?.object.text ?? question.text}: `, code);
    list.append(item);
  }
  panel.append(lead, list);
  document.getElementById("device-preview")?.remove();
  form.querySelector(".send").append(panel);
  d.say(words.sentence("memory.preview"));
}

function markRetry() {
  button.disabled = false;
  button.textContent = words.sentence("page.sendAgain");
}

async function send(body) {
  d.sending = true;
  button.disabled = true;
  const page = (key, values) => words.sentence(`page.${key}`, values);
  d.say(page("sending"));
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
    d.sending = false;
    markRetry();
    d.say(page("connectionFailed"), true);
    return;
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  d.sending = false;
  if (response.ok && data && data.receipt_url) {
    d.dropPending();
    d.sealedBody = null;
    d.say(page("received"));
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
    d.say(reason, true);
    d.showNotice(page("changedNotice"), [[page("reviewChanges"), () => window.location.reload(), "review-changes"]]);
    notice.dataset.state = "stale";
    return;
  }
  if (response.status >= 500 || response.status === 429) {
    markRetry();
    d.say(page("retry", { reason }), true);
    return;
  }
  // Refused for good (nothing stored): these reports cannot be resent, and
  // they already count, so the ledger decides what may happen next.
  d.dropPending();
  d.sealedBody = null;
  d.say(reason, true);
  d.settle();
}

function onSubmit(event) {
  event.preventDefault();
  if (d.sending || d.agent === null || d.plan === null || d.plan.mode === "answered") return;
  if (d.sealedBody !== null) {
    send(d.sealedBody); // a retry: the identical bytes, never a new randomization
    return;
  }
  const asks = d.plan.mode === "reanswer" || d.plan.mode === "seen" || (d.plan.mode === "changed" && d.plan.need.length);
  if (asks && !d.plan.accepted) {
    d.say(checks.acceptFirst(d.gettext), true);
    return;
  }
  // Another tab may have sent some of this content since the plan was made:
  // the memory decides again, and what it now knows needs the respondent's yes.
  if (!d.plan.accepted && (d.plan.mode === "fresh" || d.plan.mode === "remembered")) {
    const now = d.decide();
    if (now.mode !== d.plan.mode || now.need.length !== d.plan.need.length) {
      d.applyPlan(now);
      return;
    }
  }
  // A question asked with less protection than before sends nothing without a yes.
  if ([...guards].some(([id, guard]) => guard.state === "asked" && !d.isHidden(id))) {
    d.say(words.sentence("downgrade.pending"), true);
    return;
  }
  // Quotas first: a respondent a full quota turns away has nothing randomized.
  if (quotas.fullCell(config, d.plainAnswers()) !== null) {
    d.clearAnswers();
    d.lockForm(true);
    quotas.closePolitely(form, d.gettext("Thank you. This survey already has all the answers it needs from people who answered as you did, so nothing was sent and none of your answers was randomized."), config.completion, {
      code: d.gettext("Your completion code:"), continue: d.gettext("Continue"),
    });
    return;
  }
  const problem = checks.firstProblem(sections, d.problemOf);
  if (problem) {
    d.refuseSend(problem);
    return;
  }
  try {
    d.sealedBody = seal();
  } catch (error) {
    d.sealedBody = null;
    const noStorage = error instanceof d.NoLedger || (error && error.name === "MemoryRefused" && error.code === "no_storage");
    if (noStorage) d.showNotice(words.sentence("page.noStorage"));
    else if (error && error.name === "MemoryRefused") d.settle(); // the ceiling, said plainly
    else if (error && error.name === "SpecRefused") d.refuse(error);
    else d.say(words.sentence("page.randomizeFailed", { error: error.message }), true);
    d.clearAnswers();
    d.lockForm(true);
    return;
  }
  if (d.sealedBody !== null) send(d.sealedBody);
}

// Binds this module to the page's device state, once, and adds its functions
// to it (a second install is refused: nothing can rebind it).
export function install(device) {
  if (d !== null) throw new Error("respond_send.js is installed already");
  d = device;
  ({ config, form, button, notice, agent, words, outbox, memory, quotas, checks, sections, guards } =
    device);
  Object.assign(device, {
    showReview, onSubmit,
  });
}
