// switchq serve: the page of every model, built from /api/models/NAME (the declarations), talking to the JSON API.
// Nothing here parses a value or solves a model: fields are sent as typed, and the server's one-line errors are
// shown beside the field they name. The view lives in the URL (a permalink): p.NAME (parameters), r.NAME (run
// options), x, range, y, points (simulated x values), sim=1 (simulated), pin (pinned designs).
"use strict";

const S = {page: null, params: {}, run: {}, x: "", range: "", y: "", points: "", pins: [], sim: false,
           solved: null, curve: [], pinned: [], job: null, simRows: [], timer: null, pending: 0, view: null};
window.switchqPlot = {analytic: [], pinned: [], simulated: []};   // what the plot draws (read by the tests)

function busy(delta) {
  S.pending += delta;
  document.body.dataset.state = (S.pending > 0 || S.timer || (S.job && !finished(S.job))) ? "busy" : "idle";
}
function finished(job) { return ["done", "cancelled", "failed"].includes(job.state); }

async function api(method, path, body) {
  busy(1);
  try {
    const r = await fetch(path, {method, headers: body ? {"Content-Type": "application/json"} : {},
                                 body: body ? JSON.stringify(body) : undefined});
    const text = await r.text();
    let data = null;
    try { data = JSON.parse(text); } catch (e) { data = {text}; }
    return {ok: r.ok, status: r.status, data};
  } finally { busy(-1); }
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

// Figures as the CLI prints them: six significant digits.
function fmt(v) {
  if (v === null || v === undefined) return "-";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  if (Array.isArray(v)) return "[" + v.map(fmt).join(", ") + "]";
  return String(v);
}

// ------------------------------------------------------------------ the index

async function showIndex() {
  const main = document.getElementById("main");
  main.replaceChildren(el("h1", {}, "Models"), el("p", {class: "note"},
    "Every declared model, as the CLI lists them. Each page: its parameters, the analytic answer as you type, ",
    "a curve over any parameter, the simulated twin at chosen points."));
  const {data} = await api("GET", "/api/models");
  const verbs = {solve: "switchq solve (analytic)", size: "switchq size (buffer sizing)",
                 simulate: "switchq simulate (simulated only)"};
  for (const [verb, title] of Object.entries(verbs)) {
    const items = data.filter(m => m.verb === verb);
    if (!items.length) continue;
    main.append(el("section", {class: "catalogue"}, el("h2", {}, title), el("ul", {}, items.map(m =>
      el("li", {}, el("a", {href: "/m/" + m.name, id: "model-" + m.name}, m.title), " ",
         el("span", {class: "verb"}, `${m.verb} ${m.command}`), m.modes.length > 1 ? " · analytic + simulated" : "")))));
  }
  busy(0);
}

// ------------------------------------------------------------------ a model's page

function readURL() {
  const q = new URLSearchParams(location.search);
  S.params = {}; S.run = {};
  for (const [k, v] of q) {
    if (k.startsWith("p.")) S.params[k.slice(2)] = v;
    if (k.startsWith("r.")) S.run[k.slice(2)] = v;
  }
  S.x = q.get("x") || ""; S.range = q.get("range") || ""; S.y = q.get("y") || ""; S.points = q.get("points") || "";
  S.sim = q.get("sim") === "1";
  S.pins = q.getAll("pin").map(t => Object.fromEntries(new URLSearchParams(t)));
}

function query() {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(S.params)) if (v !== "") q.append("p." + k, v);
  for (const [k, v] of Object.entries(S.run)) if (v !== "") q.append("r." + k, v);
  for (const k of ["x", "range", "y", "points"]) if (S[k]) q.append(k, S[k]);
  if (S.sim) q.append("sim", "1");
  for (const p of S.pins) q.append("pin", new URLSearchParams(p).toString());
  return q.toString();
}

function writeURL() {
  const q = query();
  history.replaceState(null, "", location.pathname + (q ? "?" + q : ""));
  const link = document.getElementById("permalink");
  if (link) { link.href = location.href; link.textContent = location.href; }
}

