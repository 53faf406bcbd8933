// The runs page's only script: while a part of the page says it is live (data-live=on), fetch
// that part again every few seconds and put it in place (items opened or folded stay so); a
// timeline bar names its step on hover; an address naming an item opens it.
(function () {
  "use strict";
  function schedule() {
    var box = document.querySelector("[data-live]");
    if (box && box.getAttribute("data-live") === "on") {
      setTimeout(refresh, Number(box.getAttribute("data-poll")) || 2000);
    }
  }
  var spreadRanges = []; // [from, to] of the stretches of items opened on this page
  function folding(box) {
    var state = {};
    box.querySelectorAll("tbody.item[id]").forEach(function (t) { state[t.id] = t.classList.contains("open"); });
    return state;
  }
  function wasSpread(stretch) { // a stretch that grew while the run went on is the same one
    var from = Number(stretch.getAttribute("data-from")), to = Number(stretch.getAttribute("data-to"));
    return spreadRanges.some(function (r) { return r[0] <= to && from <= r[1]; });
  }
  function refresh() {
    if (document.hidden) { schedule(); return; }
    var url = new URL(window.location.href);
    url.searchParams.set("part", "live");
    url.hash = "";
    fetch(url.toString(), { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        var box = document.querySelector("[data-live]");
        var busy = box && box.contains(document.activeElement) && document.activeElement.tagName === "INPUT";
        if (html !== null && box && !busy) {
          var state = folding(box);
          var holder = document.createElement("div");
          holder.innerHTML = html; // rendered and escaped by the server
          var fresh = holder.firstElementChild;
          box.replaceWith(fresh);
          var spreading = [];
          fresh.querySelectorAll("tbody.stretch").forEach(function (t) {
            if (wasSpread(t)) { spreading.push(spread(t)); }
          });
          Promise.all(spreading).then(function () {
            document.querySelectorAll("[data-live] tbody.item[id]").forEach(function (t) {
              if (Object.prototype.hasOwnProperty.call(state, t.id)) { unfold(t, state[t.id]); }
            });
          });
        }
      })
      .catch(function () {})
      .then(schedule);
  }
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.matches("tbody.item")) { unfold(target, true); target.scrollIntoView(); return; }
    var wanted = /^item-(\d+)$/.exec(id || "");
    if (target || !wanted) { return; }
    var n = Number(wanted[1]); // an item folded in a stretch: open the stretch, then the item
    document.querySelectorAll("tbody.stretch").forEach(function (stretch) {
      if (Number(stretch.getAttribute("data-from")) <= n && n <= Number(stretch.getAttribute("data-to"))) {
        spread(stretch).then(openTarget);
      }
    });
  }
  // An item's line opens or folds its steps; a folded item's steps are sent when it opens.
  function unfold(item, open) {
    item.classList.toggle("open", open);
    item.classList.toggle("folded", !open);
    if (!open || item.querySelector("tr.step") || item.getAttribute("data-loading")) { return; }
    item.setAttribute("data-loading", "1");
    fetch(partUrl({ part: "item", item: item.getAttribute("data-item") }), { credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        if (html !== null && !item.querySelector("tr.step")) {
          item.insertAdjacentHTML("beforeend", html); // rendered and escaped by the server
        }
      })
      .catch(function () {})
      .then(function () { item.removeAttribute("data-loading"); });
  }
  var tip = null;
  function showTip(bar, ev) {
    var title = bar.querySelector("title");
    if (title) { // the tip replaces the browser's own, which would show it a second time
      bar.setAttribute("data-tip", title.textContent);
      bar.setAttribute("aria-label", title.textContent);
      title.remove();
    }
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "tip";
      tip.setAttribute("role", "tooltip");
      document.body.appendChild(tip);
    }
    tip.textContent = bar.getAttribute("data-tip") || "";
    tip.hidden = false;
    place(ev);
  }
  function place(ev) {
    tip.style.left = Math.min(ev.pageX + 12, window.scrollX + window.innerWidth - 300) + "px";
    tip.style.top = (ev.pageY + 16) + "px";
  }
  document.addEventListener("mouseover", function (ev) {
    var bar = ev.target.closest ? ev.target.closest("svg.timeline rect.step") : null;
    if (bar) { showTip(bar, ev); } else if (tip) { tip.hidden = true; }
  });
  document.addEventListener("mousemove", function (ev) {
    if (tip && !tip.hidden) { place(ev); }
  });
  function partUrl(params) {
    var url = new URL(window.location.href);
    url.hash = "";
    Object.keys(params).forEach(function (k) { url.searchParams.set(k, params[k]); });
    return url.toString();
  }
  // A stretch of folded items opens into the items' lines.
  function spread(stretch) {
    if (stretch.getAttribute("data-loading")) { return Promise.resolve(); }
    stretch.setAttribute("data-loading", "1");
    var range = { part: "items", from: stretch.getAttribute("data-from"), to: stretch.getAttribute("data-to") };
    return fetch(partUrl(range), { credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (html) {
        if (html !== null && stretch.parentElement) {
          stretch.insertAdjacentHTML("afterend", html); // rendered and escaped by the server
          spreadRanges.push([Number(range.from), Number(range.to)]);
          stretch.remove();
        }
      })
      .catch(function () {})
      .then(function () { stretch.removeAttribute("data-loading"); });
  }
  document.addEventListener("click", function (ev) {
    var head = ev.target.closest ? ev.target.closest("table.items tbody tr.head") : null;
    if (!head) { return; }
    ev.preventDefault();
    var body = head.parentElement;
    if (body.classList.contains("stretch")) { spread(body); return; }
    unfold(body, !body.classList.contains("open"));
  });
  // A click on an item's bar in the timeline opens that item.
  document.addEventListener("click", function (ev) {
    var bar = ev.target.closest ? ev.target.closest("svg.timeline rect[data-item]") : null;
    if (bar && !bar.closest("a")) {
      window.location.hash = "item-" + bar.getAttribute("data-item");
      openTarget();
    }
  });
  window.addEventListener("hashchange", openTarget);
  openTarget();
  schedule();
})();
