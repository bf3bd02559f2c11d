// Research Mind page behaviour: small, no build step. htmx does the requests.
(function () {
  "use strict";

  // The ws extension reconnects to the same URL; resume after the last event
  // this page has, so nothing is lost or shown twice.
  function lastSeq() {
    var el = document.getElementById("last-seq");
    return el ? parseInt(el.getAttribute("data-seq") || "0", 10) || 0 : 0;
  }
  if (window.htmx) {
    htmx.createWebSocket = function (url) {
      var u = new URL(url, window.location.href);
      u.searchParams.set("after", String(lastSeq()));
      return new WebSocket(u.toString());
    };
  }

  // Tabs for the add-content forms (arrow keys move between tabs).
  function selectTab(tab) {
    var list = tab.closest("[role=tablist]");
    list.querySelectorAll("[role=tab]").forEach(function (t) {
      var on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      var panel = document.getElementById(t.getAttribute("aria-controls"));
      if (panel) panel.hidden = !on;
    });
    tab.focus();
  }
  document.addEventListener("click", function (e) {
    var tab = e.target.closest("[role=tab]");
    if (tab) selectTab(tab);
  });
  document.addEventListener("keydown", function (e) {
    var tab = e.target.closest && e.target.closest("[role=tab]");
    if (!tab || (e.key !== "ArrowRight" && e.key !== "ArrowLeft")) return;
    var tabs = Array.from(tab.closest("[role=tablist]").querySelectorAll("[role=tab]"));
    var i = tabs.indexOf(tab) + (e.key === "ArrowRight" ? 1 : -1);
    selectTab(tabs[(i + tabs.length) % tabs.length]);
    e.preventDefault();
  });

  // Confirm destructive forms.
  document.addEventListener("submit", function (e) {
    var form = e.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.getAttribute("data-confirm"))) e.preventDefault();
  }, true);

  // Reset an add-content form once its content was accepted.
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (form && form.classList && form.classList.contains("content-form") && e.detail.successful) form.reset();
  });
})();
