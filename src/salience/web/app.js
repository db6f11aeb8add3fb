// salience's web UI: a page over the /v1 API. Every text from the store is put in the page as
// text (textContent), never as HTML, so a memory that contains markup is shown, not run.
"use strict";

const main = document.getElementById("main");
// Every profile's types (from /v1/profiles once signed in): the filters and the legend.
let TYPES = ["observation", "insight", "decision", "heuristic", "procedure", "preference", "summary"];
// The profiles' names, the default first (from /v1/profiles: the server's registry).
let PROFILES = [];
let session = { authenticated: false, local: false };
let flash = null;  // a write's outcome, shown on the page drawn after it
// The route being drawn (a count): a page that was still loading when another was asked for
// draws nothing over the newer one, and only the newest marks the page painted.
let routing = 0;
function drawn(mine) { return mine === routing; }

// ---- small helpers ------------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key === "style") setStyle(node, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Styles go through the CSSOM, one property at a time: the page's CSP (style-src 'self')
// refuses a style attribute, which would leave bars full width and colours unset.
function setStyle(node, text) {
  for (const rule of String(text).split(";")) {
    const at = rule.indexOf(":");
    if (at > 0) node.style.setProperty(rule.slice(0, at).trim(), rule.slice(at + 1).trim());
  }
}

function cookie(name) {
  const found = document.cookie.split("; ").find((c) => c.startsWith(name + "="));
  return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
}

// Another memory system's store or export, uploaded as it is (a folder: as a zip); the
// systems are the server's importers (GET /v1/import).
let SYSTEMS = [];
// The spaces the signed-in user has a right on (from /v1/spaces): the switcher's choices.
let SPACES = [];
const UPLOADS = { zip: "application/zip", json: "application/json", af: "application/json", csv: "text/csv", md: "text/markdown" };

// A long upload runs as a job on the server: it answers 202 at once (we ask it to) and the
// job is followed until it is done, its progress shown through onProgress(done, total).
async function upload(path, file, onProgress) {
  const ending = file.name.includes(".") ? file.name.split(".").pop().toLowerCase() : "";
  const headers = { "X-CSRF-Token": cookie("salience_csrf"), "Content-Type": UPLOADS[ending] || "application/octet-stream", "Prefer": "respond-async" };
  const answer = await fetch(path, { method: "POST", headers, body: file, credentials: "same-origin" });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) {
    const error = new Error((data.error && data.error.message) || `HTTP ${answer.status}`);
    error.status = answer.status;
    throw error;
  }
  return answer.status === 202 ? followJob(data, onProgress) : data;
}

async function followJob(job, onProgress) {
  while (job.state === "queued" || job.state === "running") {
    if (onProgress) onProgress(job.done, job.total);
    await new Promise((resolve) => setTimeout(resolve, 400));
    job = await api("GET", job.href);
  }
  if (job.state === "failed") {
    const error = new Error(job.error.message);
    error.status = job.error.status;
    throw error;
  }
  return job.result;
}

async function api(method, path, body) {
  const headers = { "X-CSRF-Token": cookie("salience_csrf") };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const answer = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) {
    const error = new Error((data.error && data.error.message) || `HTTP ${answer.status}`);
    error.status = answer.status;
    error.gate = data.error && data.error.gate;
    error.code = data.error && data.error.code;
    throw error;
  }
  return data;
}

// A type's colour: the stylesheet's for the common types, else one drawn from its name (the
// same every time), so that every profile's types are told apart.
function typeColor(type) {
  const named = getComputedStyle(document.documentElement).getPropertyValue(`--${type}`).trim();
  if (named) return named;
  let hash = 0;
  for (const char of String(type)) hash = (hash * 31 + char.codePointAt(0)) >>> 0;
  return `hsl(${hash % 360}, 55%, 38%)`;
}

function when(iso) { return iso ? iso.replace("T", " ").slice(0, 16) : ""; }
function num(value, digits = 3) { return value === null || value === undefined ? "–" : Number(value).toFixed(digits); }
function params(values) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (Array.isArray(value)) value.forEach((v) => query.append(key, v));
    else if (value !== "" && value !== null && value !== undefined) query.set(key, value);
  }
  return query.toString();
}

function show(...nodes) {
  main.replaceChildren(...nodes.filter((node) => node !== null && node !== undefined));  // (no "null" text)
  main.focus({ preventScroll: true });
}

function outcomeBox(text, ok) { return h("div", { class: `outcome ${ok ? "ok" : "bad"}`, role: "status" }, text); }
function failure(error) {
  const gate = error.gate ? `rejected by the ${error.gate} gate: ` : "";
  return outcomeBox(`${gate}${error.message}`, false);
}

function memoryRow(record, extra) {
  return h("div", { class: "memory", "data-id": record.id },
    h("a", { class: "content", href: `#/memory/${record.id}` }, record.content),
    h("div", { class: "meta" },
      h("span", { class: "type", style: `color:${typeColor(record.type)}` }, record.type),
      h("span", {}, when(record.created_at)),
      record.project ? h("span", {}, `project ${record.project}`) : null,
      `importance ${num(record.importance, 2)}`,
      record.layer && record.layer !== "local" ? h("span", { class: "tag" }, `[${record.layer}]`) : null,
      record.space ? h("span", { class: "tag space" }, `[${record.space}]`) : null,
      record.agent ? h("span", { class: "tag" }, `agent ${record.agent}`) : null,
      record.author ? h("span", { class: "muted" }, `by ${record.author}`) : null,
      (record.tags || []).map((t) => h("span", { class: "tag" }, t))),
    extra || null);
}

function breakdownBars(parts) {
  const max = Math.max(1e-9, ...parts.map((p) => Math.abs(p.weight * p.value)));
  return h("div", { class: "bars", role: "img", "aria-label": "score breakdown" },
    parts.flatMap((p) => {
      const contribution = p.weight * p.value;
      return [
        h("span", {}, p.name),
        h("div", {}, h("div", { class: `bar${contribution < 0 ? " neg" : ""}`, style: `width:${(100 * Math.abs(contribution)) / max}%` })),
        h("span", { class: "muted" }, `${num(p.weight, 2)}×${num(p.value, 3)}`),
      ];
    }));
}

