// switchq serve: the page of every model, built from /api/models/NAME (the declarations), talking to the JSON API
// (net.js) and drawing with plot.js. Nothing here parses a value or solves a model: fields are sent as typed, and
// the server's errors are shown beside the field they name, in the page's words. The view lives in the URL (a
// permalink): p.NAME (parameters), r.NAME (run options), x, range, y, yscale, points (simulated x values), sim=1
// (simulated), pin (pinned designs; a pinned simulation carries ~points and ~r.NAME).
"use strict";

const S = {page: null, params: {}, run: {}, x: "", range: "", y: "", yWanted: "", yscale: "auto", points: "",
           pins: [], sim: false, solved: null, curve: [], curveCall: null, pinned: [], job: null, simRows: [],
           jobRequest: null, timer: null, view: null, touched: new Set(), plotting: Promise.resolve(),
           errors: {analytic: {}, typed: {}, submit: {}}, general: {analytic: "", typed: "", submit: ""}};
window.switchqPlot = {analytic: [], pinned: [], simulated: [], legend: []};   // what the plot draws (read by tests)

function finished(job) { return ["done", "cancelled", "failed"].includes(job.state); }
function setSimulating() {
  const running = job => job && !finished(job);
  BUSY.simulating = Boolean(running(S.job) || S.pins.some(p => p.sim && running(p.sim.job)));
  busy(0);
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}
function byId(id) { return document.getElementById(id); }

// Figures as the CLI prints them: six significant digits; big integers (seeds) arrive as exact text.
function fmt(v) {
  if (v === null || v === undefined) return "-";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  if (Array.isArray(v)) return "[" + v.map(fmt).join(", ") + "]";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

// ------------------------------------------------------------------ the index

async function showIndex() {
  const main = byId("main");
  main.replaceChildren(el("h1", {}, "Models"), el("p", {class: "note"},
    "Every declared model, as the CLI lists them. Each page: its parameters, the analytic answer as you type, ",
    "a curve over any parameter, the simulated twin at chosen points."));
  const {ok, data} = await api("GET", "/api/models");
  if (!ok) { onResume(() => location.reload()); busy(0); return; }
  const verbs = {solve: "switchq solve (analytic)", size: "switchq size (buffer sizing)",
                 simulate: "switchq simulate (simulated only)"};
  for (const [verb, title] of Object.entries(verbs)) {
    const items = data.filter(m => m.verb === verb);
    if (!items.length) continue;
    main.append(el("section", {class: "catalogue"}, el("h2", {}, title), el("ul", {}, items.map(m =>
      el("li", {}, el("a", {href: "/m/" + m.name, id: "model-" + m.name}, m.title), " ",
         el("span", {class: "verb"}, `${m.verb} ${m.command}`),
         m.modes.length > 1 ? " · analytic + simulated" : "")))));
  }
  busy(0);
}

// ------------------------------------------------------------------ the permalink

function readURL() {
  const q = new URLSearchParams(location.search);
  S.params = {}; S.run = {};
  for (const [k, v] of q) {
    if (k.startsWith("p.")) S.params[k.slice(2)] = v;
    if (k.startsWith("r.")) S.run[k.slice(2)] = v;
  }
  S.x = q.get("x") || ""; S.range = q.get("range") || ""; S.yWanted = q.get("y") || "";
  S.points = q.get("points") || "";
  S.yscale = ["log", "linear"].includes(q.get("yscale")) ? q.get("yscale") : "auto";
  S.sim = q.get("sim") === "1";
  S.pins = q.getAll("pin").map(text => {
    const params = {}, run = {};
    let points = null;
    for (const [k, v] of new URLSearchParams(text)) {
      if (k === "~points") points = v; else if (k.startsWith("~r.")) run[k.slice(3)] = v; else params[k] = v;
    }
    return {params, sim: points !== null ? {points, run, rows: [], job: null} : null};
  });
}

function query() {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(S.params)) if (v !== "") q.append("p." + k, v);
  for (const [k, v] of Object.entries(S.run)) if (v !== "") q.append("r." + k, v);
  for (const [k, v] of [["x", S.x], ["range", S.range], ["y", S.yWanted], ["points", S.points]]) if (v) q.append(k, v);
  if (S.yscale !== "auto") q.append("yscale", S.yscale);
  if (S.sim) q.append("sim", "1");
  for (const p of S.pins) {
    const t = new URLSearchParams(p.params);
    if (p.sim) {
      t.append("~points", p.sim.points);
      for (const [k, v] of Object.entries(p.sim.run)) t.append("~r." + k, v);
    }
    q.append("pin", t.toString());
  }
  return q.toString();
}

