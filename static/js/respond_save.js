// Save and finish later, on this device only (where the survey allows it).
//
// Part of the page script: respond.js loads it by the <link rel="modulepreload">
// that carries its Subresource Integrity hash and installs it once.

let d = null; // the page's device state (respond.js), bound once by install()
let config, form, notice, agent, words, memory, outbox; // fixed once installed

// --- save and finish later, on this device only (where the survey allows it) -------
// Answers not protected are kept as they would be sent (ledger.js `drafts`);
// each protected answer is randomized when saved and its report kept in the
// device's memory as a sent one, its ε counted (any page of this site can read
// it), never its true answer. Opening the survey link again on this device
// restores both; the server keeps nothing, so no other device can continue.
let saveArea = null;
let resumePanel = null;
const savable = () => Boolean(d.plan) && !config.preview &&
  (["fresh", "remembered"].includes(d.plan.mode) || (d.plan.mode === "seen" && d.plan.accepted === true));

function setUpSave() {
  if (!config.save_resume || config.preview) return;
  saveArea = document.createElement("div");
  saveArea.id = "device-save";
  saveArea.className = "device-save";
  const about = document.createElement("p");
  about.textContent = d.gettext("You can save your answers on this device and finish later by opening the survey link again here. Nothing is saved on the server, so you cannot continue on another device. Protected answers are randomized when you save: their randomized reports count as sent to this site, and your true protected answers are never saved. Answers not protected are saved as you gave them. This site's pages can read everything saved on this device, even if you never send it.");
  const save = document.createElement("button");
  save.type = "button";
  save.className = "button secondary";
  save.id = "save-for-later";
  save.textContent = d.gettext("Save and finish later");
  save.addEventListener("click", offerSave);
  saveArea.append(about, save);
  // Beside "Send", not in it: "Send" shows on the last section only, and a
  // respondent may want to stop in any section.
  form.querySelector(".send").after(saveArea);
  resumePanel = document.createElement("div");
  resumePanel.id = "device-resume";
  resumePanel.className = "message notice";
  resumePanel.setAttribute("role", "status");
  resumePanel.hidden = true;
  form.prepend(resumePanel);
}

// The protected answers a save randomizes now: shown, answered, not kept.
function toSave() {
  const found = [];
  for (const question of d.plan.need) {
    if (d.isHidden(question.id) || d.plan.kept.has(question.id) || d.skipBox(question.id)?.checked) continue;
    const read = d.chosenAnswer(question);
    if (!read.error) found.push([question, read.answer]);
  }
  return found;
}

// Before anything is saved: what saving does, with this site's figures.
function offerSave() {
  if (!savable() || d.sending) {
    d.say(d.gettext("Nothing was saved: answer or accept the offer above first."), true);
    return;
  }
  const answers = toSave();
  let added = 0;
  try {
    if (answers.length) {
      agent.checkSurvey(answers.map(([q]) => q.spec), d.plan.spentMilli); // the survey's ceiling
      added = agent.checkSurvey(answers.map(([q]) => q.spec), 0).epsilonMilli;
    }
    memory.checkCeiling(memory.readMemory(localStorage, d.today()), added);
  } catch (error) {
    if (error && error.name === "SpecRefused") d.refuse(error);
    else d.settle();
    return;
  }
  const given = memory.givenMilli(memory.readMemory(localStorage, d.today()));
  d.showNotice(d.interpolate(d.gettext("Saving randomizes the protected answers you gave (%(count)s) now and keeps only their randomized reports, which count as sent: this site's total becomes ε = %(total)s (ε = %(added)s added). Your answers not protected are saved as you gave them. Both stay on this device only."), {
    count: answers.length, added: words.epsilonText(added), total: words.epsilonText(given + added),
  }), [[d.gettext("Save on this device"), (event) => {
    if (!event.isTrusted || event.currentTarget.parentNode !== notice) return;
    notice.hidden = true;
    saveNow(answers, added);
  }, "confirm-save"]]);
  notice.dataset.state = "save";
}