// ---- pages ------------------------------------------------------------------------------------

async function dashboard() {
  const mine = routing;
  const [stats, activity, audit] = await Promise.all([
    api("GET", "/v1/stats"), api("GET", "/v1/activity?days=30"), api("GET", "/v1/audit?limit=15"),
  ]);
  if (!drawn(mine)) return;
  const maxDay = Math.max(1, ...activity.days.map((d) => d.created));
  const counts = (title, values) => h("div", { class: "panel" }, h("h2", {}, title),
    h("table", {}, Object.entries(values).map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", {}, String(v))))));
  const plan = h("div", {});
  const lifecycle = (path, label) => h("button", {
    onclick: async () => {
      plan.replaceChildren(h("p", { class: "muted" }, "Working…"));
      try {
        const preview = await api("POST", path, { dry_run: true });
        const rederived = path.endsWith("consolidate") ? preview.groups.filter((g) => g.action === "rederive").length : 0;
        const changes = path.endsWith("consolidate") ? `${preview.groups.length} groups of ${preview.candidates} candidates` +
          (rederived ? ` (${rederived} stale insights re-derived)` : "") :
          `${preview.decayed.length} decayed, ${preview.forgotten.length} forgotten, ${Object.values(preview.orphans).reduce((a, b) => a + b, 0)} orphan rows`;
        plan.replaceChildren(h("p", {}, `${label} (dry run): would change ${changes}.`),
          h("button", { class: "primary", onclick: async () => {
            try { await api("POST", path, { dry_run: false }); plan.replaceChildren(outcomeBox(`${label}: done.`, true)); }
            catch (error) { plan.replaceChildren(failure(error)); }
          } }, `Apply ${label.toLowerCase()}`));
      } catch (error) { plan.replaceChildren(failure(error)); }
    },
  }, `${label}…`);
  show(
    h("h1", {}, "Dashboard"),
    h("div", { class: "grid" },
      h("div", { class: "panel" }, h("h2", {}, "Memories"), h("div", { class: "big", id: "total" }, String(stats.total)),
        h("p", { class: "muted" }, `store ${stats.store}, schema ${stats.schema_version}`),
        h("p", { class: "muted" }, `embedder ${stats.embedder || "none (full text only)"}`)),
      counts("By status", stats.by_status),
      counts("By type", stats.by_type),
      h("div", { class: "panel" }, h("h2", {}, "Layers"),
        stats.layers.length ? h("table", {}, stats.layers.map((l) => h("tr", {}, h("td", {}, l.name), h("td", {}, l.kind),
          h("td", { class: "muted" }, stats.unavailable_layers[l.name] ? "unavailable" : "mounted")))) : h("p", { class: "muted" }, "Only the local store."))),
    h("div", { class: "panel", style: "margin-top:16px" }, h("h2", {}, "Memories added per day (30 days)"),
      h("div", { class: "chart", role: "img", "aria-label": "memories per day" },
        activity.days.map((d) => h("div", { title: `${d.date}: ${d.created}`, style: `height:${(100 * d.created) / maxDay}%` })))),
    h("div", { class: "grid", style: "margin-top:16px" },
      h("div", { class: "panel" }, h("h2", {}, "Recent writes and rejections"),
        h("table", {}, h("tr", {}, h("th", {}, "when"), h("th", {}, "action"), h("th", {}, "memory"), h("th", {}, "detail")),
          audit.map((e) => h("tr", {}, h("td", {}, when(e.at)), h("td", {}, e.action),
            h("td", {}, e.memory_id ? h("a", { href: `#/memory/${e.memory_id}` }, e.memory_id.slice(-8)) : "–"),
            h("td", { class: "muted" }, e.action === "reject" ? `${e.detail.gate}: ${e.detail.reason}` : Object.keys(e.detail).join(", ")))))),
      h("div", { class: "panel" }, h("h2", {}, "Maintenance"),
        h("p", { class: "muted" }, "Each shows its plan first; nothing changes until you apply it."),
        h("div", { class: "row" }, lifecycle("/v1/consolidate", "Consolidate"), lifecycle("/v1/maintain", "Maintain")), plan)));
}

function createPanel() {
  const answer = h("div", { id: "created" });
  const text = h("textarea", { "aria-label": "new memory", placeholder: "What should be remembered? (secrets are refused)" });
  const type = h("select", { "aria-label": "new memory type" }, TYPES.map((t) => h("option", { value: t, selected: t === "observation" }, t)));
  const tags = h("input", { "aria-label": "new memory tags", placeholder: "tags, comma separated", size: 28 });
  const remember = async () => {
    if (!text.value.trim()) { answer.replaceChildren(outcomeBox("Write something to remember first.", false)); return; }
    const body = { content: text.value, type: type.value, tags: tags.value.split(",").map((t) => t.trim()).filter(Boolean) };
    try {
      const made = await api("POST", "/v1/memories", body);
      const said = `${made.outcome}${made.reason ? ` (${made.reason})` : ""}`;
      answer.replaceChildren(h("div", { class: `outcome ${made.outcome === "created" ? "ok" : "bad"}`, role: "status" },
        said, " ", made.id ? h("a", { href: `#/memory/${made.id}` }, made.id) : null));
      if (made.outcome === "created") { text.value = ""; tags.value = ""; }
    } catch (error) { answer.replaceChildren(failure(error)); }
  };
  return h("details", { class: "panel" }, h("summary", {}, "Remember something new"), text,
    h("div", { class: "row", style: "margin-top:8px" }, type, tags, h("button", { class: "primary", onclick: remember }, "Remember")), answer);
}

function importPanel() {
  const answer = h("div", { id: "imported" });
  const system = h("select", { "aria-label": "import from" }, SYSTEMS.map((name) => h("option", { value: name }, name)));
  const file = h("input", { type: "file", "aria-label": "store or export file" });
  const run = (dryRun) => async () => {
    if (!file.files.length) { answer.replaceChildren(outcomeBox("Choose the store or export file first (a folder: zip it).", false)); return; }
    try {
      const shown = (done, total) => answer.replaceChildren(h("div", { class: "muted", role: "status" },
        total ? `Importing… ${done} of ${total}` : "Importing…"));
      shown(0, 0);
      const report = await upload(`/v1/import/${encodeURIComponent(system.value)}${dryRun ? "?dry_run=true" : ""}`, file.files[0], shown);
      const kinds = Object.entries(report.by_type).map(([t, n]) => `${n} ${t}`).join(", ") || "nothing";
      const head = dryRun ? `${report.found} found; would import ${kinds}` :
        `${report.found} found: ${report.created} created, ${report.updated} updated, ${report.unchanged} unchanged (${kinds})`;
      const lines = [
        ...report.merged.map((m) => `merged ${m.source_id} (the same text as ${m.into})`),
        ...report.refused.map((r) => `refused ${r.source_id}: ${r.reason}`),
        ...report.skipped.map((r) => `skipped ${r.what}: ${r.reason}`),
        ...Object.entries(report.unmappable).map(([name, n]) => `not kept: ${name} (${n})`),
      ];
      // (replaceChildren, unlike h, writes a null as the text "null": give it nodes only)
      answer.replaceChildren(outcomeBox(head, true), ...(lines.length ? [h("ul", { class: "report" }, lines.map((l) => h("li", {}, l)))] : []));
    } catch (error) { answer.replaceChildren(failure(error)); }
  };
  return h("details", { class: "panel" }, h("summary", {}, "Bring memories over from another system"),
    h("div", { class: "muted" }, "Upload its store or export (a folder as a zip). Secrets are refused, what you have already is merged, and importing twice adds nothing."),
    h("div", { class: "row" }, system, file,
      h("button", { onclick: run(true) }, "Preview"), h("button", { class: "primary", onclick: run(false) }, "Import")), answer);
}

async function memories(query) {
  const state = { q: query.get("q") || "", type: query.get("type") || "", tag: query.get("tag") || "", project: query.get("project") || "",
    status: query.get("status") || "current", profile: query.get("profile") || PROFILES[0], offset: Number(query.get("offset") || 0), user: query.get("user") || "",
    space: query.get("space") || "", agent: query.get("agent") || "" };
  const go = (changes) => { location.hash = `#/memories?${params({ ...state, ...changes })}`; };
  const field = (name, label, node) => h("label", {}, label, node);
  const text = (name, placeholder) => h("input", { name, value: state[name], placeholder });
  const form = h("form", { class: "filters", onsubmit: (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    go({ ...data, offset: 0 });
  } },
    field("q", "Search", h("input", { name: "q", value: state.q, placeholder: "full-text + vector search", size: 34, "aria-label": "search" })),
    field("type", "Type", h("select", { name: "type" }, h("option", { value: "" }, "any"), TYPES.map((t) => h("option", { value: t, selected: t === state.type }, t)))),
    field("tag", "Tag", text("tag", "project:api")),
    field("project", "Project", text("project", "")),
    field("status", "Status", h("select", { name: "status" }, ["current", "superseded", "forgotten", "all"].map((s) => h("option", { value: s, selected: s === state.status }, s)))),
    field("profile", "Profile", h("select", { name: "profile", "aria-label": "profile" }, PROFILES.map((p) => h("option", { value: p, selected: p === state.profile }, p)))),
    field("space", "Space", h("select", { name: "space", "aria-label": "space" },
      h("option", { value: "" }, state.q ? "mine and my spaces" : "mine"),
      SPACES.map((x) => h("option", { value: x.name, selected: x.name === state.space }, `${x.name} (${x.right})`)))),
    field("agent", "Agent", text("agent", "any")),
    session.admin ? field("user", "User (admin)", text("user", "* for everyone")) : null,
    h("button", { class: "primary", type: "submit" }, "Show"));
  const list = h("div", { class: "panel" }, h("p", { class: "muted" }, "Loading…"));
  const done = h("div", { id: "outcome" }, flash ? outcomeBox(flash, true) : null);
  flash = null;
  show(h("h1", {}, "Memories"), done, createPanel(), importPanel(), form, list);
  const headers = state.user ? { "X-Salience-User": state.user } : {};
  try {
    if (state.q) {
      const body = { query: state.q, limit: 20, profile: state.profile, touch: false, types: state.type ? [state.type] : [], tags: state.tag ? [state.tag] : [] };
      if (state.project) body.project = state.project;
      if (state.space) body.space = state.space;
      if (state.agent) body.agent = state.agent;
      const found = await apiAs("POST", "/v1/search", body, headers);
      const hits = found.hits;
      const degraded = found.degraded.map((note) => h("p", { class: "outcome degraded" }, `Degraded: ${note.detail} (fix: ${note.fix})`));
      list.replaceChildren(...degraded, hits.length ? h("div", {}, hits.map((hit) => memoryRow(hit.record, h("div", { class: "explain" },
        h("span", {}, `#${hit.rank} score ${num(hit.score, 4)} · bm25 ${num(hit.lexical, 3)} · cosine ${num(hit.vector, 3)} · fused ${num(hit.relevance && hit.relevance.fused, 4)}${hit.relevance && hit.relevance.context ? ` (own ${num(hit.relevance.own, 4)}, lifted as a ${hit.relevance.context})` : ""}${hit.note ? ` · ${hit.note}` : ""}`),
        breakdownBars(hit.breakdown))))) : h("p", { class: "muted" }, "No matches."));
      return;
    }
    const page = await apiAs("GET", `/v1/memories?${params({ type: state.type, tag: state.tag ? [state.tag] : [], project: state.project, status: state.status, space: state.space, agent: state.agent, limit: 25, offset: state.offset })}`, undefined, headers);
    list.replaceChildren(page.length ? h("div", {}, page.map((r) => memoryRow(r))) : h("p", { class: "muted" }, "No memories."),
      h("div", { class: "pager" },
        h("button", { disabled: state.offset === 0, onclick: () => go({ offset: Math.max(0, state.offset - 25) }) }, "← Newer"),
        h("span", { class: "muted" }, `${state.offset + 1}–${state.offset + page.length}`),
        h("button", { disabled: page.length < 25, onclick: () => go({ offset: state.offset + 25 }) }, "Older →")));
  } catch (error) { list.replaceChildren(failure(error)); }
}

async function apiAs(method, path, body, headers) {
  if (!headers || !Object.keys(headers).length) return api(method, path, body);
  const all = { "X-CSRF-Token": cookie("salience_csrf"), ...headers };
  if (body !== undefined) all["Content-Type"] = "application/json";
  const answer = await fetch(path, { method, headers: all, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await answer.json();
  if (!answer.ok) throw new Error(data.error ? data.error.message : `HTTP ${answer.status}`);
  return data;
}

async function memory(id) {
  const mine = routing;
  const [record, chain, derived, audit] = await Promise.all([
    api("GET", `/v1/memories/${encodeURIComponent(id)}`), api("GET", `/v1/memories/${encodeURIComponent(id)}/history`),
    api("GET", `/v1/memories/${encodeURIComponent(id)}/derived`), api("GET", `/v1/audit?${params({ memory_id: id, limit: 50 })}`),
  ]);
  if (!drawn(mine)) return;
  const result = h("div", { id: "outcome" }, flash ? outcomeBox(flash, true) : null);
  flash = null;
  const act = async (call) => {
    try {
      const answer = await call();
      flash = `${answer.outcome}${answer.id ? ` ${answer.id}` : ""}${answer.reason ? ` (${answer.reason})` : ""}`;
      const next = answer.id && answer.outcome === "created" ? `#/memory/${answer.id}` : location.hash;
      if (next === location.hash) await route(next); else location.hash = next;
    } catch (error) { result.replaceChildren(failure(error)); }
  };
  const current = record.valid_until === null && record.forget_reason === null;
  const edit = h("textarea", { "aria-label": "new text" }, record.content);
  const fields = h("dl", { class: "fields" }, Object.entries(record).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, Array.isArray(v) ? v.join(", ") : v === null ? "–" : String(v))]));
  show(
    h("p", {}, h("a", { href: "#/memories" }, "← Memories")),
    h("h1", {}, "Memory ", h("span", { class: "muted" }, record.id)),
    h("div", { class: "panel" }, h("div", { class: "memory" }, h("div", { class: "content", id: "memory-content" }, record.content))),
    result,
    current ? h("div", { class: "panel", style: "margin-top:12px" }, h("h2", {}, "Change it"), edit,
      h("div", { class: "row", style: "margin-top:8px" },
        h("button", { class: "primary", onclick: () => act(() => api("POST", `/v1/memories/${id}/supersede`, { content: edit.value })) }, "Supersede (keep the old version)"),
        h("button", { onclick: () => act(() => api("PATCH", `/v1/memories/${id}`, { content: edit.value })) }, "Edit in place"),
        h("button", { onclick: () => act(() => api("POST", `/v1/memories/${id}/feedback`, { used: true })) }, "Echo (it helped)"),
        h("button", { onclick: () => act(() => api("POST", `/v1/memories/${id}/feedback`, { used: false })) }, "Fizzle (it did not)"),
        h("button", { class: "danger", onclick: () => {
          const reason = prompt("Forget this memory? Give a reason:", "no longer true");
          if (reason) act(() => api("POST", `/v1/memories/${id}/forget`, { reason }));
        } }, "Forget…"))) : h("p", { class: "muted" }, `This memory is ${record.forget_reason ? "forgotten" : "superseded"}.`),
    h("div", { class: "row", style: "margin-top:8px" },
      h("button", { class: "danger", onclick: async () => {
        if (!confirm("Delete this memory for good? It cannot be undone (forget keeps it readable).")) return;
        try {
          const answer = await api("DELETE", `/v1/memories/${id}`);
          flash = `${answer.outcome} ${answer.id}`;
          location.hash = "#/memories";
        } catch (error) { result.replaceChildren(failure(error)); }
      } }, "Delete for good…")),
    h("div", { class: "grid", style: "margin-top:16px" },
      h("div", { class: "panel" }, h("h2", {}, "Versions (newest first)"), h("div", { id: "chain" }, chain.map((r) => memoryRow(r)))),
      h("div", { class: "panel" }, h("h2", {}, "Derived from / derives"),
        record.derived_from.length ? h("p", {}, "From: ", record.derived_from.map((d) => h("a", { href: `#/memory/${d}` }, d.slice(-8), " "))) : h("p", { class: "muted" }, "Derived from nothing."),
        derived.length ? h("div", {}, derived.map((r) => memoryRow(r))) : h("p", { class: "muted" }, "Nothing derives from it."),
        h("h2", {}, "Entities"), record.entities.length ? h("p", {}, record.entities.map((e) => h("span", { class: "tag" }, e))) : h("p", { class: "muted" }, "None."))),
    h("div", { class: "panel", style: "margin-top:16px" }, h("h2", {}, "Every field"), fields),
    h("div", { class: "panel", style: "margin-top:16px" }, h("h2", {}, "Audit"),
      h("table", {}, audit.map((e) => h("tr", {}, h("td", {}, when(e.at)), h("td", {}, e.action), h("td", {}, e.actor), h("td", { class: "muted" }, JSON.stringify(e.detail)))))));
}

async function briefing(query) {
  const state = { left: query.get("left") || "salience", right: query.get("right") || "eidet", project: query.get("project") || "",
    session: query.get("session") || "", budget: query.get("budget") || "", user: query.get("user") || "" };
  const form = h("form", { class: "filters", onsubmit: (event) => { event.preventDefault(); location.hash = `#/briefing?${params(Object.fromEntries(new FormData(form)))}`; } },
    h("label", {}, "Profile", h("select", { name: "left" }, PROFILES.map((p) => h("option", { value: p, selected: p === state.left }, p)))),
    h("label", {}, "Beside", h("select", { name: "right" }, PROFILES.map((p) => h("option", { value: p, selected: p === state.right }, p)))),
    h("label", {}, "Project", h("input", { name: "project", value: state.project })),
    h("label", {}, "Session", h("input", { name: "session", value: state.session })),
    h("label", {}, "Token budget", h("input", { name: "budget", value: state.budget, type: "number", min: 1, placeholder: "profile's" })),
    session.admin ? h("label", {}, "User (admin)", h("input", { name: "user", value: state.user })) : null,
    h("button", { class: "primary", type: "submit" }, "Preview"));
  const side = async (profile) => {
    const body = { profile, record: false };  // a preview: not in the briefing log
    if (state.project) body.project = state.project;
    if (state.session) body.session_id = state.session;
    if (state.budget) body.budget = Number(state.budget);
    const b = await apiAs("POST", "/v1/briefing", body, state.user ? { "X-Salience-User": state.user } : {});
    const kept = b.manifest.filter((e) => e.kept).length;
    return h("div", { class: "panel briefing-side", "data-profile": profile }, h("h2", {}, `${profile}: ${b.tokens} tokens${b.overflow ? " (overflow)" : ""}`),
      h("pre", { class: "briefing" }, b.text || "(empty: nothing would be injected)"),
      h("h2", {}, `Manifest: ${kept} kept, ${b.manifest.length - kept} dropped`),
      h("table", { class: "manifest" }, h("tr", {}, h("th", {}, "memory"), h("th", {}, "type"), h("th", {}, "score"), h("th", {}, "fate")),
        b.manifest.map((e) => h("tr", {}, h("td", {}, h("a", { href: `#/memory/${e.id}` }, e.id.slice(-8))), h("td", {}, e.type), h("td", {}, num(e.score, 4)),
          h("td", { class: e.kept ? "kept" : "dropped" }, e.kept ? `kept in ${e.section} (${e.tokens} tokens)` : `dropped: ${e.reason}`)))));
  };
  const columns = h("div", { class: "columns" }, h("p", {}, "Loading…"));
  show(h("h1", {}, "Briefing preview"), form, h("p", { class: "muted" }, "Exactly the text that would be injected at session start."), columns);
  try { columns.replaceChildren(...(await Promise.all([side(state.left), side(state.right)]))); }
  catch (error) { columns.replaceChildren(failure(error)); }
}

async function graph(query) {
  const state = { type: query.get("type") || "", project: query.get("project") || "", limit: query.get("limit") || "300" };
  const form = h("form", { class: "filters", onsubmit: (event) => { event.preventDefault(); location.hash = `#/graph?${params(Object.fromEntries(new FormData(form)))}`; } },
    h("label", {}, "Type", h("select", { name: "type" }, h("option", { value: "" }, "any"), TYPES.map((t) => h("option", { value: t, selected: t === state.type }, t)))),
    h("label", {}, "Project", h("input", { name: "project", value: state.project })),
    h("label", {}, "Node limit", h("input", { name: "limit", value: state.limit, type: "number", min: 1, max: 5000 })),
    h("button", { class: "primary", type: "submit" }, "Draw"));
  const canvas = h("canvas", { id: "graph", "aria-label": "knowledge graph", tabindex: 0 });
  const info = h("p", { class: "muted", id: "graph-info" }, "Drag to pan, wheel to zoom, drag a node to move it, click a memory to open it.");
  show(h("h1", {}, "Knowledge graph"), form,
    h("div", { class: "legend" }, TYPES.map((t) => h("span", {}, h("span", { class: "dot", style: `background:${typeColor(t)}` }), t)),
      h("span", {}, h("span", { class: "dot", style: "background:#9aa4ae" }), "entity")), canvas, info);
  const data = await api("GET", `/v1/graph?${params({ ...state })}`);
  drawGraph(canvas, data, info);
}

function drawGraph(canvas, data, info) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth, height = canvas.clientHeight;
  canvas.width = width * ratio; canvas.height = height * ratio;
  const ctx = canvas.getContext("2d");
  const nodes = data.nodes.map((n, i) => ({ ...n, x: Math.cos(i) * (50 + i), y: Math.sin(i) * (50 + i), vx: 0, vy: 0 }));
  const index = new Map(nodes.map((n) => [n.id, n]));
  const edges = data.edges.map((e) => ({ ...e, a: index.get(e.source), b: index.get(e.target) })).filter((e) => e.a && e.b);
  const radius = (n) => n.kind === "entity" ? 4 : 4 + 8 * (n.importance || 0);
  const byImportance = [...nodes].sort((a, b) => (b.kind === "memory") - (a.kind === "memory") || (b.importance || 0) - (a.importance || 0));
  let labelBoxes = [];
  const CELL = 120;  // repulsion reaches one cell around a node: a grid keeps it near-linear
  const STEPS = 200;
  for (let step = 0; step < STEPS; step += 1) {  // a force layout, cooled
    const heat = 1 - step / STEPS;
    const grid = new Map();
    for (const n of nodes) {
      const key = `${Math.floor(n.x / CELL)},${Math.floor(n.y / CELL)}`;
      if (!grid.has(key)) grid.set(key, []);
      grid.get(key).push(n);
    }
    for (const a of nodes) {
      const cx = Math.floor(a.x / CELL), cy = Math.floor(a.y / CELL);
      for (let gx = cx - 1; gx <= cx + 1; gx += 1) {
        for (let gy = cy - 1; gy <= cy + 1; gy += 1) {
          for (const b of grid.get(`${gx},${gy}`) || []) {
            if (a === b) continue;
            const dx = a.x - b.x, dy = a.y - b.y, d2 = dx * dx + dy * dy + 0.01;
            if (d2 > CELL * CELL) continue;
            const force = 200 / d2;  // each pair is met from both sides
            a.vx += dx * force; a.vy += dy * force;
          }
        }
      }
    }
    for (const e of edges) {
      const dx = e.b.x - e.a.x, dy = e.b.y - e.a.y;
      e.a.vx += dx * 0.02; e.a.vy += dy * 0.02; e.b.vx -= dx * 0.02; e.b.vy -= dy * 0.02;
    }
    for (const n of nodes) { n.vx -= n.x * 0.002; n.vy -= n.y * 0.002; n.x += n.vx * heat; n.y += n.vy * heat; n.vx *= 0.5; n.vy *= 0.5; }
  }
  const view = { x: width / 2, y: height / 2, k: 1 };
  const toScreen = (n) => [view.x + n.x * view.k, view.y + n.y * view.k];
  function paint() {
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.lineWidth = 1;
    for (const e of edges) {
      const [x1, y1] = toScreen(e.a), [x2, y2] = toScreen(e.b);
      ctx.strokeStyle = e.relation === "mentions" ? "rgba(120,130,140,.25)" : e.relation === "supersedes" ? "rgba(191,87,0,.8)" : "rgba(130,80,223,.8)";
      ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    }
    for (const n of nodes) {
      const [x, y] = toScreen(n);
      ctx.globalAlpha = n.kind === "entity" ? 0.8 : 0.35 + 0.65 * (n.confidence === null ? 1 : n.confidence);
      ctx.fillStyle = n.kind === "entity" ? "#9aa4ae" : typeColor(n.type);
      ctx.beginPath(); ctx.arc(x, y, radius(n) * Math.sqrt(view.k), 0, Math.PI * 2); ctx.fill();
    }
    ctx.globalAlpha = 1;
    // Labels, most important first, each only where it overlaps no label already drawn: at
    // any zoom every label shown is readable; zooming in makes room for more.
    ctx.fillStyle = "#1f2328"; ctx.font = "11px system-ui, sans-serif";
    const placed = [];
    for (const n of byImportance) {
      const [x, y] = toScreen(n);
      if (x < -50 || y < 0 || x > width || y > height) continue;
      const label = n.label.length > 32 ? `${n.label.slice(0, 31)}…` : n.label;
      const left = x + radius(n) * Math.sqrt(view.k) + 3, box = [left, y - 8, left + ctx.measureText(label).width, y + 5];
      if (placed.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) continue;
      placed.push(box);
      ctx.fillText(label, left, y + 4);
    }
    labelBoxes = placed;
  }
  const hit = (mx, my) => nodes.find((n) => { const [x, y] = toScreen(n); return (x - mx) ** 2 + (y - my) ** 2 <= (radius(n) * Math.sqrt(view.k) + 3) ** 2; });
  let drag = null, moved = false;
  canvas.onpointerdown = (event) => { const n = hit(event.offsetX, event.offsetY); drag = { n, x: event.offsetX, y: event.offsetY }; moved = false; canvas.setPointerCapture(event.pointerId); };
  canvas.onpointermove = (event) => {
    if (!drag) { const n = hit(event.offsetX, event.offsetY); info.textContent = n ? `${n.kind === "entity" ? "entity" : n.type}: ${n.label}` : info.textContent; return; }
    const dx = event.offsetX - drag.x, dy = event.offsetY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 2) moved = true;
    if (drag.n) { drag.n.x += dx / view.k; drag.n.y += dy / view.k; } else { view.x += dx; view.y += dy; }
    drag.x = event.offsetX; drag.y = event.offsetY; paint();
  };
  canvas.onpointerup = () => { if (drag && drag.n && !moved && drag.n.kind === "memory") location.hash = `#/memory/${drag.n.id}`; drag = null; };
  canvas.onwheel = (event) => {
    event.preventDefault();
    const k = Math.min(8, Math.max(0.1, view.k * (event.deltaY < 0 ? 1.15 : 1 / 1.15)));
    view.x = event.offsetX - ((event.offsetX - view.x) * k) / view.k; view.y = event.offsetY - ((event.offsetY - view.y) * k) / view.k; view.k = k; paint();
  };
  canvas.graphNodes = () => nodes.map((n) => ({ id: n.id, kind: n.kind, xy: toScreen(n) }));  // for tests and tools
  canvas.graphLabels = () => labelBoxes.map((b) => [...b]);
  paint();
  info.textContent = `${nodes.filter((n) => n.kind === "memory").length} memories, ${nodes.filter((n) => n.kind === "entity").length} entities, ${edges.length} links. Drag to pan, wheel to zoom, click a memory to open it.`;
}