function fields() { return S.page.groups.flatMap(g => g.fields); }
function fieldOf(name) { return fields().find(f => f.name === name); }

function input(f) {
  const value = (f.run ? S.run : S.params)[f.name] || "";
  let box;
  if (f.kind === "choice" || f.kind === "flag") {
    const choices = f.kind === "flag" ? ["true", "false"] : f.choices;
    box = el("select", {id: "f-" + f.name, name: f.name},
             el("option", {value: ""}, `(default: ${f.default})`), choices.map(c => el("option", {value: c}, c)));
    box.value = value;
  } else {
    box = el("input", {id: "f-" + f.name, name: f.name, type: "text", value,
                       placeholder: f.required ? "required" : `default: ${f.default}`, autocomplete: "off"});
  }
  box.addEventListener("input", changed);
  box.addEventListener("change", changed);
  return box;
}

function fieldBox(f) {
  const unit = f.unit ? el("span", {class: "unit"}, ` [${f.unit}]`) : null;
  const applies = f.applies ? ` Applies ${f.applies}.` : "";
  return el("div", {class: "field", id: "field-" + f.name},
    el("label", {for: "f-" + f.name}, f.name, unit), input(f),
    el("small", {}, `${f.help} Allowed: ${f.allowed}.${applies}`),
    el("div", {class: "error", id: "err-" + f.name}));
}

async function showModel(name) {
  busy(1);
  try { await buildModel(name); } finally { busy(-1); }
}

async function buildModel(name) {
  const main = document.getElementById("main");
  const {ok, data} = await api("GET", "/api/models/" + encodeURIComponent(name));
  if (!ok) { main.replaceChildren(el("p", {class: "error"}, data.error)); busy(0); return; }
  S.page = data;
  readURL();
  document.title = `switchq: ${data.title}`;
  const numeric = fields().filter(f => f.numeric && !f.run);
  const form = el("form", {id: "form", onsubmit: e => e.preventDefault()},
    data.groups.map(g => el("fieldset", {}, el("legend", {}, g.title), g.fields.map(fieldBox))));
  const xs = el("select", {id: "x", onchange: changed}, el("option", {value: ""}, "(no curve)"),
                numeric.map(f => el("option", {value: f.name}, f.name)));
  xs.value = S.x;
  const simulated = data.modes.includes("simulated");
  const twin = data.twin ? el("p", {class: "twin"}, "Simulated twin: ",
    el("a", {href: "#", id: "twin", onclick: openTwin}, `switchq simulate ${data.twin} at these values`)) : null;
  main.replaceChildren(
    el("h1", {}, data.title), el("p", {class: "note"}, el("code", {}, `switchq ${data.verb} ${data.command}`), ": ",
                                 data.description),
    el("div", {class: "layout"},
      el("div", {}, form),
      el("div", {},
        el("div", {class: "error", id: "err-general"}),
        el("section", {id: "answer"}),
        twin,
        el("h2", {}, "Curve"),
        el("div", {class: "controls"},
          el("label", {}, "x axis", xs),
          el("label", {}, "range (as --vary)", el("input", {id: "range", value: S.range, placeholder: "0.1:0.9:0.1",
                                                          oninput: changed})),
          el("label", {}, "y axis", el("select", {id: "y", onchange: changed})),
          el("button", {id: "pin", type: "button", onclick: pin}, "Pin this curve"),
          el("button", {id: "unpin", type: "button", onclick: unpin}, "Clear pins")),
        el("div", {class: "error", id: "err-range"}),
        simulated ? el("div", {class: "controls"},
          el("label", {}, "simulate at (x values; blank: one point at these values)",
             el("input", {id: "points", value: S.points, placeholder: "0.3,0.5,0.7", oninput: changedQuiet})),
          el("button", {id: "simulate", type: "button", onclick: simulate}, "Simulate"),
          el("button", {id: "cancel", type: "button", onclick: cancel, disabled: ""}, "Cancel"),
          el("span", {id: "progress"})) : null,
        simulated ? el("small", {id: "limits"}) : null,
        el("div", {class: "error", id: "err-points"}),
        el("div", {id: "plot"}),
        el("div", {class: "controls"},
          el("button", {id: "export-csv", type: "button", onclick: () => exportData("csv")}, "CSV"),
          el("button", {id: "export-json", type: "button", onclick: () => exportData("json")}, "JSON"),
          el("button", {id: "export-png", type: "button", onclick: () => exportPlot("png")}, "PNG"),
          el("button", {id: "export-svg", type: "button", onclick: () => exportPlot("svg")}, "SVG")),
        el("section", {id: "simulated"}),
        el("h2", {}, "Reproduce"),
        el("p", {}, "Permalink: ", el("a", {id: "permalink", href: location.href}, location.href)),
        el("div", {id: "reproduce"}))));
  if (simulated) api("GET", "/api/limits").then(({data}) => {
    document.getElementById("limits").textContent = `This server's cap per request: ${data.max_points} points, ` +
      `${data.max_replications} replications and ${data.max_slots} slots (or cycles; ${data.max_simulated} s ` +
      `simulated) per point, ` +
      `${data.max_seconds} s of wall time; ${data.queue} requests may wait.`;
  });
  if (S.sim && simulated) simulate();
  await refresh();
}

