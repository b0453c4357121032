// Live dashboard: poll the results fragment and swap it in place.
// Without JavaScript the page works the same; the "Refresh" link reloads it.
(function () {
  "use strict";
  var box = document.getElementById("results");
  if (!box || !window.fetch) return;
  var url = box.getAttribute("data-live-url");
  var seconds = parseInt(box.getAttribute("data-poll-seconds"), 10) || 15;
  var busy = false;

  function refresh() {
    if (busy || document.hidden) return;
    busy = true;
    fetch(url, {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (data) {
        // The fragment is rendered (and escaped) by the server's templates.
        var focused = document.activeElement && document.activeElement.id;
        box.innerHTML = data.html;
        box.removeAttribute("data-stale");
        if (focused) {
          var again = document.getElementById(focused);
          if (again) again.focus();
        }
      })
      .catch(function () {
        box.setAttribute("data-stale", "true");
      })
      .then(function () {
        busy = false;
      });
  }

  box.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest(".refresh-link");
    if (!link) return;
    event.preventDefault();
    refresh();
  });
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) refresh();
  });
  window.setInterval(refresh, seconds * 1000);
})();
