// Survey builder: live privacy preview and showing only the fields a question
// type needs.  Progressive enhancement: without this script every field is
// shown and the "Update preview" button renders the preview on the server.
//
// "Respondents read" is worded by the respondent's device modules themselves
// (the randomizer's verdict and wording.js, loaded from this site exactly as
// the answer page loads them), from the compiled spec the preview returns: the
// builder shows what the device will show, never a copy of its wording.
"use strict";

(function () {
  // After a refused save, take keyboard and screen-reader users to the summary.
  const summary = document.getElementById("form-errors");
  if (summary) summary.focus();

  const form = document.getElementById("question-form");
  if (!form) return;

  const byId = (id) => document.getElementById(id);
  const previewUrl = form.dataset.previewUrl;
  const questionId = form.dataset.question;
  let timer = null;
  let lastRequest = 0;
  let device = null; // {agent, words} once the device modules have loaded
  // UI strings (none about protection) in the page's language: the djangojs
  // catalog its <link data-js-catalog> names, fetched with that integrity
  // hash; English without it.
  let catalog = {};
  const catalogReady = loadCatalog().then((loaded) => {
    catalog = loaded;
  });

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

  function gettext(msgid) {
    return Object.prototype.hasOwnProperty.call(catalog, msgid) && typeof catalog[msgid] === "string"
      ? catalog[msgid] : msgid;
  }

  function interpolate(format, values) {
    return format.replace(/%\((\w+)\)s/g, (whole, key) =>
      Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole);
  }

  function loadDevice() {
    if (device === null) {
      device = Promise.all([
        import(form.dataset.randomizerUrl),
        import(form.dataset.wordingUrl),
      ]).then(([agent, wording]) => ({ agent, words: wording.wordingFor(document.documentElement.lang) }));
    }
    return device;
  }

  // What the answer page shows for this question: the strength label and the
  // device's sentence for a protected question, the catalogue's line otherwise.
  async function showSentence(data, request) {
    const node = byId("preview-sentence");
    let text;
    try {
      const { agent, words } = await loadDevice();
      if (!data.is_private) {
        text = words.sentence("page.notProtected");
      } else {
        const described = words.describeQuestion(
          data.spec, agent.checkSpec(data.spec), data.design ? data.design.type : "",
        );
        text = `${described.label}. ${described.sentence}`;
      }
    } catch (problem) {
      text = interpolate(gettext("Respondents' devices refuse this setting: %(problem)s"), {
        problem: problem.message,
      });
    }
    if (request === lastRequest) node.textContent = text;
    showSurveyWords(data, request);
  }

  // What respondents read about the whole survey with this question as it
  // stands: the device's own verdict on every protected spec together and its
  // strength label, with a warning when that label is weak or worse
  // (publishing then asks the researcher to confirm).
  async function showSurveyWords(data, request) {
    const node = byId("preview-survey-words");
    const weak = byId("preview-weak");
    if (!node) return;
    let text;
    let warn = false;
    try {
      const { agent, words } = await loadDevice();
      const specs = (data.other_specs || []).concat(data.is_private ? [data.spec] : []);
      if (specs.length === 0) {
        text = gettext("No protected question yet.");
      } else {
        const described = words.describeSurvey(agent.checkSurvey(specs));
        text = `${described.summary} ${described.odds}`;
        warn = described.strength === "weak" || described.strength === "veryWeak";
      }
    } catch (problem) {
      text = interpolate(gettext("Respondents' devices refuse this setting: %(problem)s"), {
        problem: problem.message,
      });
    }
    if (request !== lastRequest) return;
    node.textContent = text;
    if (weak) weak.hidden = !warn;
  }

  function selectedKind() {
    return form.elements.kind.value;
  }

  function isProtected() {
    const checked = form.querySelector('input[name="protection"]:checked');
    return !checked || checked.value === "protected";
  }

  function showFieldsForKind() {
    const kind = selectedKind();
    for (const group of form.querySelectorAll("[data-kinds]")) {
      group.hidden = !group.dataset.kinds.split(" ").includes(kind);
    }
    const chosen = form.querySelector('input[name="design"]:checked');
    const design = chosen ? chosen.value : "symmetric";
    for (const group of form.querySelectorAll("[data-design]")) {
      group.hidden = group.dataset.design !== design;
    }
    // A custom split or an unrelated-question design decides ε itself.
    const epsilonField = byId("id_requested_epsilon")?.closest(".field");
    if (epsilonField) epsilonField.hidden = kind === "yes_no" && design !== "symmetric";
    // Free text is never protected: the builder picks "Not protected" for it.
    const freeText = (form.dataset.freeTextKinds || "").split(" ").includes(kind);
    const plainRadio = form.querySelector('input[name="protection"][value="plain"]');
    if (freeText && plainRadio) plainRadio.checked = true;
    const privateOn = isProtected();
    byId("private-settings").hidden = !privateOn;
    byId("plain-settings").hidden = privateOn;
  }

  function setMechanismOptions(choices) {
    const select = form.elements.mechanism;
    if (!choices || !select) return;
    const current = select.value;
    const values = choices.map((choice) => choice.value);
    select.replaceChildren(
      ...choices.map((choice) => new Option(choice.label, choice.value)),
    );
    select.value = values.includes(current) ? current : "";
  }

  function render(data, request) {
    const error = byId("preview-error");
    const body = byId("preview-body");
    setMechanismOptions(data.mechanisms);
    if (!data.ok) {
      const messages = Object.values(data.errors || {}).flat();
      error.textContent = messages.length
        ? messages.join(" ")
        : gettext("Fix the settings to see a preview.");
      error.hidden = false;
      body.hidden = true;
      return;
    }
    error.hidden = true;
    body.hidden = false;
    byId("preview-epsilon").textContent = data.is_private
      ? data.epsilon_display
      : gettext("not protected (0)");
    byId("preview-mechanism").textContent = data.mechanism_label;
    byId("preview-words").textContent = data.plain_words;
    showSentence(data, request);
    byId("preview-margin").textContent = data.margin_display;
    byId("preview-n").textContent = String(data.n);
    byId("preview-needed-label").textContent = data.needed_label;
    byId("preview-needed").textContent =
      data.n_for_five_points === null
        ? gettext("not available for this kind yet")
        : String(data.n_for_five_points);
    showPlan(data.plan, data.plan_errors || {});
    byId("preview-total").textContent = data.survey_total_display;
    byId("preview-over").hidden = !data.over_budget;
  }

  // The planning panel: respondents for the target margin and difference.
  function showPlan(plan, errors) {
    const messages = Object.values(errors).flat();
    if (messages.length) {
      byId("plan-margin").textContent = interpolate(gettext("Fix the planning figures: %(problems)s"), {
        problems: messages.join(" "),
      });
      byId("plan-difference").textContent = "";
      return;
    }
    if (!plan) return;
    byId("plan-margin-label").textContent = plan.margin_label;
    byId("plan-margin").textContent =
      plan.for_margin === null ? gettext("not available for this kind yet") : String(plan.for_margin);
    byId("plan-difference-label").textContent = plan.difference_label;
    byId("plan-difference").textContent =
      plan.for_difference === null
        ? gettext("only for shares of yes/no and choice questions")
        : String(plan.for_difference);
  }

  async function refresh() {
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      if (name !== "csrfmiddlewaretoken") params.append(name, value);
    }
    if (questionId) params.set("question", questionId);
    const request = ++lastRequest;
    try {
      const response = await fetch(`${previewUrl}?${params}`, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      await catalogReady;
      if (request === lastRequest) render(data, request);
    } catch (problem) {
      if (request !== lastRequest) return;
      await catalogReady;
      byId("preview-error").textContent =
        gettext("The preview could not be updated; use the Update preview button.");
      byId("preview-error").hidden = false;
    }
  }

  function schedule() {
    showFieldsForKind();
    window.clearTimeout(timer);
    timer = window.setTimeout(refresh, 250);
  }

  form.addEventListener("input", schedule);
  form.addEventListener("change", schedule);
  const previewButton = byId("preview-button");
  if (previewButton) previewButton.hidden = true;
  showFieldsForKind();
  refresh();
})();
