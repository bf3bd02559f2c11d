// Sortable, filterable finding tables. Without JS the table is a plain table
// and the filter controls stay hidden.
(function () {
  "use strict";

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) return "";
    return cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim().toLowerCase();
  }

  function compare(a, b) {
    var na = Number(a), nb = Number(b);
    if (a !== "" && b !== "" && !isNaN(na) && !isNaN(nb)) return na - nb;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function sortBy(table, header) {
    var index = header.cellIndex;
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th[aria-sort]").forEach(function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var order = compare(cellValue(r1, index), cellValue(r2, index));
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  function applyFilters(table, controls) {
    var severity = controls.querySelector("[data-filter=severity]").value;
    var type = controls.querySelector("[data-filter=type]").value;
    var text = controls.querySelector("[data-filter=text]").value.trim().toLowerCase();
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var show = (!severity || row.dataset.severity === severity) &&
        (!type || row.dataset.type === type) &&
        (!text || row.textContent.toLowerCase().indexOf(text) !== -1);
      row.hidden = !show;
    });
  }

  function setUp(root) {
    (root || document).querySelectorAll("table[data-findings-table]").forEach(function (table) {
      if (table.dataset.ready) return;
      table.dataset.ready = "1";
      table.querySelectorAll("th[data-sort]").forEach(function (th) {
        th.tabIndex = 0;
        th.classList.add("sortable");
        th.addEventListener("click", function () { sortBy(table, th); });
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); }
        });
      });
      var controls = document.querySelector('[data-findings-filters="' + table.id + '"]');
      if (controls) {
        controls.hidden = false;
        controls.addEventListener("input", function () { applyFilters(table, controls); });
        controls.addEventListener("change", function () { applyFilters(table, controls); });
      }
    });
  }

  if (window.researchMindFindings) { setUp(); return; }
  window.researchMindFindings = true;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { setUp(); });
  else setUp();
  document.addEventListener("htmx:afterSettle", function (e) { setUp(e.target); });
})();
