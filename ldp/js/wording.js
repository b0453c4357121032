// Deniable respondent wording: every sentence a respondent reads about how
// their answers are protected, produced on the device from the integer
// weights the randomizer checked, never taken from the server.
//
// - All English text is in CATALOG, one place, so it can be translated.
// - Main text: what the device does, as a frequency taken from the weights
//   ("reports your true answer 3 times in 4"), because explaining privacy
//   through the randomized-response procedure itself helps people understand
//   it (Nuñez von Voigt, Mehner, Tschorsch, CODASPY 2024). At most two
//   significant digits, rounded against the respondent (truth shown more
//   often, protection shown weaker).
// - Details: ε and what an observer can learn, in odds ("someone who was
//   50/50 can be at most 75% sure"), because odds-based explanations gave
//   the best risk comprehension in a user study (Nanayakkara, Smart,
//   Cummings, Kaptchuk, Redmiles, USENIX Security 2023). Percentages of what
//   an observer can learn are rounded up.
// - A plain strength label, so weak protection is never shown as "protected"
//   without saying it is weak.
// No dependencies, no floating-point logarithms: figures come from BigInt
// ratios ({n, d}) and ⌈1000 ε⌉ computed by randomizer.js.

export const CATALOG = {
  times: "{n} times in {d}",
  time: "1 time in {d}",
  aboutTimes: "about {n} times in 100",
  atMostTimes: "at most {n} times in {d}",
  atMostTime: "at most 1 time in {d}",
  atMostPercent: "at most {n} times in 100",
  count: "{n} times",
  countOne: "1 time",
  about: "about {text}",
  moreThan99: "more than 99 times in 100",
  always: "every time",
  never: "never",
  strength: {
    strong: "Strong protection",
    moderate: "Moderate protection",
    weak: "Weak protection",
    veryWeak: "Very weak protection",
  },
  strengthExplained: {
    strong: "Even someone who sees what your device sends learns little about your answer.",
    moderate: "Someone who sees what your device sends can learn something about your answer, but cannot be sure.",
    weak: "Someone who sees what your device sends can become fairly sure of your answer.",
    veryWeak: "Someone who sees what your device sends can become almost sure of your answer.",
  },
  mechanism: {
    forced_response: "Your device reports your true answer {truth}; otherwise it reports the other answer.",
    forced_response_split: "Your device sends your true answer {truth}; {yes} it sends “Yes” and {no} “No” instead, whatever your answer.",
    unrelated_question: "Your device sends your true answer {truth}; otherwise it answers a made-up question for you, “Yes” {yes} and “No” the rest of the time.",
    warner: "Your device reports your true answer {truth}; otherwise it reports the opposite answer.",
    grr: "Your device reports your true answer {truth}; otherwise it reports one of the other {others} answers, picked at random.",
    grr_two: "Your device reports your true answer {truth}; otherwise it reports the other answer.",
    olh: "Your device sorts the {k} answers into {g} random groups and reports your answer's group {truth}; otherwise one of the other groups.",
    hadamard: "Your device picks a random group of answers and says whether yours is in it: truthfully {truth}, the opposite otherwise.",
    sue: "Your device sends a mark for each of the {k} answers: the mark for your answer is on {on}, and each other mark is on {off} anyway.",
    oue: "Your device sends a mark for each of the {k} answers: the mark for your answer is on {on}, and each other mark is on {off} anyway.",
    multi_rr: "Your device sends a mark for each of the {k} options: an option you chose is marked {on}, an option you did not choose {off}.",
    padding_sampling: "Your device picks one of your choices at random (or a blank if you chose fewer than {ell}) and reports it {truth}; otherwise one of the other {others} items.",
    ordinal: "Your device reports your exact answer {truth}; otherwise another point on the scale, picked at random.",
    geometric: "Your device reports your exact number {truth}; otherwise it adds random noise, so what it sends can be far from your number.",
    gaussian: "Your device reports your exact number {truth}; otherwise it adds random noise, so what it sends can be far from your number.",
    duchi: "Your device never sends your number, only “high” or “low”; even at the top of the range it sends “high” {truth}.",
    piecewise: "Your device sends a value close to your number {truth}; otherwise a value from anywhere in the range.",
  },
  odds: "Whatever your device sends, someone who was 50/50 about your answer can be at most {percent} sure of it afterwards: it can multiply their odds by at most {factor}.",
  epsilon: "Privacy loss ε = {epsilon}, computed on this device from the weights it samples with.",
  surveyOdds: "Counting all your protected answers together, someone who was 50/50 about them can be at most {percent} sure afterwards.",
  surveyEpsilon: "Total privacy loss for this survey ε = {epsilon} (the sum over all protected questions{spent}).",
  spent: ", including ε = {spent} already sent from this device",
  overall: "{label} overall.",
  details: "Details",
  refusal: {
    intro: "Your device refused to take part, so nothing was sent.",
    unknown_mechanism: "This survey asks your device to use a method it does not know, so it cannot check how your answers would be protected.",
    unverifiable: "The instructions this survey gave your device are incomplete or malformed, so it cannot check how your answers would be protected.",
    declared_mismatch: "The survey's instructions promise more protection than they would really give.",
    above_question_ceiling: "One question would protect your answer too weakly: beyond the limit (ε = {ceiling}) built into this page's checked code.",
    above_survey_ceiling: "Taken together, the questions would reveal too much about you: beyond the limit for one survey (ε = {ceiling}) built into this page's checked code.",
    no_script: "This page's checked code could not be loaded, so it cannot protect your answers.",
    contact: "You may want to tell the researcher.",
    contactWith: "You may want to tell the researcher: {contact}.",
  },
  answered: {
    already: "You have already answered this survey on this device. Answering again would let your answers be combined to learn more about you, so this page will not send anything.",
    reanswerOffer: "You have already answered this survey on this device. The researcher allows answering again, but every new answer adds to what can be learned about you: answering again adds ε = {added}, making ε = {total} in all ({label}).",
    reanswerTooMuch: "You have already answered this survey on this device. Answering again would go beyond the limit for one survey (ε = {ceiling}), so this page will not send anything.",
    accept: "Answer again and accept the added privacy loss",
    changed: "The researcher changed {count} question(s) after you opened this page, so nothing was stored. Your answers to the other questions will be sent again exactly as before. Answering the changed questions again adds ε = {added}, making ε = {total} in all ({label}).",
    changedTooMuch: "The researcher changed {count} question(s) after you opened this page. Answering them again would go beyond the limit for one survey (ε = {ceiling}), so this page will not send anything more.",
    acceptChanged: "Answer the changed questions",
    resendReady: "Your randomized answers from before are ready. “Send again” sends exactly the same bytes, never a new randomization.",
    unchangedResend: "The survey changed, but none of its protected questions did: your randomized answers from before will be sent again exactly as they were, never randomized anew.",
    keptFromBefore: "Already answered on this device: the same randomized answer will be sent again.",
  },
  keeps: "This device keeps only a note that you answered this survey, until {expires}: no answers and nothing that identifies you.",
  page: {
    how: "Your answers to protected questions are randomized on this device before anything is sent, so the server never receives your true answers to them.",
    notProtected: "Not protected: sent and stored exactly as you answer.",
    ready: "This page's code has loaded, passed its integrity check and checked every question. Your protected answers will be randomized on this device when you press “Send”.",
    loadFailed: "This page's code could not be loaded or failed its integrity check, so it cannot send anything. ({error})",
    noStorage: "This browser does not let the page keep its note that you answered, so it cannot make sure your answers are never randomized twice. Nothing was sent.",
    missing: "Some questions have no valid answer yet; nothing was sent.",
    sending: "Sending your randomized answers…",
    connectionFailed: "The connection failed, so your answers may not have arrived. Press “Send again”: exactly the same randomized answers will be sent, never new ones.",
    received: "Received. Opening your receipt…",
    retry: "{reason} Press “Send again” to resend exactly the same randomized answers.",
    serverAnswered: "The server answered {status}.",
    send: "Send my answers",
    sendAgain: "Send again",
    chooseAnswer: "Please choose an answer.",
    enterNumber: "Please enter a number.",
    notANumber: "“{text}” is not a number. Use digits, e.g. {low}.",
    outOfRange: "Please enter a number from {low} to {high}.",
    offGrid: "{text} is not one of the allowed values: use steps of {step} from {low} (the nearest are {below} and {above}).",
    tooMany: "You can choose at most {most} options here; untick one first.",
    randomizeFailed: "Your answers could not be randomized, so nothing was sent: {error}",
    changedNotice: "The researcher changed this survey after you opened it, so nothing was stored. Review the changes: your answers to unchanged questions will be sent again exactly as before, and nothing new is randomized unless you agree.",
    reviewChanges: "Review the changes",
    alreadyConsent: "You have already answered this survey on this device.",
  },
};