// ------------------------------------------------------------------ reading the form

function readForm() {
  S.params = {}; S.run = {};
  for (const f of fields()) {
    const v = document.getElementById("f-" + f.name).value.trim();
    if (v !== "") (f.run ? S.run : S.params)[f.name] = v;
  }
  S.x = document.getElementById("x").value;
  S.range = document.getElementById("range").value.trim();
  const y = document.getElementById("y").value;
  S.y = y || S.y;
  const points = document.getElementById("points");
  S.points = points ? points.value.trim() : "";
}

function changed() {
  if (S.timer) clearTimeout(S.timer);
  S.timer = setTimeout(() => { S.timer = null; readForm(); forgetStaleSimulation(); writeURL(); refresh(); }, 150);
  busy(0);
}
function changedQuiet() { readForm(); writeURL(); }

// Simulated points belong to the inputs they were run at: once an input changes they no longer describe the view.
function forgetStaleSimulation() {
  if (!S.job || JSON.stringify(simRequest()) === S.jobRequest) return;
  if (!finished(S.job)) api("DELETE", "/api/jobs/" + S.job.id);
  S.job = null; S.simRows = []; S.sim = false;
  document.getElementById("progress").textContent = "";
  document.getElementById("cancel").disabled = true;
  renderSimulated();
}

function showErrors(errors, general) {
  for (const f of fields()) {
    document.getElementById("err-" + f.name).textContent = "";
    document.getElementById("field-" + f.name).classList.remove("bad");
  }
  for (const id of ["err-general", "err-range"]) document.getElementById(id).textContent = "";
  for (const [name, message] of Object.entries(errors || {})) {
    const box = document.getElementById("err-" + name);
    if (box) { box.textContent = message; document.getElementById("field-" + name).classList.add("bad"); }
    else document.getElementById("err-general").textContent = message;
  }
  if (general && !Object.keys(errors || {}).length) document.getElementById("err-general").textContent = general;
}

// ------------------------------------------------------------------ answers and curves

function without(params, name) { const out = {...params}; delete out[name]; return out; }
function analyticField(name) { const f = fieldOf(name); return f && f.modes.includes("analytic"); }
// The analytic answer takes only its own parameters (as switchq solve does); the twin's go to simulations.
function analyticOnly(params) {
  return Object.fromEntries(Object.entries(params).filter(([k]) => analyticField(k)));
}

async function refresh() {
  busy(1);
  try { await refreshNow(); } finally { busy(-1); }
}