function writeURL() {
  const q = query();
  history.replaceState(null, "", location.pathname + (q ? "?" + q : ""));
  const link = byId("permalink");
  if (link) { link.href = location.href; link.textContent = location.href; }
}

function fields() { return S.page.groups.flatMap(g => g.fields); }
function fieldOf(name) { return fields().find(f => f.name === name); }
function labelOf(name) { const f = fieldOf(name); return f ? f.label : words(name); }

// ------------------------------------------------------------------ the form

function input(f) {
  const value = (f.run ? S.run : S.params)[f.name] || "";
  const common = {id: "f-" + f.name, name: f.name, "aria-describedby": "help-" + f.name};
  let box;
  if (f.kind === "choice" || f.kind === "flag") {
    const choices = f.kind === "flag" ? ["true", "false"] : f.choices;
    box = el("select", common, el("option", {value: ""}, `(default: ${f.default})`),
             choices.map(c => el("option", {value: c}, c)));
    box.value = value;
  } else {
    box = el("input", {...common, type: "text", value, inputmode: f.name === "seed" ? "numeric" : null,
                       placeholder: f.required ? "required" : `default: ${f.default}`, autocomplete: "off",
                       "aria-required": f.required ? "true" : null});
  }
  // Text boxes as they are typed in, menus as they are chosen (a box's "change" on leaving it would ask again).
  box.addEventListener(box.tagName === "SELECT" ? "change" : "input", () => {
    S.touched.add(f.name); forget(S.errors.submit, f.name); changed();
  });
  return box;
}

function fieldBox(f) {
  const unit = f.unit ? el("span", {class: "unit"}, ` [${f.unit}]`) : null;
  const applies = f.applies ? ` Applies ${f.applies}.` : "";
  return el("div", {class: "field", id: "field-" + f.name},
    el("label", {for: "f-" + f.name}, f.label, unit), input(f),
    el("small", {id: "help-" + f.name}, `${f.help} Allowed: ${f.allowed}.${applies} Option: `,
       el("code", {}, f.option), "."),
    el("div", {class: "error", id: "err-" + f.name, role: "alert"}));
}

function forget(errors, name) { delete errors[name]; }

async function showModel(name) {
  busy(1);
  try { await buildModel(name); } finally { busy(-1); }
}

