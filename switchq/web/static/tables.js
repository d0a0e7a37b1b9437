// switchq serve: the answer tables. The analytic answer (and a sizing answer's terms, stacked), the simulated twin
// at these values beside it, and a run's diagnostics (stability tests, batches, seeds) in a "details" fold rather
// than among the results.
"use strict";

function unitOf(payload, k) { return (payload.units || {})[k] || ""; }
function unitIn(payloads, k) { return payloads.map(p => unitOf(p, k)).find(u => u) || ""; }

// A value as the page shows it: a size parameter of a sweep or simulated row in bytes (rows keep a parameter in
// its canonical unit, bits; an answer's own fields carry their units), the rest as the CLI prints it.
function shownValue(k, v, row = true) { return row && typeof v === "number" && scaleOf(k) !== 1 ? v * scaleOf(k) : v; }

function resultTable(payloads, keys, id) {
  const label = payloads.length > 1 ? keys.concat(["model"]).find(k =>
    new Set(payloads.map(p => JSON.stringify(p[k]))).size > 1) : null;
  const head = el("tr", {}, el("th", {scope: "col"}, "quantity"),
                  payloads.length > 1 ? payloads.map(p => el("th", {scope: "col"}, fmt(p[label])))
                                      : el("th", {scope: "col"}, "value"),
                  el("th", {scope: "col"}, "unit"));
  const rows = [];
  for (const k of keys) {
    const parts = [...new Set(payloads.flatMap(p => (p[k] && typeof p[k] === "object" && !Array.isArray(p[k]))
                                                    ? Object.keys(p[k]) : []))];
    if (parts.length) {
      for (const part of parts) rows.push(el("tr", {}, el("td", {}, `${words(k)}: ${words(part)}`),
        payloads.map(p => cell((p[k] || {})[part], p, k)), el("td", {}, unitIn(payloads, k))));
    } else rows.push(el("tr", {"data-quantity": k}, el("td", {}, words(k)), payloads.map(p => cell(p[k], p, k)),
                        el("td", {}, unitIn(payloads, k) || (S.page.units[k] || ""))));
  }
  return el("table", {class: "result", id}, head, rows);
}

// A figure with its interval. A saturated twin (overloaded by design) keeps its interval: its throughput is the
// saturation throughput. An unstable run of any other question has no steady state, so its interval is not shown.
function cell(v, payload, k) {
  const ci = payload[k + "_ci95"];
  let text = fmt(shownValue(k, v, Boolean(payload.row)));
  if (Array.isArray(ci) && !Array.isArray(ci[0])) {
    if (payload.unstable === true && !payload.saturated) text += "  (unstable: no steady state)";
    else text += `  (95% CI ${fmt(ci[0])} .. ${fmt(ci[1])})`;
  }
  return el("td", {class: typeof v === "number" ? "num" : "text"}, text);
}

function termsChart(payloads, box) {
  // A sizing answer's terms (headroom, credits) stacked: one bar per answer, each term's source in its tooltip.
  const data = [];
  payloads.forEach((p, i) => {
    const label = payloads.length > 1 ? fmt(p.model !== undefined ? p.model : i + 1) : (S.page.command);
    // A row that could not answer (its reason in its own row of the table) has no terms to stack.
    for (const [term, value] of Object.entries(p.terms || {})) if (typeof value === "number")
      data.push({answer: label, term, value, source: (p.term_sources || {})[term] || ""});
  });
  const unit = unitIn(payloads, "terms");
  const terms = [...new Set(data.map(d => d.term))];
  vegaEmbed(box, {$schema: "https://vega.github.io/schema/vega-lite/v5.json", width: "container", height: 260,
    autosize: {type: "fit", contains: "padding"}, data: {values: data}, mark: "bar",
    encoding: {x: {field: "answer", type: "nominal", title: null, sort: null, axis: {labelAngle: 0}},
               y: {field: "value", type: "quantitative", stack: true, title: `terms${unit ? " [" + unit + "]" : ""}`},
               // Every term its own colour: the palette has more colours than any answer has terms.
               color: {field: "term", type: "nominal", sort: null, scale: {domain: terms, range: PALETTE},
                       legend: {columns: 2, orient: "bottom", symbolLimit: 40}},
               tooltip: [{field: "answer"}, {field: "term"}, {field: "value", format: ".6~g"}, {field: "source"}]}},
    {actions: false, renderer: "svg"});
  box.setAttribute("role", "img");
  box.setAttribute("aria-label", `terms stacked by answer: ${terms.map(words).join(", ")}`);
  window.switchqTerms = data;
  return el("table", {class: "result", id: "terms"}, el("tr", {}, el("th", {}, "answer"), el("th", {}, "term"),
    el("th", {}, "value" + (unit ? ` [${unit}]` : "")), el("th", {}, "source")),
    data.map(d => el("tr", {}, el("td", {}, d.answer), el("td", {}, words(d.term)),
                     el("td", {class: "num"}, fmt(d.value)),
                     el("td", {class: "text"}, d.source))));
}