async function refreshNow() {
  const page = S.page;
  const tasks = [];
  if (page.modes.includes("analytic")) {
    tasks.push(api("POST", "/api/solve/" + page.name, {params: analyticOnly(S.params)}).then(({ok, data}) => {
      S.solved = ok ? data : null;
      let errors = ok ? {} : {...data.errors};
      // The x axis left blank is what the curve varies: its "required" is answered by the curve, not an error.
      if (!ok && S.x && !S.params[S.x] && errors[S.x] && errors[S.x].includes("(required")) delete errors[S.x];
      const suppressed = !ok && Object.keys(data.errors || {}).length && !Object.keys(errors).length;
      showErrors(errors, ok || suppressed ? null : data.error);
      renderAnswer(ok ? data : null);
    }));
  } else showErrors({}, null);
  await Promise.all(tasks);
  await drawCurves();
  renderReproduce();
}

async function curve(params) {
  if (!S.x || !S.range || !analyticField(S.x)) return {rows: []};
  const {ok, data} = await api("POST", "/api/sweep/" + S.page.name,
                               {params: without(analyticOnly(params), S.x), vary: {[S.x]: S.range}});
  if (!ok) return {error: data};
  return data;
}

async function drawCurves() {
  document.getElementById("err-range").textContent = "";
  const result = await curve(S.params);
  if (result.error) {
    const e = result.error;
    if (e.field === S.x || !e.field) document.getElementById("err-range").textContent = e.error;
    else showErrors({[e.field]: e.error});
    S.curve = [];
  } else { S.curve = result.rows || []; S.curveCall = result; }
  S.pinned = [];
  for (const [i, p] of S.pins.entries()) {
    const r = await curve(p);
    if (!r.error) S.pinned.push({label: pinLabel(p, i), rows: r.rows || []});
  }
  fillY();
  plot();
}

function pinLabel(p, i) {
  const diff = Object.entries(p).filter(([k, v]) => k !== S.x && S.params[k] !== v).map(([k, v]) => `${k}=${v}`);
  const gone = Object.keys(S.params).filter(k => k !== S.x && !(k in p)).map(k => `${k}=default`);
  return `pin ${i + 1}` + (diff.length + gone.length ? ": " + diff.concat(gone).join(", ") : "");
}

function numericResults() {
  const names = new Set();
  const rows = S.curve.concat(S.simRows);
  for (const r of rows) for (const [k, v] of Object.entries(r))
    if (typeof v === "number" && k !== S.x && !fieldOf(k) && !["seed", "wall_seconds"].includes(k)) names.add(k);
  return [...names];
}

function fillY() {
  const ys = document.getElementById("y");
  const names = numericResults();
  const main = analyticField(S.x) || !S.page.main.simulated ? S.page.main.analytic : S.page.main.simulated;
  if (!S.y || !names.includes(S.y)) S.y = names.includes(main) ? main : (names.includes(S.page.main.simulated)
                                                                         ? S.page.main.simulated : names[0] || "");
  ys.replaceChildren(...names.map(n => el("option", {value: n}, n)));
  ys.value = S.y;
}

function points(rows, series) {
  return rows.filter(r => typeof r[S.y] === "number" && typeof r[S.x] === "number").map(r => {
    const ci = r[S.y + "_ci95"];
    return {x: r[S.x], y: r[S.y], series, lo: Array.isArray(ci) ? ci[0] : null, hi: Array.isArray(ci) ? ci[1] : null,
            // null: no test able to see a critically loaded queue was judged (stability_not_judged says why).
            unstable: r.unstable === true ? "unstable" : r.unstable === false ? "stable" : "not judged"};
  });
}

