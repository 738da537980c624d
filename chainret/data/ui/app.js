// chainret /ui: the ask box, the token kept in sessionStorage, verify. No framework, no build step.
// Every piece of catalog or trace data arrives as HTML the server escaped (POST /ui/ask, GET /ui/patterns)
// or is written with textContent here; nothing from data is ever a URL, a handler or a style.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = "chainret.token";
  let lastResponse = null; // the /ask response (AskOut) the page shows, trace included

  function headers() {
    const h = { "Content-Type": "application/json" };
    const token = $("token").value.trim();
    if (token) h["Authorization"] = "Bearer " + token;
    return h;
  }

  async function call(path, body) {
    const init = { method: body === undefined ? "GET" : "POST", headers: headers(), credentials: "omit", cache: "no-store" };
    if (body !== undefined) init.body = JSON.stringify(body);
    const r = await fetch(path, init);
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok) {
      const err = (data && data.error) || { code: "http_" + r.status, message: r.statusText || "request failed" };
      throw err;
    }
    return data;
  }

  function showError(el, err) {
    el.textContent = "";
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = (err.code || "error") + ": " + (err.message || String(err));
    el.appendChild(p);
  }

  function who() {
    $("who").textContent = $("token").value.trim() ? "as the token's principal" : "anonymous (public)";
  }

  // The patterns' HTML as last shown. A token typed and then left (its change event fires on the blur, which may be
  // the mousedown of a click on a phrasing) reloads the patterns; where they are the same, the DOM is left alone, so
  // the button under the pointer, the open groups and the filter's words stay.
  let shownPatterns = null;

  async function loadPatterns() {
    const box = $("patterns");
    try {
      const data = await call("/ui/patterns");
      if (data.patterns_html !== shownPatterns) {
        box.innerHTML = data.patterns_html;
        shownPatterns = data.patterns_html;
      }
      const select = $("view");
      const keep = select.value;
      select.innerHTML = data.views_html;
      if (keep && Array.from(select.options).some((o) => o.value === keep)) select.value = keep;
      $("asof-label").hidden = !data.as_of;
      box.dataset.loads = String(Number(box.dataset.loads || 0) + 1); // how many times it was (re)loaded
    } catch (err) {
      shownPatterns = null;
      showError(box, err);
    }
  }

  async function ask(ev) {
    ev.preventDefault();
    const out = $("result");
    const body = { request: $("request").value };
    const asof = $("asof-label").hidden ? "" : $("asof").value; // YYYY-MM-DD: the view as of that date
    if (asof) body.view = asof;
    else if ($("view").value) body.view = $("view").value;
    const viewer = $("viewer").value.trim();
    if (viewer) body.viewer = viewer;
    $("verify").disabled = true;
    $("verify-result").textContent = "";
    out.setAttribute("aria-busy", "true");
    try {
      const data = await call("/ui/ask", body);
      lastResponse = data.response;
      out.innerHTML = data.html;
      $("verify").disabled = false;
    } catch (err) {
      lastResponse = null;
      showError(out, err);
    } finally {
      out.removeAttribute("aria-busy");
    }
  }

  const STATUS_WORDS = {
    verified: "verified: the evidence is intact and a replay gives the same trace",
    evidence_intact: "evidence intact: the catalog changed elsewhere, but this trace still holds",
    mismatch: "mismatch: the trace no longer matches the catalog",
  };

  async function verify() {
    const box = $("verify-result");
    box.textContent = "verifying…";
    if (!lastResponse) return;
    try {
      const v = await call("/trace/verify", lastResponse.trace);
      box.textContent = "";
      const s = document.createElement("p");
      s.className = v.status;
      s.id = "verify-status";
      s.dataset.status = v.status;
      s.textContent = STATUS_WORDS[v.status] || v.status;
      box.appendChild(s);
      if (v.differences && v.differences.length) {
        const d = v.differences[0];
        const p = document.createElement("p");
        p.id = "verify-first";
        p.textContent = "first differing field: " + d.field + " (" + d.kind + "): " + d.message;
        box.appendChild(p);
      }
    } catch (err) {
      showError(box, err);
    }
  }

  function pickPhrasing(ev) {
    const b = ev.target.closest("button[data-phrasing]");
    if (!b) return;
    const input = $("request");
    input.value = b.dataset.phrasing;
    input.focus();
    const open = input.value.indexOf("{");
    const close = input.value.indexOf("}", open);
    if (open >= 0 && close > open) input.setSelectionRange(open, close + 1);
  }

  // The patterns come grouped by the relation they follow first, each group a collapsed <details>. The filter box
  // shows the patterns whose text (name, relations, phrasings) holds every word typed, and opens their groups.
  function filterPatterns(ev) {
    if (!ev.target || ev.target.id !== "pattern-filter") return;
    const words = ev.target.value.toLowerCase().split(/\s+/).filter(Boolean);
    $("patterns").querySelectorAll("details.pgroup").forEach(function (group) {
      let shown = 0;
      group.querySelectorAll("li").forEach(function (li) {
        const text = li.textContent.toLowerCase();
        li.hidden = !words.every(function (w) { return text.includes(w); });
        if (!li.hidden) shown += 1;
      });
      group.hidden = shown === 0;
      group.open = words.length > 0 && shown > 0;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    const token = $("token");
    token.value = window.sessionStorage.getItem(TOKEN_KEY) || "";
    token.addEventListener("change", function () {
      const v = token.value.trim();
      if (v) window.sessionStorage.setItem(TOKEN_KEY, v); else window.sessionStorage.removeItem(TOKEN_KEY);
      who();
      loadPatterns();
    });
    $("ask-form").addEventListener("submit", ask);
    $("verify").addEventListener("click", verify);
    $("patterns").addEventListener("click", pickPhrasing);
    $("patterns").addEventListener("input", filterPatterns);
    $("result").addEventListener("click", pickPhrasing);  // a no_pattern answer's closest phrasings
    who();
    loadPatterns();
  });
})();
