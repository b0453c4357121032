// Background analyses: move the progress bar, then show the stored result.
// Without JavaScript the "Check again" link reloads the same address.
(function () {
  "use strict";
  var boxes = document.querySelectorAll("[data-job-url]");
  if (!boxes.length || !window.fetch) return;
  var SECONDS = 1;
  // The progress as a whole percent written the page language's way.
  var percent = new Intl.NumberFormat(document.documentElement.lang || "en", {
    style: "percent",
    maximumFractionDigits: 0,
  });

  function poll(box) {
    var bar = box.querySelector("[data-job-progress]");
    fetch(box.getAttribute("data-job-url"), {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (data) {
        bar.value = data.progress;
        var status = box.querySelector("[data-job-status]");
        // The server words the status in the page's language.
        if (status) status.textContent = data.status_label || data.status;
        bar.textContent = percent.format(data.progress);
        if (data.finished) {
          window.location.reload(); // the same address now shows the result
          return;
        }
        window.setTimeout(poll, SECONDS * 1000, box);
      })
      .catch(function () {
        window.setTimeout(poll, SECONDS * 5000, box);
      });
  }

  Array.prototype.forEach.call(boxes, function (box) {
    window.setTimeout(poll, SECONDS * 1000, box);
  });
})();
