// Citations on the page: preview popover for [cN] links, "copy answer as
// Markdown", and the file viewer's scroll-to-range. Vanilla JS, no build step.
// Everything is delegated from `document` because answers arrive later
// (htmx swaps, websocket fragments). Untrusted text is only ever set with
// textContent, never parsed as HTML.
(function () {
  "use strict";

  // The preview is the browser's own popover (popover="auto"): it opens in the
  // top layer, above every stacking context and never clipped, and the
  // browser closes it on Escape and on a click elsewhere. Without the Popover
  // API (before 2024's browsers) there is no preview; the links still work.
  var POPOVER_ID = "cite-popover";
  var previews = Object.prototype.hasOwnProperty.call(HTMLElement.prototype, "popover");
  var popover = null;
  var owner = null; // the .cite element the popover describes
  var hideTimer = null;

  function getPopover() {
    if (popover) return popover;
    popover = document.createElement("div");
    popover.id = POPOVER_ID;
    popover.className = "cite-popover";
    popover.setAttribute("role", "tooltip");
    popover.setAttribute("popover", "auto");
    // Hovering the popover keeps it open (WCAG 1.4.13: hoverable).
    popover.addEventListener("mouseenter", cancelHide);
    popover.addEventListener("mouseleave", scheduleHide);
    // However it closed (our hide, Escape, a click elsewhere), the link it
    // described stops pointing at it.
    popover.addEventListener("toggle", function (e) {
      if (e.newState === "closed" && !isOpen()) forget();
    });
    document.body.appendChild(popover);
    return popover;
  }

  function isOpen() {
    return !!popover && popover.matches(":popover-open");
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function tone(value) {
    return /^(ok|info|warn|bad|muted)$/.test(value || "") ? value : "muted";
  }

  function fill(cite) {
    var box = getPopover();
    var data = cite.dataset;
    box.textContent = "";
    var head = el("div", "cite-popover__head");
    head.appendChild(el("span", "cite-popover__cid", "[" + (data.cid || "") + "]"));
    head.appendChild(el("span", "badge badge--" + tone(data.tone), data.statusLabel || data.status || "Not verified yet"));
    // "Support not judged" is no verdict: said quietly, not as a badge.
    if (data.support === "unjudged") head.appendChild(el("span", "cite-popover__hint", data.supportLabel));
    else if (data.supportLabel) head.appendChild(el("span", "badge badge--" + tone(data.supportTone), data.supportLabel));
    box.appendChild(head);
    if (data.source) box.appendChild(el("div", "cite-popover__source", data.source));
    if (data.excerpt) box.appendChild(el("blockquote", "cite-popover__excerpt", data.excerpt));
    else box.appendChild(el("p", "cite-popover__hint", "No excerpt was given for this citation."));
    if (cite.tagName === "A") box.appendChild(el("p", "cite-popover__hint", "Open to see the cited lines. Esc closes."));
  }

  function place(cite) {
    var box = getPopover();
    var rect = cite.getBoundingClientRect();
    var width = box.offsetWidth;
    var left = Math.max(8, Math.min(rect.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - width - 8));
    var below = rect.bottom + window.scrollY + 6;
    var above = rect.top + window.scrollY - box.offsetHeight - 6;
    // Prefer below; go above when it would leave the viewport.
    var top = rect.bottom + box.offsetHeight + 12 > window.innerHeight && above > window.scrollY ? above : below;
    box.style.left = left + "px";
    box.style.top = top + "px";
  }

  function describe(cite, on) {
    var ids = (cite.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (id) {
      return id && id !== POPOVER_ID;
    });
    if (on) ids.push(POPOVER_ID);
    if (ids.length) cite.setAttribute("aria-describedby", ids.join(" "));
    else cite.removeAttribute("aria-describedby");
  }

  function show(cite) {
    if (!previews) return;
    cancelHide();
    if (owner && owner !== cite) describe(owner, false);
    owner = cite;
    fill(cite);
    if (!isOpen()) getPopover().showPopover();
    place(cite);
    describe(cite, true);
  }

  function hide() {
    cancelHide();
    if (isOpen()) popover.hidePopover();
  }

  function forget() {
    if (owner) describe(owner, false);
    owner = null;
  }

  function scheduleHide() {
    cancelHide();
    hideTimer = window.setTimeout(hide, 200);
  }

  function cancelHide() {
    if (hideTimer) window.clearTimeout(hideTimer);
    hideTimer = null;
  }

  function citeFrom(target) {
    return target && target.closest ? target.closest(".cite[data-cid]") : null;
  }

  // Beside the answer (wide screens), the sources rail follows the reader: the
  // source of the [cN] under the pointer or focus is marked and scrolled into
  // the rail's view, never the page's.
  function markSource(cite) {
    var marked = document.querySelectorAll(".answer-rail .source.is-current");
    for (var i = 0; i < marked.length; i++) marked[i].classList.remove("is-current");
    var rail = cite && cite.closest(".answer-body") && cite.closest(".answer-body").querySelector(".answer-rail");
    var source = rail && document.getElementById("source-" + cite.dataset.cid);
    if (!source || !rail.contains(source)) return;
    source.classList.add("is-current");
    if (getComputedStyle(rail).position !== "sticky") return; // below the answer: leave the page alone
    var top = source.offsetTop - rail.offsetTop;
    if (top < rail.scrollTop || top + source.offsetHeight > rail.scrollTop + rail.clientHeight) {
      rail.scrollTop = Math.max(0, top - 8);
    }
  }

  document.addEventListener("mouseover", function (e) {
    var cite = citeFrom(e.target);
    if (cite) { show(cite); markSource(cite); }
  });
  document.addEventListener("mouseout", function (e) {
    var cite = citeFrom(e.target);
    if (cite && !cite.contains(e.relatedTarget)) scheduleHide();
  });
  document.addEventListener("focusin", function (e) {
    var cite = citeFrom(e.target);
    if (cite) { show(cite); markSource(cite); }
  });
  document.addEventListener("focusout", function (e) {
    if (citeFrom(e.target)) scheduleHide();
  });
  window.addEventListener("resize", function () {
    if (owner && isOpen()) place(owner);
  });
  // An htmx swap can remove the link the popover belongs to.
  document.addEventListener("htmx:afterSwap", function () {
    if (owner && !document.body.contains(owner)) hide();
  });

  // ---- copy answer as Markdown --------------------------------------------
  function announce(button, text) {
    var live = document.getElementById("copy-status");
    if (!live) {
      live = el("span", "sr-only");
      live.id = "copy-status";
      live.setAttribute("role", "status");
      document.body.appendChild(live);
    }
    live.textContent = text;
    var label = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", label);
    button.textContent = text;
    window.setTimeout(function () { button.textContent = label; }, 2000);
  }

  function copyFallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "sr-only";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest(".copy-markdown[data-copy-from]");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy-from"));
    if (!source) return;
    var text = source.content ? source.content.textContent : source.textContent;
    text = text.replace(/^\s*\n/, "");
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { announce(button, "Copied"); },
        function () { announce(button, copyFallback(text) ? "Copied" : "Copy failed"); }
      );
    } else {
      announce(button, copyFallback(text) ? "Copied" : "Copy failed");
    }
  });

  // ---- file viewer: scroll the cited range into view --------------------------
  function parseRange(hash) {
    var m = /^#L(\d+)(?:-L?(\d+))?$/.exec(hash || "");
    if (!m) return null;
    var a = parseInt(m[1], 10), b = parseInt(m[2] || m[1], 10);
    return a <= b ? [a, b] : [b, a];
  }

  function showRange(fromHash) {
    var table = document.getElementById("code");
    if (!table) return;
    var range = parseRange(window.location.hash);
    if (!range && !fromHash) {
      var s = parseInt(table.getAttribute("data-hl-start"), 10);
      var t = parseInt(table.getAttribute("data-hl-end"), 10) || s;
      if (s) range = [s, t];
    }
    table.querySelectorAll("tr.target").forEach(function (row) { row.classList.remove("target"); });
    if (!range) return;
    var first = null;
    for (var n = range[0]; n <= range[1] && n - range[0] < 5000; n++) {
      var row = document.getElementById("L" + n);
      if (!row) continue;
      row.classList.add("target");
      if (!first) first = row;
    }
    if (!first) return;
    // Land keyboard and screen-reader users on the cited lines too.
    first.setAttribute("tabindex", "-1");
    first.focus({ preventScroll: true });
    var reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    first.scrollIntoView({ block: "center", behavior: reduce ? "auto" : "smooth" });
  }

  // Shift-click a line number to extend the range (#L45 → #L45-L52).
  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("#code td.ln a");
    if (!link || !e.shiftKey) return;
    var current = parseRange(window.location.hash);
    var line = parseRange(link.getAttribute("href"));
    if (!current || !line) return;
    e.preventDefault();
    var a = Math.min(current[0], line[0]), b = Math.max(current[1], line[0]);
    window.location.hash = "#L" + a + (a === b ? "" : "-L" + b);
  });

  window.addEventListener("hashchange", function () { showRange(true); });

  // ---- Page view: the outlined quote in view once the page image has its size --
  // The browser's own jump to #cited happens before the image is laid out, and
  // the outline is drawn in an SVG over it: scroll again when the image is ready.
  function showOutline() {
    var cited = document.querySelector(".page-image #cited");
    if (!cited) return;
    var image = document.querySelector(".page-image img");
    var go = function () { cited.scrollIntoView({ block: "center", behavior: "auto" }); };
    if (!image || image.complete) go();
    else image.addEventListener("load", go, { once: true });
  }

  function ready() { showRange(false); showOutline(); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
