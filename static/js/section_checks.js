// Deniable's section checks: which questions of the answer page still need
// something before "Next" or "Send", and which sections have anything to show.
//
// - It reads the page and words problems; it never sends or randomizes
//   anything, and never reads a protected answer itself: the page script
//   (respond.js) checks those with the device's own reading (`problemOf`).
// - A question hidden by display logic is never a problem, and a section
//   whose every question is hidden is skipped by "Next" and "Back".
// - The words of a problem are the server's own (the form's messages, carried
//   in the page's configuration), so the device and the server say the same.
// - "Send" ends in a visible result: the first problem is focused and named,
//   with a link to its section (`showRefusal`).

/** The question blocks of `section` that display logic shows. */
export function shownQuestions(section) {
  return Array.from(section.querySelectorAll("fieldset.question")).filter((block) => !block.hidden);
}

/** The indexes of the sections with at least one question shown. */
export function shownSections(sections) {
  return sections.flatMap((section, index) => (shownQuestions(section).length ? [index] : []));
}

/** The nearest section from `from` in direction `step` (±1) with a question shown, or -1. */
export function neighbour(sections, from, step) {
  for (let index = from + step; index >= 0 && index < sections.length; index += step) {
    if (shownQuestions(sections[index]).length) return index;
  }
  return -1;
}

function questionId(block) {
  return Number(block.id.slice("question-".length));
}

/**
 * The first problem in `sections` (in page order), or null:
 * {section (its index), block, id, message, focus}. `problemOf(id, block)`
 * is the page's check of one shown question: {message, focus} or null.
 */
export function firstProblem(sections, problemOf) {
  for (const [index, section] of sections.entries()) {
    for (const block of shownQuestions(section)) {
      const found = problemOf(questionId(block), block);
      if (found) return { section: index, block, id: questionId(block), ...found };
    }
  }
  return null;
}

/**
 * An unprotected question's problem, or null: a required choice with none
 * chosen, a required number left empty, or a number its box refuses.
 * `messages` are the form's own ({required, invalid}); `controls` are the
 * question's own named inputs (outbox.plainControls).
 */
export function plainProblem(controls, messages, optional) {
  const required = messages.required || "";
  if (controls.some((input) => input.type === "checkbox")) return null; // none is an answer
  const radios = controls.filter((input) => input.type === "radio");
  if (radios.length) {
    if (optional || radios.some((input) => input.checked)) return null;
    return { message: required, focus: radios[0] };
  }
  const box = controls[0];
  if (!box) return null;
  const validity = box.validity || { valid: true, badInput: false };
  if (validity.badInput || (box.value.trim() !== "" && !validity.valid)) {
    return { message: messages.invalid || required, focus: box };
  }
  if (box.value.trim() === "" && !optional) return { message: required, focus: box };
  return null;
}

/** The question's problem line says `message` ("" clears it). */
export function markProblem(block, id, message, focus = null) {
  const line = block.querySelector(`#error-q${id}`);
  if (line) line.textContent = message;
  if (focus) {
    if (message) focus.setAttribute("aria-invalid", "true");
    else focus.removeAttribute("aria-invalid");
  }
}

/**
 * "Send" refused for `problem`: the status line names it, with a link to its
 * section when the page has several; `go()` shows that section and focuses
 * the problem. `gettext` is the page's catalog (UI strings only).
 */
export function showRefusal(statusLine, problem, { gettext, interpolate, sectionTitle, go }) {
  statusLine.replaceChildren();
  statusLine.classList.add("error");
  statusLine.append(interpolate(gettext("Not sent: %(problem)s"), { problem: problem.message }));
  if (sectionTitle) {
    const link = document.createElement("a");
    link.href = `#section-${problem.section + 1}`;
    link.textContent = interpolate(gettext("Go to %(section)s"), { section: sectionTitle });
    link.addEventListener("click", (event) => {
      event.preventDefault();
      go();
    });
    statusLine.append(" ", link);
  }
}

/** The words for a "Send" that waits for the respondent's consent first. */
export function acceptFirst(gettext) {
  return gettext("Nothing was sent: first accept the offer above.");
}
