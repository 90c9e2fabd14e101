"""The pages' one script, served at /ui.js (no build step, no library): live regions fed by server-sent events
(events.py), and the catalogue browser's filter as you type. Every page works without it, reloaded by hand."""

from __future__ import annotations

SCRIPT = r"""
"use strict";
function openIds(root) {
  return new Set(Array.from(root.querySelectorAll("details[id][open]"), d => d.id));
}
function reopen(root, ids) {
  for (const d of root.querySelectorAll("details[id]")) { if (ids.has(d.id)) d.open = true; }
}
function follow(main) {
  const status = document.getElementById("live-status");
  const say = text => { if (status) status.textContent = text; };
  const source = new EventSource(main.dataset.events);
  source.addEventListener("update", ev => {
    const regions = JSON.parse(ev.data);
    for (const [id, html] of Object.entries(regions)) {
      const el = document.getElementById(id);
      if (!el) continue;
      const open = openIds(el);
      el.innerHTML = html;
      reopen(el, open);
    }
    say("live: updated " + new Date().toLocaleTimeString());
  });
  source.addEventListener("done", () => { say("finished"); source.close(); });
  source.addEventListener("gone", ev => { say("stopped: " + ev.data); source.close(); });
  source.onerror = () => say("live updates interrupted; reload the page");
}
function filterRows() {
  const value = id => (document.getElementById(id) || {}).value || "";
  const group = value("f-group"), binding = value("f-binding"), gen = value("f-generation");
  const text = value("f-text").toLowerCase();
  let shown = 0;
  for (const row of document.querySelectorAll("tr[data-group]")) {
    const ok = (!group || row.dataset.group === group)
      && (!binding || row.dataset.bindings.split(",").includes(binding))
      && (!gen || row.dataset.generations.split(",").includes(gen))
      && (!text || row.dataset.text.includes(text));
    row.hidden = !ok;
    if (ok) shown++;
  }
  const count = document.getElementById("shown-count");
  if (count) count.textContent = shown + " shown";
}
function catalogue() {
  for (const id of ["f-group", "f-binding", "f-generation", "f-text"]) {
    const el = document.getElementById(id);
    if (el) el.addEventListener("input", filterRows);
  }
  const all = document.getElementById("choose-shown");
  if (all) all.addEventListener("click", ev => {
    ev.preventDefault();
    for (const row of document.querySelectorAll("tr[data-group]")) {
      const box = row.querySelector("input[type=checkbox]");
      if (box && !row.hidden) box.checked = true;
    }
  });
  const apply = document.getElementById("filter-apply");
  if (apply) apply.hidden = true;
  filterRows();
}
document.addEventListener("DOMContentLoaded", () => {
  const main = document.querySelector("[data-events]");
  if (main) follow(main);
  if (document.getElementById("f-group")) catalogue();
});
"""
