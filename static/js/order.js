// Deniable's randomized order: drawn on the respondent's device with
// crypto.getRandomValues, never by the server, and never sent.
//
// - Options of a question the researcher marked "shuffle options" are shown
//   in a random order ("Other, please specify" stays last). An answer's value
//   is still its option's index, so nothing about the answer changes.
// - Where the survey shuffles questions, the questions of each section that
//   neither decide nor depend on display logic and are not grid rows swap
//   places at random (`config.order.movable`); the others keep theirs.
//
// The order is drawn independently of every answer, so it reveals nothing
// about an answer; it is not sent, so it cannot become a key that links a
// respondent's screen (a screenshot, a shoulder) to the stored submission.

/** A uniform integer in [0, n), by rejection from 32 random bits. */
export function below(n, random = (buffer) => crypto.getRandomValues(buffer)) {
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError(`cannot draw below ${n}`);
  const limit = 2 ** 32 - (2 ** 32 % n);
  const buffer = new Uint32Array(1);
  for (;;) {
    random(buffer);
    if (buffer[0] < limit) return buffer[0] % n;
  }
}

/** A uniformly random permutation of `items` (Fisher–Yates), as a new array. */
export function shuffled(items, random) {
  const out = Array.from(items);
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = below(i + 1, random);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// Put `nodes` back into the places they held, in a random order.
function permuteInPlace(nodes, random) {
  if (nodes.length < 2) return;
  const marks = nodes.map((node) => {
    const mark = document.createComment("slot");
    node.replaceWith(mark);
    return mark;
  });
  shuffled(nodes, random).forEach((node, index) => marks[index].replaceWith(node));
}

/** Shuffle the options of the questions the configuration names. */
export function shuffleOptions(form, config, random) {
  const order = config.order || {};
  for (const id of order.options || []) {
    const choices = form.querySelector(`#question-${id} .choices`);
    if (!choices) continue;
    const other = (config.other || {})[String(id)];
    const movable = Array.from(choices.children).filter((choice) => {
      const input = choice.querySelector("input");
      return choice.classList.contains("choice") && input && input.value !== String(other);
    });
    permuteInPlace(movable, random);
    const inputs = Array.from(choices.querySelectorAll("input[aria-posinset]"));
    inputs.forEach((input, index) => input.setAttribute("aria-posinset", String(index + 1)));
  }
}

/** Shuffle the movable questions within each section. */
export function shuffleQuestions(form, config, random) {
  const movable = new Set(((config.order || {}).movable || []).map(String));
  if (movable.size === 0) return;
  for (const section of form.querySelectorAll(".survey-section")) {
    const blocks = Array.from(section.querySelectorAll(":scope > fieldset.question")).filter(
      (block) => movable.has(block.id.slice("question-".length)));
    permuteInPlace(blocks, random);
  }
}
