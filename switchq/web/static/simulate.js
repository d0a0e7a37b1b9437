// switchq serve: pins, the simulated twin and exports. A simulation is a job on the server, polled until done and
// cancelled for real (its point ended); pins keep designs (their simulated points too); exports carry the view.
"use strict";

// ------------------------------------------------------------------ pins

// A pin keeps a design: its analytic curve, and its simulated points if it has any (iSLIP against PIM).
function pin() {
  const sim = S.job && S.simRows.length && Object.keys(S.job.vary || {}).length
    ? {points: Object.values(S.job.vary)[0], run: {...S.job.run}, rows: S.simRows, saturated: S.job.saturated,
       job: S.job} : null;
  S.pins.push({params: {...S.params}, sim});
  writeURL(); drawCurves();
}
function unpin() { S.pins = []; writeURL(); setSimulating(); drawCurves(); }

// A pinned simulation from a permalink: asked for again (the server's store has its points, so they come back at
// once when the worker is free).
async function simulatePin(p) {
  const request = {params: S.x ? without(p.params, S.x) : p.params, vary: S.x ? {[S.x]: p.sim.points} : {},
                   run: p.sim.run};
  const {ok, data} = await api("POST", "/api/simulate/" + S.page.name, request);
  if (!ok) return;
  p.sim.job = data; setSimulating();
  while (!finished(p.sim.job)) {
    await new Promise(r => setTimeout(r, 300));
    const r = await api("GET", "/api/jobs/" + p.sim.job.id);
    if (!r.ok) { if (r.offline) continue; p.sim.job = {...p.sim.job, state: "failed"}; break; }
    p.sim.job = r.data;
  }
  p.sim.rows = p.sim.job.rows || []; p.sim.saturated = p.sim.job.saturated || [];
  setSimulating(); fillY(); plot();
}

// ------------------------------------------------------------------ simulation

function simRequest() {
  const vary = S.x && S.points ? {[S.x]: S.points} : {};
  return {params: S.x && S.points ? without(S.params, S.x) : S.params, vary, run: S.run};
}

async function simulate() {
  readForm();
  const t = ticket("simulate");
  const request = simRequest();
  S.sim = true; writeURL();
  S.errors.submit = {}; S.general.submit = "";
  const {ok, data, offline} = await api("POST", "/api/simulate/" + S.page.name, request);
  if (!current("simulate", t) || offline) return;
  if (!ok) {
    // Kept until the field changes and the server takes it (a check as typed no longer refuses it).
    const {errors, general} = refusalErrors(data);
    if (data.field && data.field === S.x) S.general.submit = data.message || data.error;
    else { S.errors.submit = errors; S.general.submit = general; }
    for (const name of Object.keys(errors)) S.touched.add(name);
    S.sim = false; writeURL();               // a permalink does not ask again for what was refused
    showErrors();
    return;
  }
  if (S.job && !finished(S.job)) api("DELETE", "/api/jobs/" + S.job.id);
  S.job = data; S.simRows = []; S.jobRequest = designKey();
  byId("cancel").disabled = false;
  setSimulating();
  renderSimulated();
  showProgress(data);
  poll(data);
}

// Progress within the running point, as the worker reports it (jobs.report_progress): "replication 3 of 8, about
// 12 s left"; anything else a runner reports as it comes.
function withinPoint(p) {
  if (!p) return "";
  if (typeof p.replications_done !== "number") {
    return " · " + Object.entries(p).map(([k, v]) => `${words(k)} ${fmt(v)}`).join(", ");
  }
  const left = typeof p.seconds_left === "number" && p.replications_done < p.replications
    ? `, about ${p.seconds_left < 10 ? fmt(p.seconds_left) : Math.round(p.seconds_left)} s left` : "";
  return ` · replication ${p.replications_done} of ${p.replications}${left}`;
}

function progressText(job) {
  const where = job.position ? `, ${job.position} ahead in the queue` : "";
  const within = job.state === "running" ? withinPoint(job.progress) : "";
  return `${job.done} of ${job.total} points (${job.state}${where})${within}` + (job.error ? `: ${job.error}` : "") +
    (job.stopped_because && job.stopped_because !== "cancelled" ? `: ${job.stopped_because}` : "");
}
function showProgress(job) { byId("progress").textContent = progressText(job); }

