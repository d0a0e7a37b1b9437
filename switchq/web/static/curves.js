// switchq serve: answers and curves. The analytic answer as you type and the curve over x, each request of a view
// superseding the older (net.js tickets); the y axis kept as asked; curves named by what differs; reference lines.
"use strict";

// ------------------------------------------------------------------ answers and curves

function without(params, name) { const out = {...params}; delete out[name]; return out; }
function analyticField(name) { const f = fieldOf(name); return f && f.modes.includes("analytic"); }
// The analytic answer takes only its own parameters (as switchq solve does); the twin's go to simulations.
function analyticOnly(params) {
  return Object.fromEntries(Object.entries(params).filter(([k]) => analyticField(k)));
}
// Required fields of the answer still blank: no answer is asked for while they are untouched (a page opens without
// a refusal) or while the blank one is the curve's x (the curve gives it its values).
function missingRequired() {
  return fields().filter(f => !f.run && f.required && f.modes.includes("analytic") && !S.params[f.name]);
}

async function refresh() {
  busy(1);
  try { await refreshNow(); } finally { busy(-1); }
}

async function refreshNow() {
  const page = S.page;
  const t = ticket("refresh");
  const tasks = [];
  if (page.modes.includes("analytic")) {
    const missing = missingRequired();
    if (missing.length && missing.every(f => !S.touched.has(f.name) || f.name === S.x)) {
      // Nothing typed yet: no request (so no refusal, no console error), a line saying what to give.
      S.solved = null; S.errors.analytic = {}; S.general.analytic = "";
      const curve = missing.some(f => f.name === S.x) ? ` (the curve varies ${labelOf(S.x)})` : "";
      renderAnswer(null, `Give ${missing.map(f => f.label).join(" and ")} for the answer${curve}.`);
    } else {
      // /api/answer: /api/solve's answer, its refusals answered 200 (a value being typed is no failed request).
      tasks.push(api("POST", "/api/answer/" + page.name, {params: analyticOnly(S.params)}).then(({ok, data}) => {
        if (!current("refresh", t) || !ok) return;   // stale (a newer answer was asked for), or the server is away
        const answered = !data.refused;
        S.solved = answered ? data : null;
        const {errors, general} = answered ? {errors: {}, general: ""} : refusalErrors(data);
        S.errors.analytic = errors; S.general.analytic = general;
        // Refused only for blanks nobody has typed in yet (a sizing answer needs a link rate or a round trip):
        // say what to give, not an error.
        const quiet = Object.keys(errors).filter(quietField);
        renderAnswer(answered ? data : null, !answered && !general && quiet.length === Object.keys(errors).length
          ? `Give ${quiet.map(labelOf).join(" and ")} for the answer.` : null);
      }));
    }
  }
  if (page.modes.includes("simulated")) {
    tasks.push(api("POST", "/api/check/" + page.name, simRequest()).then(({ok, data}) => {
      if (!current("refresh", t) || !ok) return;
      const {errors, general} = refusalErrors(data);
      S.errors.typed = errors; S.general.typed = general;
      for (const name of Object.keys(S.errors.submit)) if (!(name in errors)) delete S.errors.submit[name];
      if (!general) S.general.submit = "";
    }));
  }
  await Promise.all(tasks);
  if (!current("refresh", t)) return;
  showErrors();
  await drawCurves();
  renderReproduce();
}

async function curve(params) {
  if (!S.x || !S.range || !analyticField(S.x)) return {rows: []};
  const {ok, data, offline} = await api("POST", "/api/sweep/" + S.page.name,
                                        {params: without(analyticOnly(params), S.x), vary: {[S.x]: S.range}});
  if (offline) return {rows: [], offline: true};
  if (!ok) return {error: data};
  return data;
}

