// The page's only script, and optional: every page works without it. It filters the subject list as
// you type or choose a level, mode or order (asking the server for the same page the form would),
// filters a field tree, numbers the check's lines, and shows copy buttons. Loaded from a file because the Content-Security-Policy allows no inline script.
"use strict";

function debounce(fn, ms) {
  let timer = null;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

function liveSubjectSearch() {
  const form = document.getElementById("subject-search");
  if (!form || !document.getElementById("subject-results")) return;
  let latest = 0;
  const refresh = debounce(async () => {
    const params = new URLSearchParams(new FormData(form));
    params.delete("page");
    for (const [key, value] of [...params.entries()]) {
      if (value === "" || (key === "sort" && value === "name")) params.delete(key);
    }
    const url = form.action + "?" + params.toString();
    const ticket = ++latest;
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!response.ok || ticket !== latest) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.getElementById("subject-results");
    const shown = document.getElementById("subject-results");
    if (fresh && shown && ticket === latest) {
      shown.replaceWith(document.importNode(fresh, true));
      history.replaceState(null, "", url);
    }
  }, 200);
  form.addEventListener("input", refresh);
  form.addEventListener("change", refresh);
}

function treeFilters() {
  for (const tools of document.querySelectorAll(".tree-tools")) {
    tools.hidden = false;
    const input = tools.querySelector(".tree-filter");
    const table = document.getElementById(input.dataset.tree);
    input.addEventListener("input", () => {
      const wanted = input.value.trim().toLowerCase();
      for (const row of table.tBodies[0].rows) {
        const match = !wanted || row.textContent.toLowerCase().includes(wanted) || row.title.toLowerCase().includes(wanted);
        row.classList.toggle("hidden-by-filter", !match);
      }
    });
  }
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  document.body.appendChild(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

function copyButtons() {
  for (const button of document.querySelectorAll("button.copy[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    if (!source) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await copyText(source.textContent);
        button.textContent = "Copied";
      } catch (error) {
        button.textContent = "Copy failed";
      }
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
  }
}

function lineNumbers() {
  // The check's text box with its line numbers beside it, so a finding's 12:15 is easy to find.
  const area = document.getElementById("schema-text");
  if (!area) return;
  const wrap = document.createElement("div");
  wrap.className = "numbered";
  const gutter = document.createElement("pre");
  gutter.className = "gutter";
  gutter.id = "schema-gutter";
  gutter.setAttribute("aria-hidden", "true");
  area.parentNode.insertBefore(wrap, area);
  wrap.append(gutter, area);
  area.wrap = "off";
  const update = () => {
    const count = area.value.split("\n").length;
    gutter.textContent = Array.from({ length: count }, (_, i) => String(i + 1)).join("\n");
    gutter.scrollTop = area.scrollTop;
  };
  area.addEventListener("input", update);
  area.addEventListener("scroll", () => { gutter.scrollTop = area.scrollTop; });
  update();
}

document.addEventListener("DOMContentLoaded", () => {
  liveSubjectSearch();
  lineNumbers();
  treeFilters();
  copyButtons();
});