function login() {
  const key = h("input", { type: "password", name: "key", autocomplete: "off", "aria-label": "API key", size: 40 });
  const note = h("div", {});
  show(h("div", { class: "panel login" }, h("h1", {}, "Sign in"), h("p", { class: "muted" }, "This server needs an API key (salience keys create --user NAME). It is kept in an HttpOnly cookie."),
    h("form", { onsubmit: async (event) => {
      event.preventDefault();
      try { await api("POST", "/ui/login", { key: key.value }); await start(); } catch (error) { note.replaceChildren(failure(error)); }
    } }, key, " ", h("button", { class: "primary", type: "submit" }, "Sign in")), note));
}

// ---- quarantine -------------------------------------------------------------------------------

// Memories waiting for a person. Held: from an agent, a tool or an import, they read as
// orders to the agent; approve (into briefings) or reject (forgotten) each. Stale: a memory
// they were derived from changed since; confirm (still true) or forget each. Updates: a newer
// memory found to change an older one; replace (a supersession) or dismiss each pair.
async function quarantinePage() {
  const mine = routing;
  const [held, stale, updates] = await Promise.all([api("GET", "/v1/quarantine"), api("GET", "/v1/stale"), api("GET", "/v1/updates")]);
  const ids = [...new Set(updates.flatMap((u) => [u.new_id, u.old_id]))];
  const texts = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, (await api("GET", `/v1/memories/${encodeURIComponent(id)}`)).content])));
  if (!drawn(mine)) return;
  const said = h("div", { id: "decided" });
  const tagged = (record, prefix) => (record.tags.find((t) => t.startsWith(prefix)) || "").slice(prefix.length);
  const decide = (record, verb, done, body) => async () => {
    try {
      const [kind, action] = verb.split(" ");
      const answer = await api("POST", `/v1/${kind}/${encodeURIComponent(record.id)}/${action}`, body);
      flash = `${done} ${answer.id}`;
      await route("#/quarantine", true);
    } catch (error) { said.replaceChildren(failure(error)); }
  };
  const settle = (u, action, done) => async () => {
    try {
      await api("POST", `/v1/updates/${encodeURIComponent(u.new_id)}/${encodeURIComponent(u.old_id)}/${action}`);
      flash = `${done} ${u.old_id}`;
      await route("#/quarantine", true);
    } catch (error) { said.replaceChildren(failure(error)); }
  };
  const note = flash ? outcomeBox(flash, true) : null;
  flash = null;
  show(h("h1", {}, "Waiting for you"), note, said,
    h("h2", {}, "Held in quarantine"),
    h("p", { class: "muted" }, "Memories from an agent, a tool or an import whose text addresses the agent as a command (ignore your instructions, run this, send that). None reaches a briefing until you approve it. Your own memories are never held."),
    held.length ? h("div", { class: "panel", id: "held" }, held.map((record) => memoryRow(record,
      h("div", { class: "row held" },
        h("span", { class: "tag" }, `held: ${tagged(record, "quarantine:")}`), h("span", { class: "muted" }, `from ${record.source}`),
        h("button", { class: "primary", onclick: decide(record, "quarantine approve", "approved") }, "Approve"),
        h("button", { class: "danger", onclick: decide(record, "quarantine reject", "rejected") }, "Reject")))))
      : h("p", { class: "empty" }, "Nothing is held."),
    h("h2", {}, "Stale"),
    h("p", { class: "muted" }, "Memories derived from one that has changed since (superseded, rewritten or forgotten). They stay out of briefings until you confirm them or forget them."),
    stale.length ? h("div", { class: "panel", id: "stale" }, stale.map((record) => memoryRow(record,
      h("div", { class: "row" },
        h("span", { class: "tag" }, `its source was ${tagged(record, "stale:")}`),
        h("button", { class: "primary", onclick: decide(record, "stale confirm", "confirmed") }, "Still true"),
        h("button", { class: "danger", onclick: decide(record, "memories forget", "forgotten", { reason: "stale: its source changed" }) }, "Forget")))))
      : h("p", { class: "empty", id: "no-stale" }, "Nothing is stale."),
    h("h2", {}, "Updates"),
    h("p", { class: "muted" }, "A newer memory that says something different about the same thing as an older one (another value, a no, words of change). Until you decide, recall and briefings give the newer first. Replace: the older is superseded. Not an update: both stay."),
    updates.length ? h("div", { class: "panel", id: "updates" }, updates.map((u) => h("div", { class: "update", "data-new": u.new_id, "data-old": u.old_id },
      h("div", {}, h("span", { class: "tag" }, "new"), " ", texts[u.new_id]),
      h("div", {}, h("span", { class: "tag" }, "old"), " ", texts[u.old_id]),
      h("div", { class: "row" }, h("span", { class: "muted" }, `${u.why} (${num(u.confidence, 2)})`),
        h("button", { class: "primary", onclick: settle(u, "confirm", "replaced") }, "Replace"),
        h("button", { onclick: settle(u, "dismiss", "dismissed") }, "Not an update")))))
      : h("p", { class: "empty", id: "no-updates" }, "No updates wait."));
}

