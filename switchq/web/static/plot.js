// switchq serve: the plot. Curves named in a legend by what differs between them, simulated points with their 95 %
// intervals, reference lines, a log y axis where a quantity spans decades, values on hover, and exports (PNG, SVG)
// that carry a title, the legend and the parameters. Vega-Lite draws; nothing here computes a model.
"use strict";

// Kelly's colours of maximum contrast (white and black left out): 20 hues, more than any page has stacked terms
// (SONiC's 15) or curves, so no two share a colour.
const PALETTE = ["#0067a5", "#f38400", "#008856", "#be0032", "#875692", "#a1caf1", "#882d17", "#8db600",
                 "#e68fac", "#f3c300", "#604e97", "#f6a600", "#b3446c", "#848482", "#c2b280", "#dcd300",
                 "#654522", "#e25822", "#2b3d26", "#f99379"];

// ------------------------------------------------------------------ naming curves by what differs

// A value as a legend shows it: "ports 16", a choice by itself ("pim", "mlx5"), a flag by its name.
function describeValue(f, v) {
  if (!f) return `${v}`;
  if (f.kind === "choice") return `${v}`;
  if (f.kind === "flag") return ["true", "yes", "on", "1"].includes(`${v}`.toLowerCase()) ? f.label : `no ${f.label}`;
  return `${f.label} ${v}`;
}

// Labels of designs (parameter texts by name): each named by the parameters whose values differ among them.
function designLabels(designs, fieldOf, skip) {
  const keys = [...new Set(designs.flatMap(d => Object.keys(d)))].filter(k => !skip.includes(k));
  const shown = (d, k) => (k in d && d[k] !== "") ? d[k] : (fieldOf(k) ? `(default ${fieldOf(k).default})` : "");
  const differ = keys.filter(k => new Set(designs.map(d => shown(d, k))).size > 1);
  return designs.map(d => differ.map(k => describeValue(fieldOf(k), shown(d, k).replace(/^\(default (.*)\)$/, "$1")))
                                .join(", "));
}

// ------------------------------------------------------------------ the spec

function unitText(page, name) { return page.units[name] ? ` [${page.units[name]}]` : ""; }
function words(name) { return String(name).replace(/_/g, " "); }

// y on a log scale: asked for, or (auto) where every value is positive and they span two decades or more.
function logScale(choice, values) {
  if (choice === "log") return true;
  if (choice !== "auto") return false;
  const v = values.filter(y => typeof y === "number" && isFinite(y));
  return v.length > 1 && v.every(y => y > 0) && Math.max(...v) / Math.min(...v) >= 100;
}