async function plot() {
  const box = document.getElementById("plot");
  if (!S.x) {
    box.replaceChildren(el("p", {class: "note"}, "Choose an x axis and a range to draw a curve."));
    window.switchqPlot = {analytic: [], pinned: [], simulated: []};
    return;
  }
  const analytic = points(S.curve, "analytic");
  const pinned = S.pinned.flatMap(p => points(p.rows, p.label));
  const simulated = points(S.simRows, "simulated");
  window.switchqPlot = {analytic, pinned, simulated, x: S.x, y: S.y};
  const unit = name => S.page.units[name] ? ` [${S.page.units[name]}]` : "";
  const enc = {x: {field: "x", type: "quantitative", title: S.x + unit(S.x), scale: {zero: false, padding: 12}},
               y: {field: "y", type: "quantitative", title: S.y + unit(S.y), scale: {zero: false}},
               color: {field: "series", type: "nominal", title: null}};
  const layers = [];
  if (analytic.length || pinned.length) layers.push({data: {values: analytic.concat(pinned)},
    mark: {type: "line", point: true}, encoding: {...enc, strokeDash: {field: "series", type: "nominal", legend: null}}});
  if (simulated.length) {
    // Each simulated point with its 95 % interval as an error bar (capped, so a short one stays visible).
    // An unstable point has no steady state, so no interval (as the CLI prints it): drawn as a cross alone.
    layers.push({data: {values: simulated.filter(p => p.lo !== null && p.unstable !== "unstable")},
                 mark: {type: "errorbar", ticks: true, thickness: 2},
                 encoding: {x: enc.x, y: {field: "lo", type: "quantitative", title: S.y + unit(S.y)}, y2: {field: "hi"},
                            color: enc.color}});
    layers.push({data: {values: simulated}, mark: {type: "point", filled: true, size: 50},
                 encoding: {...enc, shape: {field: "unstable", type: "nominal", title: "simulated",
                                           scale: {domain: ["stable", "not judged", "unstable"],
                                                   range: ["circle", "diamond", "cross"]}},
                            tooltip: [{field: "x"}, {field: "y"}, {field: "lo", title: "95% CI low"},
                                      {field: "hi", title: "95% CI high"}, {field: "unstable"}]}});
  }
  if (!layers.length) { box.replaceChildren(el("p", {class: "note"}, S.x && !analyticField(S.x)
      ? `${S.x} feeds the simulated twin only: simulate to draw points.` : "No points yet.")); return; }
  const spec = {$schema: "https://vega.github.io/schema/vega-lite/v5.json", width: "container", height: 320, autosize: {type: "fit", contains: "padding"},
                layer: layers};
  const result = await vegaEmbed(box, spec, {actions: false, renderer: "svg"});
  S.view = result.view;
}

// ------------------------------------------------------------------ the answer table and sizing bars

function unitOf(payload, k) { return (payload.units || {})[k] || ""; }
function unitIn(payloads, k) { return payloads.map(p => unitOf(p, k)).find(u => u) || ""; }

function resultTable(payloads) {
  const first = payloads[0];
  // Every answer's fields (models side by side may differ); a sizing answer's term sources go to its terms table.
  const keys = [...new Set(payloads.flatMap(p => Object.keys(p)))].filter(k => k !== "units" &&
    !k.endsWith("_ci95") && !k.endsWith("_samples") && !(k === "term_sources" && first.terms));
  const label = payloads.length > 1 ? keys.find(k => new Set(payloads.map(p => JSON.stringify(p[k]))).size > 1) : null;
  const head = el("tr", {}, el("th", {}, "quantity"),
                  payloads.length > 1 ? payloads.map(p => el("th", {}, fmt(p[label]))) : el("th", {}, "value"),
                  el("th", {}, "unit"));
  const rows = [];
  for (const k of keys) {
    const parts = [...new Set(payloads.flatMap(p => (p[k] && typeof p[k] === "object" && !Array.isArray(p[k]))
                                                    ? Object.keys(p[k]) : []))];
    if (parts.length) {
      for (const part of parts) rows.push(el("tr", {}, el("td", {}, `${k}: ${part}`),
        payloads.map(p => cell((p[k] || {})[part], p, k)), el("td", {}, unitIn(payloads, k))));
    } else rows.push(el("tr", {"data-quantity": k}, el("td", {}, k), payloads.map(p => cell(p[k], p, k)),
                        el("td", {}, unitIn(payloads, k))));
  }
  return el("table", {class: "result", id: "result"}, head, rows);
}

