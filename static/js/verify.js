// The verify page: the fingerprints this page ran with, beside the record.
//
// The page loads every device file with its Subresource Integrity hash (the
// browser refuses a file that differs by one byte). This script reads those
// `integrity` attributes from the elements the page loaded, keeps only the
// files the browser really fetched (its resource timing entries), and shows
// each beside the fingerprint the release record gives. It downloads nothing
// itself: a fresh download could differ from what ran. A resource's timing
// entry can arrive after this script has run (a preloaded file still
// finishing), so the table is drawn again for every entry that arrives.

const loaded = new Set();

function ranWith(element) {
  const url = new URL(element.getAttribute("src") || element.getAttribute("href"), document.baseURI).href;
  return loaded.has(url) ? element.integrity : "";
}

function showWhatRan() {
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
}

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) loaded.add(entry.name);
  showWhatRan();
}).observe({ type: "resource", buffered: true });
for (const entry of performance.getEntriesByType("resource")) loaded.add(entry.name);
showWhatRan();
document.getElementById("ran-table")?.removeAttribute("hidden");
document.getElementById("ran-needs-script")?.remove();
