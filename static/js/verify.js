// The verify page: the fingerprints this page ran with, beside the record.
//
// The page loads every device file with its Subresource Integrity hash (the
// browser refuses a file that differs by one byte). This script reads those
// `integrity` attributes from the elements the page loaded, keeps only the
// files the browser really fetched (its resource timing entries), and shows
// each beside the fingerprint the release record gives. It downloads nothing
// itself: a fresh download could differ from what ran.

const loaded = new Set(performance.getEntriesByType("resource").map((entry) => entry.name));

function ranWith(element) {
  const url = new URL(element.getAttribute("src") || element.getAttribute("href"), document.baseURI).href;
  return loaded.has(url) ? element.integrity : "";
}

const ran = new Map();
for (const element of document.querySelectorAll("script[data-device-file], link[data-device-file]")) {
  const value = ranWith(element);
  if (value) ran.set(element.dataset.deviceFile, value);
}

for (const cell of document.querySelectorAll("[data-ran-for]")) {
  const name = cell.dataset.ranFor;
  const value = ran.get(name) || "";
  cell.querySelector("code").textContent = value || "—";
  const recorded = document.querySelector(`[data-recorded-for="${CSS.escape(name)}"] code`);
  const same = value !== "" && recorded !== null && recorded.textContent.trim() === value;
  cell.closest("tr").dataset.match = same ? "same" : "differs";
  cell.querySelector("[data-verdict]").textContent = same
    ? cell.dataset.sameWords : cell.dataset.differsWords;
}
document.getElementById("ran-table")?.removeAttribute("hidden");
document.getElementById("ran-needs-script")?.remove();