async function buildModel(name) {
  const main = byId("main");
  const [{ok, data, offline}, limits] = await Promise.all([api("GET", "/api/models/" + encodeURIComponent(name)),
                                                           api("GET", "/api/limits")]);
  if (!ok) {
    if (offline) onResume(() => location.reload());
    main.replaceChildren(el("p", {class: "error"}, data.message || data.error));
    return;
  }
  if (limits.ok) NET.instance = limits.data.instance;
  S.page = data;
  readURL();
  document.title = `switchq: ${data.title}`;
  const numeric = fields().filter(f => f.numeric && !f.run);
  const form = el("form", {id: "form", onsubmit: e => e.preventDefault()},
    data.groups.map(g => el("fieldset", {}, el("legend", {}, g.title), g.fields.map(fieldBox))));
  const xs = el("select", {id: "x", onchange: changed}, el("option", {value: ""}, "(no curve)"),
                numeric.map(f => el("option", {value: f.name}, f.label + (f.unit ? ` [${f.unit}]` : ""))));
  xs.value = S.x;
  const simulated = data.modes.includes("simulated");
  const twin = data.twin ? el("p", {class: "twin"}, "Simulated twin: ",
    el("a", {href: "#", id: "twin", onclick: openTwin}, `switchq simulate ${data.twin} at these values`)) : null;
  const yscale = el("select", {id: "yscale", onchange: e => { S.yscale = e.target.value; writeURL(); plot(); }},
                    el("option", {value: "auto"}, "auto"), el("option", {value: "linear"}, "linear"),
                    el("option", {value: "log"}, "log"));
  yscale.value = S.yscale;
  main.replaceChildren(
    el("h1", {}, data.title), el("p", {class: "note"}, el("code", {}, `switchq ${data.verb} ${data.command}`), ": ",
                                 data.description),
    el("div", {class: "layout"},
      el("div", {}, form),
      el("div", {},
        el("p", {id: "busy", role: "status", class: "idle"}),
        el("div", {class: "error", id: "err-general", role: "alert"}),
        el("section", {id: "answer", "aria-live": "polite", "aria-label": "analytic answer"}),
        twin,
        el("h2", {}, "Curve"),
        el("div", {class: "controls"},
          el("label", {}, "x axis", xs),
          el("label", {}, "range (as --vary)", el("input", {id: "range", value: S.range, placeholder: "0.1:0.9:0.1",
                                                          oninput: changed})),
          el("label", {}, "y axis", el("select", {id: "y", onchange: chooseY})),
          el("label", {}, "y scale", yscale),
          el("button", {id: "pin", type: "button", onclick: pin}, "Pin this curve"),
          el("button", {id: "unpin", type: "button", onclick: unpin}, "Clear pins")),
        el("div", {class: "error", id: "err-range", role: "alert"}),
        simulated ? el("div", {class: "controls"},
          el("label", {}, "simulate at (x values; blank: one point at these values)",
             el("input", {id: "points", value: S.points, placeholder: "0.3,0.5,0.7", oninput: changed})),
          el("button", {id: "simulate", type: "button", onclick: simulate}, "Simulate"),
          el("button", {id: "cancel", type: "button", onclick: cancel, disabled: true}, "Cancel"),
          el("span", {id: "progress", "aria-live": "polite"})) : null,
        simulated && limits.ok ? el("small", {id: "limits"}, limitsText(limits.data)) : null,
        el("div", {class: "error", id: "err-points", role: "alert"}),
        el("div", {id: "plot", role: "img", "aria-label": "plot (no curve yet)"}),
        el("p", {class: "note", id: "plot-key"}),
        el("div", {class: "controls"},
          el("button", {id: "export-csv", type: "button", onclick: () => exportData("csv")}, "CSV"),
          el("button", {id: "export-json", type: "button", onclick: () => exportData("json")}, "JSON"),
          el("button", {id: "export-png", type: "button", onclick: () => exportPlot("png")}, "PNG"),
          el("button", {id: "export-svg", type: "button", onclick: () => exportPlot("svg")}, "SVG")),
        el("section", {id: "simulated", "aria-live": "polite"}),
        el("h2", {}, "Reproduce"),
        el("p", {}, "Permalink: ", el("a", {id: "permalink", href: location.href}, location.href)),
        el("div", {id: "reproduce"}))));
  onResume(resume);
  if (S.sim && simulated) simulate();
  for (const p of S.pins) if (p.sim) simulatePin(p);
  await refresh();
}

function limitsText(d) {
  return `This server's cap per request: ${d.max_points} points, ${d.max_replications} replications and ` +
    `${d.max_slots} slots (or cycles; ${d.max_simulated} s simulated) per point, ${d.max_seconds} s of wall time; ` +
    `${d.queue} requests may wait.`;
}

// Back after the server was unreachable: answer again, and pick up the simulation where it was.
function resume({restarted}) {
  if (!S.page) return;
  refresh();
  if (S.job && !finished(S.job)) poll(S.job);
  if (restarted && S.job) byId("progress").textContent += " (the server restarted since)";
}

