// Deniable's quota check: run by the respondent's device BEFORE anything is
// randomized, so no ε is ever spent on a response a full quota turns away.
//
// The answer page's configuration lists, for unprotected choice questions
// only, the answer values whose quota was full when the page was served
// (`config.quotas_full`: question id → values). Protected answers never have
// quotas: stopping or not would tell the server which cell a true answer is
// in. When an unprotected answer the respondent chose is in a full cell, the
// device sends nothing, clears the page's answers and says so politely, with
// the survey's completion code where it uses one (panel providers).

/** The first chosen unprotected answer in a full cell: {id, value}, or null. */
export function fullCell(config, plain) {
  const full = config.quotas_full || {};
  for (const [id, sent] of plain) {
    const cells = full[String(id)];
    if (!Array.isArray(cells) || sent.skipped) continue;
    const hit = sent.values.map(Number).find((value) => cells.includes(value));
    if (hit !== undefined) return { id, value: hit };
  }
  return null;
}

/**
 * Replace the form with the polite close: `message` (in the page's
 * language), then the completion code and link if the survey has them.
 * Builds text nodes only (never HTML from the page).
 */
export function closePolitely(form, message, completion, labels) {
  const panel = document.createElement("section");
  panel.className = "message notice quota-closed";
  panel.id = "quota-closed";
  panel.setAttribute("role", "status");
  panel.tabIndex = -1;
  const lead = document.createElement("p");
  lead.textContent = message;
  panel.append(lead);
  if (completion && completion.code) {
    const code = document.createElement("p");
    const strong = document.createElement("strong");
    strong.textContent = completion.code;
    code.append(`${labels.code} `, strong);
    panel.append(code);
  }
  if (completion && completion.url && /^https:\/\//.test(completion.url)) {
    const link = document.createElement("a");
    link.href = completion.url;
    link.className = "button";
    link.textContent = labels.continue;
    panel.append(link);
  }
  form.hidden = true;
  form.after(panel);
  panel.focus();
  return panel;
}
