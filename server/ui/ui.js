// The runs page's only script: while a part of the page says it is live (data-live=on), fetch
// that part again every few seconds and put it in place. Everything else is plain HTML.
(function () {
  "use strict";
  function schedule() {
    var box = document.querySelector("[data-live]");
    if (box && box.getAttribute("data-live") === "on") {
      setTimeout(refresh, Number(box.getAttribute("data-poll")) || 2000);
    }
  }
  function refresh() {
    if (document.hidden) { schedule(); return; }
    var url = new URL(window.location.href);
    url.searchParams.set("part", "live");
    fetch(url.toString(), { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        var box = document.querySelector("[data-live]");
        var busy = box && box.contains(document.activeElement) && document.activeElement.tagName === "INPUT";
        if (html !== null && box && !busy) {
          var holder = document.createElement("div");
          holder.innerHTML = html; // rendered and escaped by the server
          box.replaceWith(holder.firstElementChild);
        }
      })
      .catch(function () {})
      .then(schedule);
  }
  schedule();
})();