async function recordPage() {
  const mine = routing;
  const log = await api("GET", "/v1/briefings/log?limit=20");
  if (!drawn(mine)) return;
  const result = h("div", { id: "eval-result" });
  const form = h("form", { class: "filters", onsubmit: async (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    const body = values.against === "full-text" ? { against_embedder: "none", against_label: "full text alone" }
      : values.against ? { against_profile: values.against } : {};
    result.replaceChildren(h("p", { class: "muted" }, "Measuring…"));
    try {
      const report = await api("POST", "/v1/eval", body);
      if (!report.probes.length) { result.replaceChildren(h("p", { class: "empty" }, "No probes yet: recall and use memories, supersede or decide first.")); return; }
      const fixed = (x) => x.toFixed(3);
      result.replaceChildren(h("p", {}, `${report.probes.length} probes`),
        h("table", { class: "panel", id: "eval-table" }, h("tr", {}, ["configuration", "R@5", "R@10", "MRR", "nDCG@10"].map((t) => h("th", {}, t))),
          report.runs.map((r) => h("tr", {}, h("td", {}, r.profile ? `${r.label} (${r.profile})` : r.label),
            h("td", {}, fixed(r.metrics.recall_at_5)), h("td", {}, fixed(r.metrics.recall_at_10)),
            h("td", {}, fixed(r.metrics.mrr)), h("td", {}, fixed(r.metrics.ndcg_at_10))))),
        report.changed.length ? h("ul", {}, report.changed.map((m) => h("li", {}, `${m.kind}: ${m.before ?? "–"} → ${m.after ?? "–"} · ${m.query}`))) : null);
    } catch (error) { result.replaceChildren(failure(error)); }
  } },
    h("label", {}, "Beside", h("select", { name: "against" }, h("option", { value: "" }, "(nothing)"), PROFILES.map((p) => h("option", { value: p }, p)), h("option", { value: "full-text" }, "full text alone (no model)"))),
    h("button", { class: "primary", type: "submit" }, "Evaluate"));
  show(h("h1", {}, "Record"),
    h("h2", {}, "Recall on your own memories"),
    h("p", { class: "muted" }, "Probes from recalls whose results you then used, from version chains and from decisions' topics; recall@5/@10, MRR and nDCG@10, beside another profile if you like."),
    form, result,
    h("h2", {}, "Briefings given"),
    log.briefings.length ? h("div", { class: "panel", id: "briefing-log" }, log.briefings.map((b) => h("div", { class: "memory" },
      h("div", { class: "row" }, h("span", {}, when(b.at)), h("span", { class: "tag" }, b.profile), h("span", { class: "muted" }, `session ${b.session_id || "–"} · ${b.tokens} tokens · ${b.memories.length} memories`)),
      h("ul", {}, b.memories.map((m) => h("li", {}, h("a", { href: `#/memory/${encodeURIComponent(m.id)}` }, m.id.slice(-8)), ` ${m.section || ""} `, h("span", { class: "muted" }, m.feedback.join(", ") || "–")))))))
      : h("p", { class: "empty", id: "no-briefings" }, "No briefing recorded yet."));
}