function readForm() {
  S.params = {}; S.run = {};
  for (const f of fields()) {
    const v = byId("f-" + f.name).value.trim();
    if (v !== "") (f.run ? S.run : S.params)[f.name] = v;
  }
  S.x = byId("x").value;
  S.range = byId("range").value.trim();
  const points = byId("points");
  S.points = points ? points.value.trim() : "";
}

function changed() {
  if (S.timer) clearTimeout(S.timer);
  BUSY.waiting = true;
  busy(0);
  S.timer = setTimeout(() => {
    S.timer = null; BUSY.waiting = false;
    readForm(); forgetStaleSimulation(); writeURL(); refresh();
  }, 150);
}

function chooseY() { S.yWanted = byId("y").value; writeURL(); fillY(); plot(); renderSimulated(); }

// Simulated points belong to the design they were run at: once one of its inputs (or the x axis) changes they no
// longer describe the view. Other x values to simulate at leave them standing until Simulate is pressed.
function designKey() {
  return JSON.stringify({x: S.x, params: S.x && S.points ? without(S.params, S.x) : S.params, run: S.run});
}

function forgetStaleSimulation() {
  if (!S.job || designKey() === S.jobRequest) return;
  if (!finished(S.job)) api("DELETE", "/api/jobs/" + S.job.id);
  S.job = null; S.simRows = []; S.sim = false;
  byId("progress").textContent = "";
  byId("cancel").disabled = true;
  setSimulating();
  renderSimulated();
}

// ------------------------------------------------------------------ errors beside their fields

// Errors come from three places: the analytic answer, the simulation request checked as typed, and the last
// Simulate press. Each stays until its field changes and the server no longer refuses it; a field nobody has
// typed in yet shows none (a page opens without errors).
function quietField(name) {
  return Boolean(fieldOf(name)) && !S.touched.has(name) && !(fieldOf(name).run ? S.run : S.params)[name];
}

function showErrors() {
  const quiet = quietField;
  const shown = {};
  for (const source of ["analytic", "typed", "submit"])
    for (const [name, message] of Object.entries(S.errors[source]))
      if (!(name in shown) && !quiet(name) && !(name === S.x && !S.params[name])) shown[name] = message;
  for (const f of fields()) {
    const message = shown[f.name] || "";
    const box = byId("err-" + f.name);
    if (box.textContent !== message) box.textContent = message;
    byId("field-" + f.name).classList.toggle("bad", Boolean(message));
    const control = byId("f-" + f.name);
    if (message) {
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-describedby", `err-${f.name} help-${f.name}`);
    } else {
      control.removeAttribute("aria-invalid");
      control.setAttribute("aria-describedby", `help-${f.name}`);
    }
  }
  const other = Object.entries({...S.errors.analytic, ...S.errors.typed, ...S.errors.submit})
    .filter(([name]) => !fieldOf(name)).map(([, m]) => m);
  byId("err-general").textContent = [S.general.analytic, ...other].filter(Boolean)[0] || "";
  byId("err-points").textContent = S.general.submit || S.general.typed || "";
}

// A refusal's errors by field, in the page's words; a refusal that names no field is general.
function refusalErrors(data) {
  const errors = {...(data.messages || data.errors || {})};
  let general = "";
  if (!Object.keys(errors).length && (data.message || data.error)) {
    if (data.field) errors[data.field] = data.message || data.error; else general = data.message || data.error;
  }
  return {errors, general};
}

async function openTwin(e) {
  e.preventDefault();
  const {ok, data} = await api("GET", "/api/models/" + S.page.twin);
  if (!ok) return;
  const names = new Set(data.groups.flatMap(g => g.fields.map(f => f.name)));
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(S.params)) if (names.has(k)) q.append("p." + k, v);
  location.href = `/m/${S.page.twin}?${q}`;
}

// ------------------------------------------------------------------ start

const route = location.pathname.match(/^\/m\/([^/]+)$/);
if (route) showModel(decodeURIComponent(route[1])); else showIndex();
