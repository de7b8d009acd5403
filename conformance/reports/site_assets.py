"""The site's page frame, style sheet and the script that adds filters.

Every page is complete HTML that reads without the script: the grid, the findings, the
payloads are all in the page. `site.js` only adds the filter controls (shown once the
script runs; hidden without it) and keeps the choice in the page's address (`#api=...`), so
a filtered view is a link too. Links are relative, so the folder works from `file://` and
from any static host under any path.
"""

from __future__ import annotations

from html import escape

__all__ = ["CSS", "JS", "page"]


def page(title: str, body: str, *, root: str, here: str = "", description: str = "") -> str:
    """A whole page: `root` is the relative way back to the site's top (`""`, `"../"`, ...),
    `here` the navigation entry to mark as the current page."""
    nav = [
        ("index.html", "Can I use", "home"),
        ("frameworks/index.html", "Frameworks", "frameworks"),
        ("api.html", "JSON API", "api"),
    ]
    items = "".join(
        f'<li><a href="{root}{href}"'
        + (' aria-current="page"' if key == here else "")
        + f">{escape(words)}</a></li>"
        for href, words, key in nav
    )
    meta = f'<meta name="description" content="{escape(description)}">' if description else ""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(title)} · tool-result conformance</title>",
            meta,
            f'<link rel="stylesheet" href="{root}assets/site.css">',
            f'<script defer src="{root}assets/site.js"></script>',
            "</head>",
            "<body>",
            '<a class="skip" href="#main">Skip to the content</a>',
            '<header class="site"><p class="brand"><a href="'
            f'{root}index.html">Tool-result conformance</a></p>'
            f'<nav aria-label="Site"><ul>{items}</ul></nav></header>',
            f'<main id="main" tabindex="-1">{body}</main>',
            '<footer class="site"><p>Generated from the results files in the repository\'s'
            " <code>results/</code> folder and the reference run; every figure is a rendering"
            f' of the <a href="{root}api.html">JSON API</a>\'s data.</p></footer>',
            "</body>",
            "</html>",
            "",
        ]
    )


CSS = """
:root { font-family: system-ui, sans-serif; color: #1b1b1b; background: #fff;
  line-height: 1.4; }
body { margin: 0; }
[hidden] { display: none !important; }
a { color: #0b57d0; }
a:focus-visible, button:focus-visible, select:focus-visible, input:focus-visible,
[tabindex]:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { left: .5rem; z-index: 10; }
header.site { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem 1.5rem;
  padding: .5rem 1rem; border-bottom: 1px solid #ccc; background: #f7f7f7; }
header.site .brand { margin: 0; font-weight: 700; }
header.site .brand a { color: #1b1b1b; text-decoration: none; }
header.site ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none;
  margin: 0; padding: 0; }
header.site [aria-current] { font-weight: 700; }
main { padding: .5rem 1rem 2rem; max-width: 100%; box-sizing: border-box; }
footer.site { padding: .5rem 1rem; color: #444; border-top: 1px solid #ccc; font-size: .85rem; }
h1 { font-size: 1.45rem; margin: .5rem 0 .25rem; }
h2 { font-size: 1.2rem; margin: 1.25rem 0 .4rem; }
h3 { font-size: 1.05rem; margin: 1rem 0 .3rem; }
.lead { color: #333; max-width: 60rem; }
.note { color: #444; font-size: .9rem; }
code { font-size: .9em; overflow-wrap: anywhere; }
table { border-collapse: separate; border-spacing: 0; }
th, td { border-bottom: 1px solid #ccc; border-right: 1px solid #ddd; padding: .3rem .4rem;
  text-align: left; vertical-align: top; }
thead th { background: #eef1f5; }
.scroll { overflow: auto; max-height: 85vh; border: 1px solid #bbb; }
.grid { width: 100%; font-size: .85rem; }
.grid thead th { position: sticky; top: 0; z-index: 2; }
.grid tbody th { position: sticky; left: 0; z-index: 1; background: #fff;
  min-width: 9rem; max-width: 14rem; overflow-wrap: anywhere; }
.grid thead th:first-child { left: 0; z-index: 3; }
.grid tr.api th { background: #f4f4f4; font-size: .95rem; position: sticky; left: 0; }
.grid .model { display: block; color: #444; font-weight: normal; font-size: .8rem; }
.grid .ct { display: block; font-weight: 600; }
.grid .fw { border-left: 2px solid #888; }
.grid th.variant { font-weight: normal; }
.grid .of, .card .of { display: block; color: #444; font-weight: normal; font-size: .8rem; }
.chips { display: flex; flex-wrap: wrap; gap: 3px; }
.chip { display: inline-flex; flex-direction: column; min-width: 7.5rem; flex: 1 1 7.5rem;
  padding: .15rem .35rem; border: 2px solid; border-radius: 4px; color: #1b1b1b;
  text-decoration: none; line-height: 1.2; }
.chip .v { font-size: .72rem; color: #333; }
.chip .w { font-weight: 700; }
.chip .g { font-size: .75rem; }
.chip .stale, .stale-tag { font-size: .7rem; font-weight: 700; text-transform: uppercase;
  border: 1px dashed #333; padding: 0 .2rem; align-self: flex-start; }
.st-pass { background: #e7f5ea; border-color: #2e7d32; }
.st-fail { background: #fde8e7; border-color: #c62828; }
.st-xfail { background: #fff3e0; border-color: #a35f00; }
.st-skip { background: #efefef; border-color: #666; border-style: dashed; }
.st-none { background: #fff; border-color: #999; border-style: dotted; }
.chip.stale-cell { background-image: repeating-linear-gradient(135deg, transparent 0 6px,
  rgba(0, 0, 0, .06) 6px 12px); }
.none { color: #555; text-align: center; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end;
  margin: .5rem 0; padding: .5rem; border: 1px solid #bbb; border-radius: 6px; }
.filters label { display: flex; flex-direction: column; font-size: .85rem; gap: .1rem; }
.filters select, .filters button { font: inherit; padding: .2rem; }
.legend ul { display: flex; flex-wrap: wrap; gap: .2rem 1.2rem; list-style: none; padding: 0;
  margin: .25rem 0; font-size: .85rem; }
.cards { display: flex; flex-wrap: wrap; gap: .75rem; }
.card { flex: 1 1 18rem; border: 1px solid #bbb; border-radius: 6px; padding: .4rem .7rem; }
.card h3 { margin: .2rem 0; }
.figures, .checks { max-width: 100%; }
.figures td, .checks td { overflow-wrap: break-word; }
.findings > li { margin: .5rem 0; }
.findings .cells { font-size: .85rem; }
.side { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: .75rem; }
.side > section { border: 1px solid #bbb; border-radius: 6px; padding: .4rem .6rem;
  min-width: 0; }
pre { white-space: pre-wrap; word-break: break-all; margin: 0; font-size: .8rem; }
pre.payload { max-height: 30rem; overflow: auto; background: #f6f6f6; padding: .5rem; }
.checks { font-size: .85rem; }
.v-fail, .v-xpass { background: #fde8e7; }
.v-xfail { background: #fff3e0; }
.k-fixed { background: #e7f5ea; }
.k-broke { background: #fde8e7; }
.stale-note { border: 2px dashed #333; padding: .4rem .6rem; background: #fafafa; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
@media (min-width: 900px) {
  .grid { table-layout: fixed; }
  .grid thead th:first-child { width: 11rem; }
}
@media (max-width: 700px) {
  main { padding: .25rem .5rem 1rem; }
  .grid tbody th { min-width: 6.5rem; max-width: 8rem; font-size: .8rem; }
  .chip { min-width: 6rem; flex-basis: 6rem; }
  dl.facts { grid-template-columns: 1fr; }
  .figures td, .checks td, .figures th, .checks th { overflow-wrap: anywhere; }
  .side { grid-template-columns: 1fr; }
}
"""

