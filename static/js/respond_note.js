// The per-survey note (localStorage) and the sealed body (sessionStorage).
// Before the first byte is sent the device writes {answered, expires (a
// month), spentMilli (⌈1000 ε⌉ sent so far)}, nothing else; until the server
// acknowledges, the sealed body waits so that a retry resends identical bytes.
//
// Part of the page script: respond.js loads it by the <link rel="modulepreload">
// that carries its Subresource Integrity hash and installs it once.

let d = null; // the page's device state (respond.js), bound once by install()
let LEDGER_KEY;
let PENDING_KEY;
const LEDGER_MONTHS = 12;

class NoLedger extends Error {}

// --- the ledger (localStorage) and the sealed body (sessionStorage) -------------
function monthString(date) {
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, "0")}`;
}

function expiryMonth() {
  const now = new Date();
  return monthString(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + LEDGER_MONTHS, 1)));
}

// {answered, expires, spentMilli} or null (none, expired or unreadable).
function readLedger() {
  let raw;
  try {
    raw = localStorage.getItem(LEDGER_KEY);
  } catch {
    return null;
  }
  if (raw === null) return null;
  let entry;
  try {
    entry = JSON.parse(raw);
  } catch {
    entry = null;
  }
  const valid = entry && entry.answered === true && /^\d{4}-\d{2}$/.test(entry.expires) &&
    Number.isSafeInteger(entry.spentMilli) && entry.spentMilli >= 0;
  if (!valid) {
    // Unreadable: assume the worst (answered, with the most a survey allows).
    return { answered: true, expires: expiryMonth(), spentMilli: 10000 };
  }
  if (monthString(new Date()) > entry.expires) {
    localStorage.removeItem(LEDGER_KEY);
    return null;
  }
  return entry;
}

// Written BEFORE any byte is sent; throws NoLedger if the browser won't keep it.
function writeLedger(spentMilli) {
  const entry = JSON.stringify({ answered: true, expires: expiryMonth(), spentMilli });
  try {
    localStorage.setItem(LEDGER_KEY, entry);
    if (localStorage.getItem(LEDGER_KEY) === entry) return;
  } catch {
    // fall through
  }
  throw new NoLedger("the browser did not keep the note");
}

function readPending() {
  try {
    const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY));
    return pending && typeof pending.body === "string" && pending.reports ? pending : null;
  } catch {
    return null;
  }
}

function writePending(pending) {
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
}

function dropPending() {
  try {
    sessionStorage.removeItem(PENDING_KEY);
  } catch {
    // nothing to drop
  }
}

const specText = (question) => JSON.stringify(question.spec);

// Binds this module to the page's device state, once, and adds its functions
// to it (a second install is refused: nothing can rebind it).
export function install(device) {
  if (d !== null) throw new Error("respond_note.js is installed already");
  d = device;
  LEDGER_KEY = `deniable.answered.${device.config.survey}`;
  PENDING_KEY = `deniable.pending.${device.config.survey}`;
  Object.assign(device, {
    NoLedger, expiryMonth, readLedger, writeLedger, readPending, writePending,
    dropPending, specText,
  });
}
