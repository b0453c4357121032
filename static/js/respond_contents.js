// Each question's content object, verified by its hash before anything is
// shown (its words and protection are what the device shows and remembers),
// and the device's warning for a question this site asked before under
// stronger protection (ledger.js, `downgrades`).
//
// Part of the page script: respond.js loads it by the <link rel="modulepreload">
// that carries its Subresource Integrity hash and installs it once.

let d = null; // the page's device state (respond.js), bound once by install()
let config, agent, words, memory, guards; // fixed once installed

// Canonical-enough text of a parsed JSON value (keys sorted) to compare two
// parses of the same spec; floats are written alike by the same engine.
function sortedJson(value) {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function contentRefused() {
  const error = new Error("a question does not match its content object");
  error.name = "SpecRefused";
  error.code = "content_mismatch";
  error.facts = {};
  return error;
}

// Each protected question's content object, its hash recomputed here over
// the text the page gave, before parsing: a missing object, a wrong hash, or
// an object that does not say what the device was given to check (kind,
// text, spec, wording inputs) is refused. The memory's key comes from it.
async function verifyContents() {
  const verified = new Map();
  for (const question of config.questions) {
    let object;
    let key;
    try {
      object = await memory.verifyContent(question.content);
      key = await memory.memoryKey(object);
    } catch {
      throw contentRefused();
    }
    const same = object.protected === true && object.kind === question.kind && object.text === question.text &&
      Array.isArray(object.options) && object.wording && object.wording.design === (question.design || "") &&
      sortedJson(object.spec) === sortedJson(question.spec);
    if (!same) throw contentRefused();
    verified.set(question.id, { object, hash: key, asked: await memory.askedKey(object) });
  }
  // Each unprotected question's content object too: its words are what the
  // device compares with the protected questions it was shown before.
  for (const id of config.plain || []) {
    let object;
    try {
      object = await memory.verifyContent((config.plain_content || {})[String(id)]);
    } catch {
      throw contentRefused();
    }
    if (object.protected !== false || object.question !== id || typeof object.text !== "string" ||
        !Array.isArray(object.options)) throw contentRefused();
    verified.set(id, { object, hash: null, asked: await memory.askedKey(object) });
  }
  return verified;
}

// --- a question asked with less protection than before (ledger.js, `downgrades`) ---
// Every send (or save) notes the protected questions on its page (`asked`); a
// question this site asked under stronger protection before gets the
// device's warning beside its controls, which stay disabled until a real click
// on "Answer it anyway"; an optional one may be left out (sent as declined).
function watchDowngrades() {
  let milli;
  try {
    milli = new Map(config.questions.map((q) => [q.id, agent.checkSurvey([q.spec], 0).epsilonMilli]));
  } catch {
    return; // a spec the device refuses: start() says so, and nothing is sent
  }
  const site = memory.readMemory(localStorage, d.today());
  const ids = [...config.questions.map((q) => q.id), ...(config.plain || [])];
  const asked = ids.map((id) => ({ id, key: d.contents.get(id).asked, milli: milli.has(id) ? milli.get(id) : null }));
  for (const found of memory.downgrades(site, asked)) guards.set(found.id, guardDowngrade(found));
  holdDowngrades();
}

// The answer controls (and "Prefer not to answer") of question `id`.
function guardedControls(id) {
  const question = config.questions.find((q) => q.id === id);
  const inputs = question ? d.answerInputs(question) : Array.from(document.querySelectorAll(`#question-${id} :is(input, textarea, select)`));
  const skip = d.skipBox(id);
  return skip && !inputs.includes(skip) ? [...inputs, skip] : inputs;
}

// What a send notes: the wording fingerprint and ε of each protected question shown.
function askedNow() {
  return config.questions.filter((q) => !d.isHidden(q.id))
    .map((q) => ({ key: d.contents.get(q.id).asked, milli: agent.checkSurvey([q.spec], 0).epsilonMilli }));
}

// Keep every warned question's controls disabled until its yes.
function holdDowngrades() {
  for (const [id, guard] of guards) {
    if (guard.state === "accepted") continue;
    for (const input of guardedControls(id)) input.disabled = true;
  }
}

function guardDowngrade(found) {
  const id = found.id;
  const guard = { state: "asked" };
  const fieldset = document.getElementById(`question-${id}`);
  const optional = config.questions.some((q) => q.id === id && q.optional) || (config.plain_optional || []).includes(id);
  const sentence = found.now === null
    ? words.sentence("downgrade.unprotected")
    : words.sentence("downgrade.weaker", { before: words.epsilonText(found.before), now: words.epsilonText(found.now) });
  const warning = document.createElement("div");
  warning.className = "downgrade message";
  warning.id = `downgrade-q${id}`;
  warning.setAttribute("role", "alert");
  const lead = document.createElement("p");
  const strong = document.createElement("strong");
  strong.textContent = sentence;
  lead.append(strong);
  warning.append(lead);
  const actions = document.createElement("p");
  actions.className = "downgrade-actions";
  const action = (key, state, extra = "") => {
    const choice = document.createElement("button");
    choice.type = "button";
    choice.className = `button${extra}`;
    choice.id = `${state === "accepted" ? "accept" : "decline"}-downgrade-q${id}`;
    choice.textContent = words.sentence(key);
    choice.addEventListener("click", (event) => {
      if (!event.isTrusted || event.currentTarget.parentNode !== actions || guard.state !== "asked") return;
      guard.state = state;
      for (const input of guardedControls(id)) input.disabled = state === "declined";
      const skip = d.skipBox(id);
      if (state === "declined" && skip) skip.checked = true;
      actions.replaceChildren(...(state === "declined" ? [words.sentence("downgrade.declined")] : []));
      d.applyLogic();
      d.showReview();
    });
    actions.append(choice);
  };
  action("downgrade.accept", "accepted");
  if (optional) action("downgrade.decline", "declined", " secondary");
  else {
    const required = document.createElement("p");
    required.textContent = words.sentence("downgrade.required");
    warning.append(required);
  }
  warning.append(actions);
  let anchor = fieldset.querySelector("input, textarea, select");
  while (anchor && anchor.parentNode !== fieldset) anchor = anchor.parentNode;
  fieldset.insertBefore(warning, anchor);
  return guard;
}

// Binds this module to the page's device state, once, and adds its functions
// to it (a second install is refused: nothing can rebind it).
export function install(device) {
  if (d !== null) throw new Error("respond_contents.js is installed already");
  d = device;
  ({ config, agent, words, memory, guards } = device);
  Object.assign(device, {
    verifyContents, watchDowngrades, askedNow, holdDowngrades,
  });
}