async function poll(job) {
  if (!job || S.job !== job && (!S.job || S.job.id !== job.id)) return;
  const t = ticket("poll");
  const {ok, status, data, offline} = await api("GET", "/api/jobs/" + job.id);
  if (!current("poll", t) || !S.job || S.job.id !== job.id) return;   // another request took over meanwhile
  if (offline) return;                                                // resumed by resume() when the server is back
  if (!ok) {
    // An id this server never gave (it restarted): the points drawn stay, the request is over.
    S.job = {...S.job, state: "failed", error: status === 404 ? data.message || data.error : data.error};
    showProgress(S.job); byId("cancel").disabled = true; setSimulating();
    return;
  }
  if (data.model !== S.page.name) return;                             // never another request's rows
  const grew = data.rows.length !== S.simRows.length;
  S.job = data; S.simRows = data.rows;
  showProgress(data);
  if (grew) { fillY(); await plot(); renderSimulated(); }
  if (finished(data)) { byId("cancel").disabled = true; setSimulating(); renderReproduce(); return; }
  setTimeout(() => poll(S.job), 250);
}

async function cancel() {
  if (!S.job || finished(S.job)) return;
  const {ok, data} = await api("DELETE", "/api/jobs/" + S.job.id);
  if (ok && S.job && data.id === S.job.id) {
    S.job = data; S.simRows = data.rows; showProgress(data);
    if (finished(data)) { byId("cancel").disabled = true; setSimulating(); }
  }
}

// ------------------------------------------------------------------ reproduce and export

function renderReproduce() {
  const box = byId("reproduce");
  const blocks = [];
  if (S.solved) blocks.push(["This answer", S.solved]);
  if (S.curve.length && S.curveCall) blocks.push(["This curve", S.curveCall]);
  if (S.job && S.job.command) blocks.push(["These simulated points", S.job]);
  box.replaceChildren(...blocks.map(([title, r]) => el("div", {},
    el("h3", {}, title), el("pre", {class: "command"}, r.command), el("pre", {class: "python"}, r.python))));
}

function download(name, text, type) {
  const a = el("a", {href: URL.createObjectURL(new Blob([text], {type})), download: name});
  document.body.append(a); a.click(); a.remove();
}

async function exportData(format) {
  const name = S.page.name;
  byId("err-points").textContent = "";
  if (S.job && S.simRows.length) {
    // The request's own rows from the server (exact seeds, the CLI's columns); an id from before a restart is
    // refused (404), never answered with another request's rows.
    const r = await api("GET", `/api/jobs/${S.job.id}/${format}`);
    if (!r.ok) {
      byId("err-points").textContent = `${format.toUpperCase()}: ${r.data.message || r.data.error}`;
      return;
    }
    download(`${name}-simulated.${format}`, r.text, format === "csv" ? "text/csv" : "application/json");
  } else if (S.curve.length) {
    if (format === "csv") {
      busy(1);
      try {
        const r = await fetch(`/api/sweep/${name}?format=csv`, {method: "POST",
          headers: {"Content-Type": "application/json"},
          body: JSON.stringify({params: without(analyticOnly(S.params), S.x), vary: {[S.x]: S.range}})});
        download(`${name}.csv`, await r.text(), "text/csv");
      } catch (e) { serverDown(); } finally { busy(-1); }
    } else download(`${name}.json`, JSON.stringify(S.curve), "application/json");
  } else if (S.solved) {
    if (format === "json") download(`${name}.json`, JSON.stringify(S.solved.result), "application/json");
    else byId("err-general").textContent = "CSV: draw a curve or simulate points first.";
  }
}

// The title, legend and parameters go into the file: a PNG or SVG read alone says what it shows.
function exportTitle() {
  const given = Object.entries(S.params).filter(([k]) => k !== S.x).map(([k, v]) => `${labelOf(k)} ${v}`);
  const run = Object.entries(S.run).map(([k, v]) => `${labelOf(k)} ${v}`);
  const lines = [`${words(S.y)} against ${labelOf(S.x)}` + (given.length ? ": " + given.join(", ") : " (defaults)")];
  if (S.simRows.length && run.length) lines.push("simulated: " + run.join(", "));
  lines.push(S.curveCall ? S.curveCall.command : S.job ? S.job.command : `switchq ${S.page.verb} ${S.page.command}`);
  return {title: S.page.title, subtitle: lines};
}

async function exportPlot(format) {
  if (!S.x || !S.view) { byId("err-general").textContent = `${format.toUpperCase()}: draw a curve first.`; return; }
  const {name, href} = await exportChart({...currentPlot(), ...exportTitle()}, format, S.page.name);
  const a = el("a", {href, download: name});
  document.body.append(a); a.click(); a.remove();
}