async function drawCurves() {
  const t = ticket("curve");
  const result = await curve(S.params);
  const pinned = [];
  for (const p of S.pins) {
    const r = await curve(p.params);
    pinned.push(r.error ? [] : r.rows || []);
  }
  if (!current("curve", t)) return;                           // a newer curve was asked for meanwhile
  byId("err-range").textContent = "";
  if (result.error) {
    const e = result.error;
    if (e.field === S.x || !e.field) byId("err-range").textContent = e.message || e.error;
    else { S.errors.analytic = {...S.errors.analytic, [e.field]: e.message || e.error}; showErrors(); }
    S.curve = [];
  } else if (!result.offline) { S.curve = result.rows || []; S.curveCall = result.command ? result : null; }
  S.pinned = pinned;
  fillY();
  await plot();
}

// The results a y axis can show: declared results (answers and the twin's metrics), not a run's diagnostics.
function declared() {
  const r = S.page.results;
  return new Set([...(r.analytic || []), ...(r.simulated || [])].filter(k => !k.endsWith("_ci95")));
}

function numericResults() {
  const names = new Set(), known = declared();
  const rows = S.curve.concat(S.simRows, S.pinned.flat(), S.pins.flatMap(p => p.sim ? p.sim.rows : []));
  for (const r of rows) for (const [k, v] of Object.entries(r))
    if (typeof v === "number" && k !== S.x && !fieldOf(k) && (known.has(k) || known.has(k.replace(/_result$/, ""))))
      names.add(k);
  return [...names];
}

function fillY() {
  const ys = byId("y");
  const names = numericResults();
  const main = analyticField(S.x) || !S.page.main.simulated ? S.page.main.analytic : S.page.main.simulated;
  // The y asked for (permalink or menu) stays asked for, even while no row has it yet (a simulation to come).
  S.y = names.includes(S.yWanted) ? S.yWanted : names.includes(main) ? main
      : names.includes(S.page.main.simulated) ? S.page.main.simulated : names[0] || S.yWanted || "";
  const options = names.map(n => el("option", {value: n}, words(n) + unitText(S.page, n)));
  ys.replaceChildren(...options);
  ys.value = S.y;
}

// The field of a simulated row that measures y: y itself, or the twin's figure for an analytic one
// (hol's saturation_throughput is its overloaded twin's throughput).
function simField(row) {
  if (S.y in row) return S.y;
  const twin = (S.page.twin_figure || {})[S.y];
  return twin && twin in row ? twin : null;
}

function status(row, saturated) {
  if (saturated) return "saturated";
  return row.unstable === true ? "unstable" : row.unstable === false ? "stable" : "not judged";
}

function scaleOf(name) { const f = fieldOf(name); return f && f.scale ? f.scale : 1; }

// A parameter given several values at once (size pfc --model all) is an axis of its own: each value its curve.
function split(rows) {
  return fields().filter(f => f.many && new Set(rows.map(r => r[f.name])).size > 1).map(f => f.name);
}

function points(rows, series, saturated) {
  const k = scaleOf(S.x);
  const by = split(rows);
  return rows.map((r, i) => {
    const y = series.simulated ? simField(r) : S.y;
    if (!y || typeof r[y] !== "number" || typeof r[S.x] !== "number") return null;
    const ci = r[y + "_ci95"];
    const label = [series.label, ...by.map(name => String(r[name]))].filter(w => w && w !== "analytic").join(" ")
      || series.label;
    return {x: r[S.x] * k, y: r[y], series: label, lo: Array.isArray(ci) ? ci[0] : null,
            hi: Array.isArray(ci) ? ci[1] : null,
            status: series.simulated ? status(r, (saturated || [])[i]) : "analytic",
            // null: no test able to see a critically loaded queue was judged (stability_not_judged says why).
            unstable: r.unstable === true ? "unstable" : r.unstable === false ? "stable" : "not judged"};
  }).filter(Boolean);
}

// Every curve on the plot named by what differs between the designs: "ports 16", "pim", "mlx5".
function seriesLabels() {
  const designs = [S.params, ...S.pins.map(p => p.params)];
  const skip = [S.x, ...fields().filter(f => f.run).map(f => f.name)];
  const labels = designLabels(designs, fieldOf, skip);
  const current = labels[0] || (S.pins.length ? "this design" : "analytic");
  const pins = S.pins.map((p, i) => labels[i + 1] || `pin ${i + 1}`);
  // A pin of the design on show is drawn once (its label says nothing the current one does not).
  return {current, pins, same: S.pins.map((p, i) => labels[i + 1] === labels[0])};
}