// ---- spaces: a team's shared memory, its members and their rights ------------------------------

async function spacesPage(query) {
  const mine = routing;
  SPACES = await api("GET", "/v1/spaces");
  const chosen = query.get("space") || (SPACES[0] && SPACES[0].name) || "";
  const said = h("div", { id: "outcome" }, flash ? outcomeBox(flash, true) : null);
  flash = null;
  const act = (call, done) => async (event) => {
    if (event) event.preventDefault();
    try { await call(); flash = done(); await route(`#/spaces?${params({ space: chosen })}`, true); } catch (error) { said.replaceChildren(failure(error)); }
  };
  const name = h("input", { name: "name", placeholder: "payments", "aria-label": "new space name" });
  const create = h("form", { class: "row", onsubmit: async (event) => {
    event.preventDefault();
    try {
      const made = await api("POST", "/v1/spaces", { name: name.value });
      flash = `made space ${made.name}`;
      await route(`#/spaces?${params({ space: made.name })}`, true);
    } catch (error) { said.replaceChildren(failure(error)); }
  } }, name, h("button", { class: "primary", type: "submit", disabled: session.read_only }, "Make a space"));
  const list = SPACES.length
    ? h("ul", { id: "space-list" }, SPACES.map((x) => h("li", {}, h("a", { href: `#/spaces?${params({ space: x.name })}` }, x.name), " ", h("span", { class: "tag" }, x.right),
      " ", h("a", { href: `#/memories?${params({ space: x.name })}` }, "its memories"))))
    : h("p", { class: "empty" }, "No spaces yet: make one, then grant your team read or write.");
  const parts = [h("h1", {}, "Spaces"), said, h("div", { class: "panel" }, list, create)];
  const space = SPACES.find((x) => x.name === chosen);
  if (space) {
    const members = await api("GET", `/v1/spaces/${encodeURIComponent(space.name)}/members`);
    const admin = space.right === "admin" && !session.read_only;
    const member = h("input", { name: "member", placeholder: "a user's name", "aria-label": "member" });
    const right = h("select", { name: "right", "aria-label": "right" }, ["read", "write", "admin"].map((r) => h("option", { value: r }, r)));
    const path = (user) => `/v1/spaces/${encodeURIComponent(space.name)}/members/${encodeURIComponent(user)}`;
    parts.push(h("h2", {}, `Members of ${space.name}`),
      h("table", { id: "members" }, h("tr", {}, h("th", {}, "user"), h("th", {}, "right"), h("th", {}, "granted by"), h("th", {}, "")),
        members.map((g) => h("tr", {}, h("td", {}, g.user), h("td", {}, g.right), h("td", { class: "muted" }, `${g.granted_by}, ${when(g.granted_at)}`),
          h("td", {}, admin ? h("button", { onclick: act(() => api("DELETE", path(g.user)), () => `revoked ${g.user}`) }, "Revoke") : null)))),
      admin ? h("form", { class: "row", id: "grant", onsubmit: act(() => api("PUT", path(member.value), { right: right.value }), () => `granted ${member.value}`) },
        member, right, h("button", { class: "primary", type: "submit" }, "Grant")) : h("p", { class: "muted" }, `Your right here: ${space.right}. An admin changes who may read and write.`));
  }
  if (drawn(mine)) show(...parts);
}