// plot: {page, x, y, analytic: [points], simulated: [points], order: [labels], references: [...], log, title?}.
// A point: {x, y, series, lo, hi, status} (status: stable, not judged, unstable, saturated).
function plotSpec(plot) {
  const {page} = plot;
  const xf = page.groups.flatMap(g => g.fields).find(f => f.name === plot.x);
  const xTitle = (xf ? xf.label : words(plot.x)) + unitText(page, plot.x);
  const yTitle = words(plot.y) + unitText(page, plot.y);
  const all = plot.analytic.concat(plot.simulated);
  const keep = p => !plot.log || p.y > 0;
  const analytic = plot.analytic.filter(keep);
  const simulated = plot.simulated.filter(keep).map(p => plot.log && p.lo !== null && p.lo <= 0 ? {...p, lo: p.y} : p);
  const xs = all.map(p => p.x);
  const xDomain = xs.length ? [Math.min(...xs), Math.max(...xs)] : undefined;
  // One design: nothing to tell apart, no legend of curves (the key under the plot says lines and points).
  const color = {field: "series", type: "nominal", title: "curves", scale: {domain: plot.order, range: PALETTE},
                 legend: plot.order.length > 1 ? {labelLimit: 260, orient: "bottom", columns: 2} : null};
  const x = {field: "x", type: "quantitative", title: xTitle,
             scale: {zero: false, nice: false, padding: 8,
                     ...(xDomain && xDomain[0] < xDomain[1] ? {domain: xDomain} : {})}};
  const y = {field: "y", type: "quantitative", title: yTitle, scale: plot.log ? {type: "log"} : {zero: false}};
  const tip = [{field: "series", title: "curve"}, {field: "x", title: xTitle, format: ".6~g"},
               {field: "y", title: yTitle, format: ".6~g"}];
  const layers = [];
  if (analytic.length) layers.push({data: {values: analytic}, mark: {type: "line", point: {size: 40}},
                                    encoding: {x, y, color, tooltip: tip}});
  if (simulated.length) {
    // Each simulated point with its 95 % interval (capped, so a short one stays visible). An unstable point of a
    // question that is not about overload has no steady state, so no interval: drawn as a cross alone.
    const bars = simulated.filter(p => p.lo !== null && p.status !== "unstable");
    if (bars.length) layers.push({data: {values: bars}, mark: {type: "errorbar", ticks: true, thickness: 2},
      encoding: {x, y: {field: "lo", type: "quantitative", title: yTitle, scale: y.scale}, y2: {field: "hi"}, color}});
    layers.push({data: {values: simulated}, mark: {type: "point", filled: true, size: 60},
      encoding: {x, y, color, shape: {field: "status", type: "nominal", title: "simulated",
                                      scale: {domain: ["stable", "not judged", "saturated", "unstable"],
                                              range: ["circle", "diamond", "square", "cross"]}},
                 tooltip: [...tip, {field: "lo", title: "95% CI low", format: ".6~g"},
                           {field: "hi", title: "95% CI high", format: ".6~g"},
                           {field: "status", title: "stability"}]}});
  }
  for (const r of plot.references) {
    const horizontal = r.axis === "y";
    if (!horizontal && !(xDomain && r.value >= xDomain[0] && r.value <= xDomain[1])) continue;
    if (horizontal && plot.log && r.value <= 0) continue;
    const at = {field: "v", type: "quantitative"};
    layers.push({data: {values: [{v: r.value, label: r.label, source: r.source || ""}]},
      layer: [{mark: {type: "rule", strokeDash: [6, 4], color: "#57606a"},
               encoding: {...(horizontal ? {y: {...at, scale: y.scale}} : {x: {...at, scale: x.scale}}),
                          tooltip: [{field: "label", title: "reference"}, {field: "v", title: "value", format: ".6~g"},
                                    {field: "source"}]}},
              {mark: {type: "text", align: horizontal ? "left" : "right", dx: horizontal ? 4 : -4, dy: -6,
                      angle: horizontal ? 0 : 270, color: "#57606a", fontSize: 11},
               encoding: {...(horizontal ? {y: {...at, scale: y.scale}, x: {value: 0}} : {x: {...at, scale: x.scale},
                                                                                         y: {value: 0}}),
                          text: {field: "label"}}}]});
  }
  const spec = {$schema: "https://vega.github.io/schema/vega-lite/v5.json", layer: layers,
                width: plot.width || "container", height: 320,
                autosize: {type: "fit", contains: "padding"}, config: {legend: {symbolLimit: 40}}};
  if (plot.title) spec.title = {text: plot.title, subtitle: plot.subtitle || [], anchor: "start", subtitleFontSize: 11};
  return spec;
}

// ------------------------------------------------------------------ exports

// The chart as a file of its own: its title (the model), the legend and the parameters it was drawn at.
async function exportChart(plot, format, name) {
  const spec = plotSpec({...plot, width: 720});
  spec.autosize = {type: "pad"};
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), {renderer: "none"});
  try {
    await view.runAsync();
    if (format === "svg") return {name: `${name}.svg`, href: URL.createObjectURL(new Blob([await view.toSVG()],
                                                                                         {type: "image/svg+xml"}))};
    return {name: `${name}.png`, href: await view.toImageURL("png", 2)};
  } finally { view.finalize(); }
}