function renderAnswer(data, note) {
  const box = byId("answer");
  if (!data) { box.replaceChildren(...(note ? [el("p", {class: "note", id: "answer-note"}, note)] : [])); return; }
  const r = data.result;
  const payloads = Array.isArray(r) ? r : (r.rows || [r]);
  const first = payloads[0];
  const keys = [...new Set(payloads.flatMap(p => Object.keys(p)))].filter(k => k !== "units" &&
    !k.endsWith("_ci95") && !k.endsWith("_samples") && !(k === "term_sources" && first.terms));
  const parts = [el("h2", {}, "Analytic answer"), resultTable(payloads, keys, "result")];
  if (payloads.some(p => p.terms && typeof p.terms === "object")) {
    // A sizing answer: its terms first (the figure is their sum), then every field.
    const chart = el("div", {id: "terms-chart"});
    const terms = el("div", {});
    box.replaceChildren(el("h2", {}, "Term by term"), chart, terms, ...parts);
    terms.append(termsChart(payloads, chart));   // drawn once in the page, so the chart takes its container's width
    return;
  }
  box.replaceChildren(...parts);
}

// ------------------------------------------------------------------ the simulated twin

// A row's fields split: what it measures (the declared results), and the run's diagnostics.
function splitRow(row) {
  const known = declared();
  const main = [], details = [];
  for (const k of Object.keys(row)) {
    const parameter = fieldOf(k) && !fieldOf(k).run;      // the inputs are in the form; run settings are details
    if (k.endsWith("_ci95") || k.endsWith("_samples") || ["model", "mode", "unstable"].includes(k) || parameter) {
      continue;
    }
    (known.has(k) ? main : details).push(k);
  }
  return {main, details};
}

function stabilityText(row, saturated) {
  if (saturated) return "overloaded by design: its throughput is the saturation throughput";
  if (row.unstable === true) {
    return "unstable: no steady state" + (row.unstable_because ? ` (${row.unstable_because})` : "");
  }
  if (row.unstable === false) return "stable";
  return "stability not judged";
}

// Each analytic result the twin measures, side by side, with the verdict engine's class (the rule every
// switchq validate row follows): the analytic value, the simulated interval it was judged on and its replications,
// the difference, the band or precision, the class and why. A comparison that does not hold at these inputs says why.
function verdictTable(verdicts) {
  if (!verdicts || !verdicts.length) return null;
  const head = el("tr", {}, ["quantity", "analytic", "simulated", "interval", "replications", "difference", "band",
                             "verdict"].map(h => el("th", {}, h)));
  return el("table", {class: "result", id: "verdicts", "aria-label": "analytic against simulated"}, head,
    verdicts.map(c => {
      if (!c.verdict) {
        return el("tr", {"data-verdict": "none"}, el("td", {}, words(c.result)),
                  el("td", {class: "text", colspan: "7"}, `not compared: ${c.not_compared}`));
      }
      const band = c.band ? `${fmt(c.band[0])} .. ${fmt(c.band[1])}` : `point, precision ${fmt(c.precision)}`;
      const level = `${+(100 * c.level).toFixed(2)}%`;
      return el("tr", {"data-verdict": c.verdict},
        el("td", {}, words(c.result) + (c.metric !== c.result ? ` (simulated: ${words(c.metric)})` : "")),
        el("td", {class: "num"}, fmt(c.analytic)), el("td", {class: "num"}, fmt(c.simulated)),
        el("td", {class: "num"}, `${fmt(c.interval[0])} .. ${fmt(c.interval[1])} (${level})`),
        el("td", {class: "num"}, fmt(c.replications)), el("td", {class: "num"}, fmt(c.difference)),
        el("td", {class: "text"}, band),
        el("td", {class: `text verdict ${c.verdict.replace(/ /g, "-")}`, title: c.verdict_why},
           c.verdict === "agree" ? "agree" : `${c.verdict}: ${c.verdict_why}`));
    }));
}