// ---- routing ----------------------------------------------------------------------------------

async function route(hash, force) {
  const target = (hash || location.hash || "#/").slice(1);
  if (force && location.hash !== `#${target}`) { location.hash = `#${target}`; return; }
  const [path, search] = target.split("?");
  const query = new URLSearchParams(search || "");
  const page = path.split("/")[1] || "";
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", a.dataset.page === (page || "dashboard")));
  const started = performance.now();
  const mine = ++routing;
  try {
    if (!session.authenticated) return login();
    if (page === "memories") await memories(query);
    else if (page === "memory") await memory(decodeURIComponent(path.split("/")[2] || ""));
    else if (page === "briefing") await briefing(query);
    else if (page === "graph") await graph(query);
    else if (page === "quarantine") await quarantinePage();
    else if (page === "record") await recordPage();
    else if (page === "spaces") await spacesPage(query);
    else await dashboard();
    if (!drawn(mine)) {  // (a newer route is drawing: it marks the page; this one is counted)
      document.body.dataset.superseded = String(Number(document.body.dataset.superseded || 0) + 1);
      return;
    }
    document.body.dataset.route = `#${target}`;
    document.body.dataset.painted = String(Math.round(performance.now() - started));
  } catch (error) {
    if (error.status === 401) { session = { authenticated: false }; return login(); }
    if (drawn(mine)) show(failure(error));
  }
}

async function start() {
  session = await api("GET", "/ui/session");
  if (session.authenticated) {
    const profiles = await api("GET", "/v1/profiles").catch(() => []);
    const ordered = [...profiles].sort((a, b) => Number(b.default) - Number(a.default));
    if (ordered.length) TYPES = [...new Set(ordered.flatMap((p) => p.types))];
    PROFILES = ordered.map((p) => p.name);
    SYSTEMS = await api("GET", "/v1/import").catch(() => []);
    SPACES = await api("GET", "/v1/spaces").catch(() => []);
  }
  const who = document.getElementById("who");
  const rights = `${session.admin ? " (admin)" : ""}${session.read_only ? " (read-only)" : ""}`;
  who.replaceChildren(session.authenticated ? `${session.local ? "local mode, user" : "signed in as"} ${session.user}${rights}` : "");
  if (session.authenticated && !session.local) {
    who.append(" ", h("button", { onclick: async () => { await api("POST", "/ui/logout"); await start(); } }, "Sign out"));
  }
  await route();
}

window.addEventListener("hashchange", () => route());
start();