JS = """
(function () {
  "use strict";
  function ready(run) {
    if (document.readyState !== "loading") { run(); }
    else { document.addEventListener("DOMContentLoaded", run); }
  }
  function readHash() {
    var chosen = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var pair = part.split("=");
      if (pair.length === 2) { chosen[decodeURIComponent(pair[0])] = decodeURIComponent(pair[1]); }
    });
    if (chosen.variant && !chosen.given) { chosen.given = chosen.variant; }  // older links
    return chosen;
  }
  ready(function () {
    var form = document.getElementById("filters");
    if (!form) { return; }
    var grid = document.getElementById("grid");
    var selects = form.querySelectorAll("select");
    var status = document.getElementById("filter-status");
    function value(name) { return form.elements[name] ? form.elements[name].value : "all"; }
    function apply() {
      var api = value("api"), ct = value("content"), fw = value("framework");
      var given = value("given"), shown = 0;
      grid.querySelectorAll("tbody tr").forEach(function (row) {
        var keep = (api === "all" || row.dataset.api === api) &&
          (ct === "all" || !row.dataset.content || row.dataset.content === ct);
        row.hidden = !keep;
        if (keep && row.dataset.content) { shown += 1; }
      });
      grid.querySelectorAll("[data-framework]").forEach(function (cell) {
        // a framework chosen keeps its variants' sub-columns (data-group)
        cell.hidden = !(fw === "all" || cell.dataset.framework === fw ||
          cell.dataset.group === fw);
      });
      grid.querySelectorAll(".chip").forEach(function (chip) {
        chip.hidden = !(given === "all" || chip.dataset.given === given);
      });
      grid.querySelectorAll("tr.api").forEach(function (head) {
        var next = head.nextElementSibling, any = false;
        while (next && !next.classList.contains("api")) {
          if (!next.hidden) { any = true; }
          next = next.nextElementSibling;
        }
        head.hidden = !any;
      });
      if (status) { status.textContent = shown + " rows shown"; }
      var parts = [];
      selects.forEach(function (select) {
        if (select.value !== "all") {
          parts.push(encodeURIComponent(select.name) + "=" + encodeURIComponent(select.value));
        }
      });
      var hash = parts.length ? "#" + parts.join("&") : "";
      if (location.hash !== hash) {
        history.replaceState(null, "", hash || location.pathname + location.search);
      }
    }
    var asked = readHash();
    selects.forEach(function (select) {
      var wanted = asked[select.name];
      if (Array.prototype.some.call(select.options, function (o) { return o.value === wanted; })) {
        select.value = wanted;
      }
      select.addEventListener("change", apply);
    });
    form.addEventListener("reset", function () { setTimeout(apply, 0); });
    form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
    form.hidden = false;
    apply();
  });
})();
"""