// The twin's figure beside the analytic one, where the model declares no comparison of its own.
function comparison(row, saturated) {
  const main = S.page.main.analytic, twin = (S.page.twin_figure || {})[main] || main;
  const analytic = S.solved && S.solved.result ? S.solved.result[main] : undefined;
  if (typeof analytic !== "number" || typeof row[twin] !== "number") return null;
  const ci = row[twin + "_ci95"];
  const shown = Array.isArray(ci) && (row.unstable !== true || saturated);
  return el("table", {class: "result", id: "comparison"},
    el("tr", {}, el("th", {}, "quantity"), el("th", {}, "analytic"), el("th", {}, "simulated"),
       el("th", {}, "95% interval"), row.verdict !== undefined ? el("th", {}, "verdict") : null),
    el("tr", {}, el("td", {}, words(main)), el("td", {class: "num"}, fmt(analytic)),
       el("td", {class: "num"}, fmt(row[twin])),
       el("td", {class: "num"}, shown ? `${fmt(ci[0])} .. ${fmt(ci[1])}` : "-"),
       row.verdict !== undefined ? el("td", {class: "text"}, fmt(row.verdict)) : null));
}

function detailsFold(row, keys) {
  const why = row.unstable === null && row.stability_not_judged ? ["stability_not_judged"] : [];
  const list = [...why, ...keys.filter(k => k !== "stability_not_judged")];
  if (!list.length) return null;
  return el("details", {class: "diagnostics"}, el("summary", {}, "details: the run's diagnostics"),
    el("table", {class: "result"}, list.map(k => el("tr", {"data-quantity": k}, el("td", {}, k),
                                                    el("td", {class: typeof row[k] === "number" ? "num" : "text"},
                                                       fmt(row[k]))))));
}

function renderSimulated() {
  const box = byId("simulated");
  if (!box) return;
  if (!S.simRows.length) { box.replaceChildren(); return; }
  const saturated = (S.job && S.job.saturated) || [];
  if (Object.keys(S.job.vary || {}).length === 0) {
    // One point at these values: the twin's answer beside the analytic one.
    const row = S.simRows[0], sat = Boolean(saturated[0]);
    const verdicts = (S.job.verdicts || [])[0];
    const units = {};
    for (const k of Object.keys(row)) if (S.page.units[k]) units[k] = S.page.units[k];
    const {main, details} = splitRow(row);
    box.replaceChildren(el("h2", {}, "Simulated twin at these values"),
      verdicts && verdicts.length ? verdictTable(verdicts) : comparison(row, sat),
      el("p", {class: "stability", id: "stability"}, stabilityText(row, sat)),
      resultTable([{...row, units, saturated: sat, row: true}], main, "sim-result"), detailsFold(row, details));
    return;
  }
  // Several points: one line each, the plotted figure with its interval and stability.
  const twin = (S.page.twin_figure || {})[S.y];
  const head = el("tr", {}, el("th", {}, labelOf(S.x)),
                  el("th", {}, words(S.y) +
                     (twin && S.simRows.some(r => !(S.y in r)) ? ` (simulated: ${words(twin)})` : "")),
                  el("th", {}, "95% interval"), el("th", {}, "stability"), el("th", {}, "verdict"));
  box.replaceChildren(el("h2", {}, "Simulated points"), el("table", {class: "result", id: "sim-points"}, head,
    S.simRows.map((r, i) => {
      const y = simField(r), sat = Boolean(saturated[i]), ci = y ? r[y + "_ci95"] : null;
      const shown = Array.isArray(ci) && (r.unstable !== true || sat);
      // The engine's verdict on the plotted quantity at this point, where the model compares it.
      const v = ((S.job.verdicts || [])[i] || []).find(c => c.result === S.y || c.metric === S.y);
      return el("tr", {}, el("td", {class: "num"}, fmt(shownValue(S.x, r[S.x]))),
                el("td", {class: "num"}, y ? fmt(r[y]) : "-"),
                el("td", {class: "num"}, shown ? `${fmt(ci[0])} .. ${fmt(ci[1])}` : "-"),
                el("td", {class: "text"}, stabilityText(r, sat)),
                el("td", {class: "text", title: v ? (v.verdict_why || v.not_compared) : ""},
                   v ? (v.verdict || "not compared") : "-"));
    })));
}