function references() {
  const out = [];
  const on = (r) => r.axis === "y" ? r.field === S.y : r.field === S.x;
  for (const r of S.page.references || []) {
    const applies = Object.entries(r.when || {}).every(([k, v]) => (S.params[k] || (fieldOf(k) || {}).default) === v);
    if (on(r) && applies) out.push(r);
  }
  // A load sweep of a saturation question's twin: the analytic saturation at these values.
  const main = S.page.main.analytic, twin = (S.page.twin_figure || {})[main];
  const value = S.solved && S.solved.result && S.solved.result[main];
  if (S.x === "load" && twin && S.y === twin && typeof value === "number")
    out.push({axis: "y", field: twin, value, label: `analytic ${words(main)} ${fmt(value)}`,
              source: S.solved.result.source || ""});
  return out;
}

function currentPlot() {
  const names = seriesLabels();
  const analytic = points(S.curve, {label: names.current});
  const pinned = [], simulated = [];
  S.pins.forEach((p, i) => {
    if (!names.same[i]) pinned.push(...points(S.pinned[i] || [], {label: names.pins[i]}));
    if (p.sim) simulated.push(...points(p.sim.rows, {label: names.pins[i], simulated: true}, p.sim.saturated));
  });
  simulated.push(...points(S.simRows, {label: names.current, simulated: true}, S.job ? S.job.saturated : []));
  const order = [...new Set([...analytic, ...pinned, ...simulated].map(p => p.series))];
  const values = [...analytic, ...pinned, ...simulated].map(p => p.y);
  return {page: S.page, x: S.x, y: S.y, analytic: analytic.concat(pinned), simulated, order,
          references: references(), log: logScale(S.yscale, values), current: {analytic, pinned, simulated}};
}

function plot() {
  // One drawing at a time, each of the newest state: an older drawing never lands over a newer one.
  S.plotting = S.plotting.then(plotNow, plotNow);
  return S.plotting;
}

async function plotNow() {
  const box = byId("plot");
  if (!box) return;
  if (!S.x) {
    box.replaceChildren(el("p", {class: "note"}, "Choose an x axis and a range to draw a curve."));
    box.setAttribute("aria-label", "plot: no curve (choose an x axis and a range)");
    window.switchqPlot = {analytic: [], pinned: [], simulated: [], legend: []};
    byId("plot-key").textContent = "";
    return;
  }
  const p = currentPlot();
  window.switchqPlot = {analytic: p.current.analytic, pinned: p.current.pinned, simulated: p.current.simulated,
                        x: S.x, y: S.y, legend: p.order, log: p.log, references: p.references.map(r => r.label)};
  if (!p.analytic.length && !p.simulated.length) {
    box.replaceChildren(el("p", {class: "note"}, S.x && !analyticField(S.x)
      ? `${labelOf(S.x)} feeds the simulated twin only: simulate to draw points.` : "No points yet."));
    box.setAttribute("aria-label", "plot: no points yet");
    byId("plot-key").textContent = "";
    return;
  }
  // The chart in a box of its own: #plot keeps its role (an image) and its name, which Vega would replace.
  const chart = el("div", {id: "plot-chart"});
  box.replaceChildren(chart);
  const result = await vegaEmbed(chart, plotSpec(p), {actions: false, renderer: "svg"});
  if (S.view) S.view.finalize();
  S.view = result.view;
  box.setAttribute("aria-label", `plot of ${words(S.y)} against ${labelOf(S.x)}${p.log ? " (log scale)" : ""}: ` +
    p.order.join("; ") +
    (p.references.length ? "; reference lines: " + p.references.map(r => r.label).join("; ") : ""));
  byId("plot-key").textContent = p.simulated.length
    ? "Lines: analytic. Points: simulated, with 95 % intervals (a square: overloaded by design, its throughput is " +
      "the saturation throughput; a diamond: stability not judged; a cross: unstable, no steady state)." : "";
}
