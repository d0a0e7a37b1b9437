// switchq serve: talking to the server. Every request goes through api(): big integers (seeds) kept exact, the
// newest request of a view winning over slower older ones (tickets), a banner while the server cannot be reached
// and a resume when it is back, and the page's busy state (body[data-state], the #busy line).
"use strict";

// ------------------------------------------------------------------ JSON with exact big integers

// JSON.parse rounds integers beyond 2^53 (8831625547063467241 would read 8831625547063467000): such literals are
// quoted before parsing, so a seed stays exact, as text, from the server to the page and back.
function parseJSON(text) {
  let out = "", start = 0, i = 0;
  const n = text.length;
  const digit = c => c >= 48 && c <= 57;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {                                   // a string: skipped whole, escapes included
      i++;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
      i++;
    } else if (c === 45 || digit(c)) {                // a number
      let j = i + 1, integer = true;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (digit(d)) j++;
        else if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) { integer = false; j++; }
        else break;
      }
      const token = text.slice(i, j);
      if (integer && token.replace("-", "").length > 15 && !Number.isSafeInteger(Number(token))) {
        out += text.slice(start, i) + '"' + token + '"';
        start = j;
      }
      i = j;
    } else i++;
  }
  return JSON.parse(out + text.slice(start));
}

// ------------------------------------------------------------------ the newest request wins

// One counter per view (the answer, the curve, a check, a job's poll): a response is used only if no newer
// request of its view was made meanwhile; an older, slower answer is dropped.
const TICKETS = {};
function ticket(view) { TICKETS[view] = (TICKETS[view] || 0) + 1; return TICKETS[view]; }
function current(view, t) { return TICKETS[view] === t; }

// ------------------------------------------------------------------ busy

const BUSY = {pending: 0, waiting: false, simulating: false};
function busy(delta) {
  BUSY.pending += delta || 0;
  const working = BUSY.pending > 0 || BUSY.waiting;
  document.body.dataset.state = working || BUSY.simulating ? "busy" : "idle";
  const line = document.getElementById("busy");
  if (line) {
    const text = BUSY.simulating ? "Simulating…" : working ? "Working…" : "";
    if (line.textContent !== text) line.textContent = text;
    line.classList.toggle("idle", !text);      // hidden but still taking its line: nothing below it moves
  }
}

// ------------------------------------------------------------------ the server, reachable or not

const NET = {down: false, timer: null, instance: null, resumes: []};
function onResume(f) { NET.resumes.push(f); }

function banner(text) {
  const b = document.getElementById("banner");
  if (!b) return;
  b.textContent = text || "";
  b.hidden = !text;
}

function serverDown() {
  if (NET.down) return;
  NET.down = true;
  banner("The server is unreachable: retrying every second. Answers on this page are from before it went away.");
  ping();
}

async function ping() {
  try {
    const r = await fetch("/api/limits", {cache: "no-store"});
    if (r.ok) {
      const limits = parseJSON(await r.text());
      NET.down = false;
      const restarted = NET.instance !== null && limits.instance !== NET.instance;
      NET.instance = limits.instance;
      banner(null);
      for (const f of NET.resumes) f({restarted});
      return;
    }
  } catch (e) { /* still down */ }
  NET.timer = setTimeout(ping, 1000);
}

// A request: {ok, status, data, text}; status 0 (offline) when the server cannot be reached, never a throw.
async function api(method, path, body) {
  busy(1);
  try {
    let r;
    try {
      r = await fetch(path, {method, headers: body ? {"Content-Type": "application/json"} : {},
                             body: body ? JSON.stringify(body) : undefined, cache: "no-store"});
    } catch (e) {
      serverDown();
      return {ok: false, status: 0, offline: true, data: {error: "the server is unreachable", errors: {}}};
    }
    const text = await r.text();
    let data = null;
    try { data = parseJSON(text); } catch (e) { data = {text}; }
    return {ok: r.ok, status: r.status, data, text};
  } finally { busy(-1); }
}
