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

  // Say why a form was not sent or not accepted, inside the form itself: its
  // fields keep what was typed (htmx does not swap error responses).
  function showFormError(elt, message) {
    var form = (elt && elt.closest && elt.closest("form")) || elt;
    if (!form || !form.insertBefore) return;
    var note = form.querySelector(".request-error");
    if (!note) {
      note = document.createElement("p");
      note.className = "error request-error";
      note.setAttribute("role", "alert");
      form.insertBefore(note, form.firstChild);
    }
    note.textContent = message;
  }
  function clearFormError(elt) {
    var form = elt && elt.closest && elt.closest("form");
    var note = form && form.querySelector(".request-error");
    if (note) note.remove();
  }
  function megabytes(bytes) { return (bytes / 1048576).toFixed(1) + " MB"; }

  // A text over the paste limit is refused before it is sent, so nothing leaves the page.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    var fields = form.querySelectorAll ? form.querySelectorAll("textarea[data-max-bytes]") : [];
    for (var i = 0; i < fields.length; i++) {
      var limit = parseInt(fields[i].getAttribute("data-max-bytes"), 10);
      var size = new TextEncoder().encode(fields[i].value).length;
      if (limit && size > limit) {
        e.preventDefault();
        e.stopPropagation();
        showFormError(form, "This text is " + megabytes(size) + "; a pasted text holds at most " +
          megabytes(limit) + ". Nothing was sent. Add it as a file instead (the Files tab).");
        fields[i].focus();
        return;
      }
    }
  }, true);

  var STATUS_SENTENCES = {
    403: "This form could not be accepted (its security token expired). Reload the page and send it again; copy what you typed first.",
    404: "What this form refers to is gone. Reload the page.",
    413: "This form is too large to send. Nothing was saved.",
    500: "Something went wrong on our side. Nothing was lost here; try again in a moment."
  };
  document.addEventListener("htmx:responseError", function (e) {
    var xhr = e.detail.xhr;
    var type = xhr.getResponseHeader("Content-Type") || "";
    var text = type.indexOf("text/plain") === 0 ? xhr.responseText.trim() : "";
    showFormError(e.detail.elt, (text && text.length < 500 ? text : "") ||
      STATUS_SENTENCES[xhr.status] || ("The server refused this (status " + xhr.status + "). Nothing was saved."));
  });
  document.addEventListener("htmx:sendError", function (e) {
    showFormError(e.detail.elt, "The server could not be reached. Nothing was sent; what you typed is still here.");
  });
  document.addEventListener("htmx:beforeRequest", function (e) { clearFormError(e.detail.elt); });

  // Cancel says "Stopping…" the moment it is pressed; the run's own note
  // (what was asked, when it is forced) replaces it when the server sends it.
  document.addEventListener("htmx:beforeRequest", function (e) {
    var button = e.detail.elt && e.detail.elt.querySelector && e.detail.elt.querySelector("#cancel-button");
    if (!button) return;
    var note = document.createElement("span");
    note.className = "cancelling-note";
    note.id = "cancelling-note";
    note.setAttribute("role", "status");
    note.textContent = "Stopping…";
    button.style.display = "none"; // the form stays until its request is sent
    e.detail.elt.after(note);
  });

  // When the live run ends (its final answer arrives out of band), the page
  // takes the finished layout: answer first, the run folded into one line.
  document.addEventListener("htmx:wsAfterMessage", function () {
    var answer = document.getElementById("answer");
    if (!answer || answer.querySelector("#live-answer")) return;
    var layout = document.querySelector(".question-layout");
    if (layout) layout.classList.add("finished");
    var fold = document.querySelector("details.progress-fold");
    if (fold) fold.open = false;
  });

  // Reset an add-content form once its content was accepted.
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (form && form.classList && form.classList.contains("content-form") && e.detail.successful) form.reset();
  });
})();