function saveNow(answers, added) {
  try {
    const made = answers.length ? agent.randomizeAll(answers.map(([q, answer]) => ({ spec: q.spec, answer }))) : [];
    let site = memory.readMemory(localStorage, d.today());
    site = memory.remember(localStorage, site, {
      today: d.today(), scope: config.survey, addedMilli: added,
      fresh: answers.map(([q], i) => ({
        hash: d.contentOf(q), report: JSON.stringify(made[i]), milli: agent.checkSurvey([q.spec], 0).epsilonMilli,
      })),
      asked: d.askedNow(),
    });
    memory.saveDraft(localStorage, site, { today: d.today(), scope: config.survey, plain: d.plainAnswers() });
  } catch (error) {
    if (error && error.name === "MemoryRefused" && error.code === "no_storage") d.showNotice(words.sentence("page.noStorage"));
    else d.say(d.gettext("Nothing was saved: this device could not keep the answers."), true);
    return;
  }
  d.clearAnswers(); // the true protected answers are gone; what was saved comes back
  if (d.settle()) d.say(d.gettext("Saved on this device. To finish later, open the survey link again on this device."));
}

// Unprotected answers saved on this device, put back (as restorePlain does).
function restoreDraft(draft) {
  const params = new URLSearchParams();
  for (const [id, sent] of Object.entries(draft.plain)) {
    if (sent.skipped === "declined") params.append(`q${id}_skipped`, "declined");
    for (const value of sent.values) params.append(`q${id}`, value);
    if (sent.other) params.append(`q${id}${outbox.OTHER_SUFFIX}`, sent.other);
  }
  d.restorePlain({ body: params.toString() });
}

// After every settle: restore what this device saved and say what it was.
function resumeDraft() {
  if (!saveArea) return;
  saveArea.hidden = !savable();
  const draft = savable() ? memory.readDraft(memory.readMemory(localStorage, d.today()), config.survey) : null;
  resumePanel.hidden = draft === null;
  if (draft === null) return;
  restoreDraft(draft);
  d.applyLogic();
  const restored = Object.values(draft.plain).filter((sent) => sent.values.length || sent.skipped === "declined").length;
  const text = document.createElement("p");
  text.textContent = d.interpolate(d.gettext("Restored from this device. Answers not protected, as you saved them: %(plain)s. Protected answers, randomized when you saved them and sent as they are: %(kept)s."), {
    plain: restored, kept: d.plan.kept.size,
  });
  const over = document.createElement("button");
  over.type = "button";
  over.className = "button secondary";
  over.id = "start-over";
  over.textContent = d.gettext("Start over");
  over.addEventListener("click", startOver);
  resumePanel.replaceChildren(text, over);
  d.showReview();
}

// Starting over forgets the saved answers not protected. A saved protected
// answer was randomized and counted already: it is never randomized again here.
function startOver() {
  try {
    memory.dropDraft(localStorage, memory.readMemory(localStorage, d.today()), config.survey);
  } catch {
    // nothing more can be forgotten
  }
  for (const id of config.plain || []) {
    const block = document.getElementById(`question-${id}`);
    if (block) d.clearQuestion(block);
    if (d.skipBox(id)) d.skipBox(id).checked = false;
  }
  d.applyLogic();
  d.showReview();
  const text = document.createElement("p");
  text.textContent = d.gettext("Started over: the answers not protected were cleared from this device. Protected answers you saved stay as they were randomized, because answering them again would give this site a second randomization of the same answer.");
  resumePanel.replaceChildren(text);
}

// Binds this module to the page's device state, once, and adds its functions
// to it (a second install is refused: nothing can rebind it).
export function install(device) {
  if (d !== null) throw new Error("respond_save.js is installed already");
  d = device;
  ({ config, form, notice, agent, words, memory, outbox } = device);
  Object.assign(device, {
    setUpSave, resumeDraft,
  });
}
