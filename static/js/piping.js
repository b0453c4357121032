// Deniable's piping: an earlier answer that is NOT protected, repeated in a
// later question's text, on the respondent's device as they answer.
//
// The answer page marks each pipe of an unprotected question's text as an
// empty element `<span data-pipe="<question id>">` (the server's template
// only ever points one at an earlier question that is not protected; a
// protected question's text, which the device verifies, never has one). This
// module sets each one's text to the current answer of that question: the
// label of the chosen option, the labels of the ticked options as a list, the
// number or words typed, or what was typed after "Other, please specify".
// Only `textContent` is ever written, so an answer cannot become markup.
// Nothing here reads a protected question and nothing is sent.

/** What a pipe shows while its question has no answer. */
export const EMPTY = "…";

function labelOf(form, input) {
  const label = form.querySelector(`label[for="${CSS.escape(input.id)}"]`);
  return label ? label.textContent.trim() : input.value;
}

function skipped(block, id) {
  const skip = block.querySelector(`[data-skip-for="${id}"] input`);
  return Boolean(skip && skip.checked);
}

/** The text of question `id`'s current answer ("" if none). */
export function answerText(form, config, id, otherSuffix = "_other") {
  const block = form.querySelector(`#question-${CSS.escape(String(id))}`);
  if (!block || block.hidden || skipped(block, id)) return "";
  if (!(config.plain || []).map(String).includes(String(id))) return "";
  const other = (config.other || {})[String(id)];
  const words = [];
  for (const input of block.querySelectorAll(`[name="q${id}"]`)) {
    if (input.type === "radio" || input.type === "checkbox") {
      if (!input.checked) continue;
      const box = block.querySelector(`[name="q${id}${otherSuffix}"]`);
      const typed = box ? box.value.trim() : "";
      words.push(other !== undefined && input.value === String(other) && typed ? typed : labelOf(form, input));
    } else if (input.type !== "hidden" && input.value.trim() !== "") {
      words.push(input.value.trim());
    }
  }
  if (words.length < 2) return words[0] || "";
  const lang = document.documentElement.lang || undefined;
  return new Intl.ListFormat(lang, { type: "conjunction" }).format(words);
}

/** Fill every pipe of the page with its question's current answer. */
export function fill(form, config, otherSuffix) {
  for (const pipe of form.querySelectorAll("[data-pipe]")) {
    const text = answerText(form, config, pipe.dataset.pipe, otherSuffix) || EMPTY;
    if (pipe.textContent !== text) pipe.textContent = text;
  }
}