const STRENGTH_LIMITS = [
  // [label key, largest ratio R]: 50% -> 75%, 90%, 99%.
  ["strong", 3n],
  ["moderate", 9n],
  ["weak", 99n],
];

function fill(template, values = {}) {
  return template.replace(/\{(\w+)\}/g, (whole, key) =>
    Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole);
}

function big(value) {
  return typeof value === "bigint" ? value : BigInt(value);
}

function gcd(a, b) {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function ceilDiv(a, b) {
  return (a + b - 1n) / b;
}

function thousands(n) {
  return n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * How often something happens, for the main text: exact "3 times in 4"
 * when the fraction n/d reduces to a denominator of at most 10, else
 * "about N times in 100" with N rounded up (down when `up` is false).
 * With `atMost`, a bound: "at most 3 times in 4", "at most N times in 100"
 * (N rounded up).
 */
export function frequency(n, d, up = true, atMost = false) {
  n = big(n);
  d = big(d);
  if (n === 0n) return CATALOG.never;
  if (n === d) return CATALOG.always;
  const g = gcd(n, d);
  const [rn, rd] = [n / g, d / g];
  if (rd <= 10n) {
    const template = atMost
      ? (rn === 1n ? CATALOG.atMostTime : CATALOG.atMostTimes)
      : (rn === 1n ? CATALOG.time : CATALOG.times);
    return fill(template, { n: rn, d: rd });
  }
  let percent = up || atMost ? ceilDiv(100n * n, d) : (100n * n) / d;
  if (percent >= 100n) return CATALOG.moreThan99;
  if (percent < 1n) percent = 1n;
  return fill(atMost ? CATALOG.atMostPercent : CATALOG.aboutTimes, { n: percent });
}

function atMost(n, d) {
  return frequency(n, d, true, true);
}

/**
 * The most an observer who started at 50/50 can believe after one report:
 * R/(1+R), as a percentage rounded up. Below 99% it is a whole percent;
 * above, the remaining doubt is rounded down to one significant digit
 * (R = 148.4 gives "99.4%").
 */
export function certainty(ratio) {
  const n = big(ratio.n), d = big(ratio.d);
  const whole = ceilDiv(100n * n, n + d);
  if (whole <= 99n) return `${whole}%`;
  // doubt = 100 d / (n + d) percent < 1: its first significant digit.
  for (let places = 1n; places < 40n; places++) {
    const digit = (100n * d * 10n ** places) / (n + d);
    if (digit >= 1n) {
      const scale = 10n ** places;
      const shown = 100n * scale - digit; // (100 - doubt) in units of 10^-places
      const text = shown.toString();
      return `${text.slice(0, -Number(places))}.${text.slice(-Number(places))}%`;
    }
  }
  return "almost 100%";
}

/** The odds factor R rounded up to two significant digits ("2.8", "50", "23,000"). */
export function oddsFactor(ratio) {
  const n = big(ratio.n), d = big(ratio.d);
  if (n < 10n * d) {
    const tenths = ceilDiv(10n * n, d);
    return tenths % 10n === 0n ? `${tenths / 10n}` : `${tenths / 10n}.${tenths % 10n}`;
  }
  const digits = (n / d).toString().length;
  const scale = 10n ** BigInt(digits - 2);
  return thousands(ceilDiv(n, d * scale) * scale);
}

/** ε in thousandths as the page shows it: 1099 -> "1.099". */
export function epsilonText(milli) {
  const whole = Math.trunc(milli / 1000);
  return `${whole}.${String(milli - whole * 1000).padStart(3, "0")}`;
}

/** "strong", "moderate", "weak" or "veryWeak" for a ratio R. */
export function strength(ratio) {
  const n = big(ratio.n), d = big(ratio.d);
  for (const [key, limit] of STRENGTH_LIMITS) if (n <= limit * d) return key;
  return "veryWeak";
}

function truthOf(keep, others, count) {
  // P(report = truth) = keep / (keep + count * others)
  return frequency(big(keep), big(keep) + big(count) * big(others));
}

/**
 * A design's parts (truthful, forced "yes", forced "no") over one total, on
 * one denominator: exact when it is at most 100 (shown in 100 when it
 * divides 100: 7/10, 1/5, 1/10 -> 70, 20, 10 in 100), otherwise whole
 * percents rounded against the respondent (the truth up, the forced answers
 * down, never below 1) with "about".
 * Returns [truth as "N times in D", then "N times" for each other part].
 */
function splitOf(parts, total) {
  let g = total;
  for (const part of parts) g = gcd(part, g);
  let d = total / g;
  let counts = parts.map((part) => part / g);
  let about = false;
  if (d < 100n && 100n % d === 0n) {
    counts = counts.map((n) => n * (100n / d));
    d = 100n;
  } else if (d > 100n) {
    counts = parts.map((part, i) => {
      const n = i === 0 ? ceilDiv(100n * part, total) : (100n * part) / total;
      return n < 1n ? 1n : n;
    });
    d = 100n;
    about = true;
  }
  const mark = (text) => (about ? fill(CATALOG.about, { text }) : text);
  return counts.map((n, i) => mark(i === 0
    ? fill(n === 1n ? CATALOG.time : CATALOG.times, { n, d })
    : (n === 1n ? CATALOG.countOne : fill(CATALOG.count, { n }))));
}

function largestShare(rows, total) {
  let best = 0;
  rows.forEach((row, x) => { if (row[x] > best) best = row[x]; });
  return atMost(best, total);
}

function clampedDiagonal(kernel, m, total) {
  // The report equals the answer: offset 0, plus everything clamped onto an end.
  const centre = kernel[m - 1];
  let lowEnd = 0, highEnd = 0;
  for (let j = 0; j <= m - 1; j++) lowEnd += kernel[j];
  for (let j = m - 1; j < kernel.length; j++) highEnd += kernel[j];
  return atMost(Math.max(centre, lowEnd, highEnd), total);
}

/**
 * The main-text sentence for one checked spec: what the device does, in
 * frequencies taken from the spec's integer weights. `design` only chooses
 * how a forced-response spec is told ("unrelated_question": as a made-up
 * answer drawn on the device); every figure still comes from the weights, so
 * a server cannot overstate the protection with it.
 */
export function mechanismSentence(spec, design = "") {
  const w = spec.weights;
  const k = spec.k;
  const say = (key, values) => fill(CATALOG.mechanism[key], values);
  switch (spec.mechanism) {
    case "forced_response": {
      const t = big(w.truthful), a = big(w.forced_yes), b = big(w.forced_no);
      const S = t + a + b;
      // The same weights, worded as the researcher's design: otherwise a
      // made-up answer, "Yes" a/(a + b) of the time (Greenberg et al. 1969).
      if (design === "unrelated_question") {
        return say("unrelated_question", { truth: frequency(t, S), yes: frequency(a, a + b) });
      }
      if (a === b) return say("forced_response", { truth: frequency(t + a, S) });
      const [truth, yes, no] = splitOf([t, a, b], S);
      return say("forced_response_split", { truth, yes, no });
    }
    case "warner":
      return say("warner", { truth: truthOf(w.keep, w.flip, 1) });
    case "grr":
      return say(k === 2 ? "grr_two" : "grr", { truth: truthOf(w.keep, w.other, k - 1), others: k - 1 });
    case "olh":
      return say("olh", { truth: truthOf(w.keep, w.other, w.g - 1), k, g: w.g });
    case "hadamard":
      return say("hadamard", { truth: truthOf(w.keep, w.flip, 1) });
    case "sue":
    case "oue":
    case "multi_rr":
      return say(spec.mechanism, {
        k,
        on: frequency(w.one_if_one, w.total, true),
        off: frequency(w.one_if_zero, w.total, false),
      });
    case "padding_sampling":
      return say("padding_sampling", {
        truth: truthOf(w.keep, w.other, k + spec.ell - 1),
        ell: spec.ell,
        others: k + spec.ell - 1,
      });
    case "ordinal":
      return say("ordinal", { truth: largestShare(w.rows, w.total) });
    case "geometric":
    case "gaussian": {
      const m = (w.kernel.length + 1) / 2;
      return say(spec.mechanism, { truth: clampedDiagonal(w.kernel, m, w.total) });
    }
    case "duchi": {
      const levels = (w.total - 2 * w.base) / w.slope + 1;
      const top = Math.max(w.base + (levels - 1) * w.slope, w.total - w.base);
      return say("duchi", { truth: atMost(top, w.total) });
    }
    case "piecewise": {
      const total = w.width * w.high + (w.outputs - w.width) * w.low;
      return say("piecewise", { truth: atMost(w.width * w.high, total) });
    }
  }
  throw new Error(`no wording for mechanism ${JSON.stringify(spec.mechanism)}`);
}

/**
 * Everything shown about one protected question, from its spec and the
 * randomizer's verdict ({ratio, epsilonMilli}) and, for forced response, the
 * researcher's design type: {strength, label, sentence, odds, epsilon}.
 */
export function describeQuestion(spec, verdict, design = "") {
  const key = strength(verdict.ratio);
  return {
    strength: key,
    label: CATALOG.strength[key],
    sentence: mechanismSentence(spec, design),
    odds: fill(CATALOG.odds, {
      percent: certainty(verdict.ratio),
      factor: oddsFactor(verdict.ratio),
    }),
    epsilon: fill(CATALOG.epsilon, { epsilon: epsilonText(verdict.epsilonMilli) }),
  };
}

/**
 * The whole-survey figures, from the randomizer's survey verdict
 * ({totalRatio, totalMilli, spentMilli}): {strength, label, summary, odds,
 * epsilon}.
 */
export function describeSurvey(verdict) {
  const key = strength(verdict.totalRatio);
  const spent = verdict.spentMilli > 0
    ? fill(CATALOG.spent, { spent: epsilonText(verdict.spentMilli) }) : "";
  return {
    strength: key,
    label: CATALOG.strength[key],
    summary: `${fill(CATALOG.overall, { label: CATALOG.strength[key] })} ${CATALOG.strengthExplained[key]}`,
    odds: fill(CATALOG.surveyOdds, { percent: certainty(verdict.totalRatio) }),
    epsilon: fill(CATALOG.surveyEpsilon, { epsilon: epsilonText(verdict.totalMilli), spent }),
  };
}

/**
 * The plain-words explanation of a refusal (a SpecRefused code and facts),
 * with the researcher's contact line when the survey gives one.
 */
export function describeRefusal(code, facts = {}, contact = "") {
  const reason = CATALOG.refusal[code] ?? CATALOG.refusal.unverifiable;
  const tell = contact
    ? fill(CATALOG.refusal.contactWith, { contact: contact.replace(/[.\s]+$/, "") })
    : CATALOG.refusal.contact;
  return `${CATALOG.refusal.intro} ${fill(reason, facts)} ${tell}`;
}

/** Fill one catalog template (for the page script's own sentences). */
export function say(template, values) {
  return fill(template, values);
}