function cell(v, payload, k) {
  const ci = payload[k + "_ci95"];
  let text = fmt(v);
  if (Array.isArray(ci) && !Array.isArray(ci[0])) text += payload.unstable ? "  (unstable: no steady state)"
      : `  (95% CI ${fmt(ci[0])} .. ${fmt(ci[1])})` + (payload.unstable === null ? " (stability not judged)" : "");
  return el("td", {class: typeof v === "number" ? "num" : "text"}, text);
}

function termsChart(payloads, box) {
  // A sizing answer's terms (headroom, credits) stacked: one bar per answer, each term's source in its tooltip.
  const data = [];
  payloads.forEach((p, i) => {
    const label = payloads.length > 1 ? fmt(p.model !== undefined ? p.model : i + 1) : (S.page.command);
    for (const [term, value] of Object.entries(p.terms)) if (typeof value === "number")
      data.push({answer: label, term, value, source: (p.term_sources || {})[term] || ""});
  });
  const unit = unitOf(payloads[0], "terms");
  vegaEmbed(box, {$schema: "https://vega.github.io/schema/vega-lite/v5.json", width: "container", height: 260, autosize: {type: "fit", contains: "padding"},
    data: {values: data}, mark: "bar",
    encoding: {x: {field: "answer", type: "nominal", title: null, sort: null, axis: {labelAngle: 0}},
               y: {field: "value", type: "quantitative", stack: true, title: `terms${unit ? " [" + unit + "]" : ""}`},
               color: {field: "term", type: "nominal", sort: null},
               tooltip: [{field: "term"}, {field: "value"}, {field: "source"}]}}, {actions: false, renderer: "svg"});
  window.switchqTerms = data;
  return el("table", {class: "result", id: "terms"}, el("tr", {}, el("th", {}, "answer"), el("th", {}, "term"),
    el("th", {}, "value" + (unit ? ` [${unit}]` : "")), el("th", {}, "source")),
    data.map(d => el("tr", {}, el("td", {}, d.answer), el("td", {}, d.term), el("td", {class: "num"}, fmt(d.value)),
                     el("td", {class: "text"}, d.source))));
}

function renderAnswer(data) {
  const box = document.getElementById("answer");
  if (!data) { box.replaceChildren(); return; }
  const r = data.result;
  const payloads = Array.isArray(r) ? r : (r.rows || [r]);
  const parts = [el("h2", {}, "Analytic answer"), resultTable(payloads)];
  if (payloads[0].terms && typeof payloads[0].terms === "object") {
    // A sizing answer: its terms first (the figure is their sum), then every field.
    const chart = el("div", {id: "terms-chart"});
    const terms = el("div", {});
    box.replaceChildren(el("h2", {}, "Term by term"), chart, terms, ...parts);
    terms.append(termsChart(payloads, chart));   // drawn once in the page, so the chart takes its container's width
    return;
  }
  box.replaceChildren(...parts);
}

// ------------------------------------------------------------------ pins

function pin() { S.pins.push({...S.params}); writeURL(); drawCurves(); }
function unpin() { S.pins = []; writeURL(); drawCurves(); }

// ------------------------------------------------------------------ simulation

function simRequest() {
  const vary = S.x && S.points ? {[S.x]: S.points} : {};
  return {params: S.x && S.points ? without(S.params, S.x) : S.params, vary, run: S.run};
}

async function simulate() {
  readForm();
  S.sim = true; writeURL();
  document.getElementById("err-points").textContent = "";
  const {ok, data} = await api("POST", "/api/simulate/" + S.page.name, simRequest());
  if (!ok) {
    if (data.field && data.field === S.x) document.getElementById("err-points").textContent = data.error;
    else if (data.field && document.getElementById("err-" + data.field)) showErrors({[data.field]: data.error});
    else document.getElementById("err-points").textContent = data.error;
    return;
  }
  S.job = data; S.simRows = []; S.jobRequest = JSON.stringify(simRequest());
  document.getElementById("cancel").disabled = false;
  busy(0);
  poll();
}

async function poll() {
  const job = S.job;
  if (!job) return;
  const {ok, data} = await api("GET", "/api/jobs/" + job.id);
  if (!ok || S.job !== job) return;
  S.job = data;
  const changedRows = data.rows.length !== S.simRows.length;
  S.simRows = data.rows;
  const where = data.position ? `, ${data.position} ahead in the queue` : "";
  document.getElementById("progress").textContent =
    `${data.done} of ${data.total} points (${data.state}${where})` + (data.error ? `: ${data.error}` : "") +
    (data.stopped_because && data.stopped_because !== "cancelled" ? `: ${data.stopped_because}` : "");
  if (changedRows) { fillY(); await plot(); renderSimulated(); }
  if (finished(data)) { document.getElementById("cancel").disabled = true; renderReproduce(); busy(0); return; }
  setTimeout(poll, 250);
}

async function cancel() { if (S.job) await api("DELETE", "/api/jobs/" + S.job.id); }

function renderSimulated() {
  const box = document.getElementById("simulated");
  if (!S.simRows.length) { box.replaceChildren(); return; }
  if (Object.keys(S.job.vary || {}).length === 0) {
    // One point at these values: the twin's answer beside the analytic one.
    const row = S.simRows[0];
    const units = {};
    for (const k of Object.keys(row)) if (S.page.units[k]) units[k] = S.page.units[k];
    box.replaceChildren(el("h2", {}, "Simulated twin at these values"), resultTable([{...row, units}]));
  } else box.replaceChildren();
}

// ------------------------------------------------------------------ reproduce and export

function renderReproduce() {
  const box = document.getElementById("reproduce");
  const blocks = [];
  if (S.solved) blocks.push(["This answer", S.solved]);
  if (S.curve.length && S.curveCall) blocks.push(["This curve", S.curveCall]);
  if (S.job) blocks.push(["These simulated points", S.job]);
  box.replaceChildren(...blocks.map(([title, r]) => el("div", {},
    el("h3", {}, title), el("pre", {class: "command"}, r.command), el("pre", {class: "python"}, r.python))));
}

function download(name, text, type) {
  const a = el("a", {href: URL.createObjectURL(new Blob([text], {type})), download: name});
  document.body.append(a); a.click(); a.remove();
}

async function exportData(format) {
  const name = S.page.name;
  if (S.job && S.simRows.length) {
    if (format === "csv") {
      const {data} = await api("GET", `/api/jobs/${S.job.id}/csv`);
      download(`${name}-simulated.csv`, data.text, "text/csv");
    } else download(`${name}-simulated.json`, JSON.stringify(S.simRows), "application/json");
  } else if (S.curve.length) {
    if (format === "csv") {
      busy(1);
      try {
        const r = await fetch(`/api/sweep/${name}?format=csv`, {method: "POST", headers: {"Content-Type": "application/json"},
          body: JSON.stringify({params: without(analyticOnly(S.params), S.x), vary: {[S.x]: S.range}})});
        download(`${name}.csv`, await r.text(), "text/csv");
      } finally { busy(-1); }
    } else download(`${name}.json`, JSON.stringify(S.curve), "application/json");
  } else if (S.solved) {
    if (format === "json") download(`${name}.json`, JSON.stringify(S.solved.result), "application/json");
    else document.getElementById("err-general").textContent = "CSV: draw a curve or simulate points first.";
  }
}

async function exportPlot(format) {
  if (!S.view) return;
  if (format === "svg") download(`${S.page.name}.svg`, await S.view.toSVG(), "image/svg+xml");
  else {
    const a = el("a", {href: await S.view.toImageURL("png", 2), download: `${S.page.name}.png`});
    document.body.append(a); a.click(); a.remove();
  }
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
