// The live run page: polls /api/v1/run with the coordinator's token and draws the run.
// The token comes from the address (#token=… or ?token=…, then removed from it) or the
// form, and stays in this tab's sessionStorage only.
"use strict";

const POLL_MS = 2000;
const KEY = "hakase-live-token";
const $ = (id) => document.getElementById(id);

function takeToken() {
  const url = new URL(window.location.href);
  const fromHash = new URLSearchParams(url.hash.replace(/^#/, "")).get("token");
  const fromQuery = url.searchParams.get("token");
  const given = fromHash || fromQuery;
  if (given) {
    sessionStorage.setItem(KEY, given);
    url.hash = "";
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search);
  }
  return sessionStorage.getItem(KEY) || "";
}

let token = takeToken();
let last = null;
let timer = null;

function duration(secs) {
  if (secs == null || !isFinite(secs)) return "–";
  secs = Math.max(0, Math.round(secs));
  const h = Math.floor(secs / 3600), m = Math.floor((secs % 3600) / 60), s = secs % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, "0")} min`;
  if (m > 0) return `${m} min ${String(s).padStart(2, "0")} s`;
  return `${s} s`;
}

function setState(state, text) {
  document.body.dataset.state = state;
  $("state").textContent = text;
}

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function fillRows(tbody, rows) {
  tbody.replaceChildren(...rows.map((cells) => {
    const tr = document.createElement("tr");
    if (cells.cls) tr.className = cells.cls;
    tr.append(...cells.tds);
    return tr;
  }));
}

const SVG = "http://www.w3.org/2000/svg";
function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text != null) node.textContent = text;
  return node;
}

// Settled first guesses (as a share of all) against seconds since the start.
function drawPlot(run) {
  const svg = $("plot");
  const w = Math.max(200, svg.clientWidth || 600), h = Math.max(120, svg.clientHeight || 208);
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const pad = { l: 38, r: 10, t: 10, b: 22 };
  const pw = w - pad.l - pad.r, ph = h - pad.t - pad.b;
  const pts = run.history.filter((p) => p.total > 0);
  const tMax = Math.max(1, run.elapsed_secs, ...pts.map((p) => p.t));
  const x = (t) => pad.l + (t / tMax) * pw;
  const y = (f) => pad.t + (1 - f) * ph;
  const nodes = [];
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    nodes.push(el("line", { class: f === 0 ? "axis" : "grid", x1: pad.l, x2: w - pad.r, y1: y(f), y2: y(f) }));
    nodes.push(el("text", { x: pad.l - 6, y: y(f) + 4, "text-anchor": "end" }, `${f * 100}%`));
  }
  nodes.push(el("line", { class: "axis", x1: pad.l, x2: pad.l, y1: pad.t, y2: h - pad.b }));
  nodes.push(el("text", { x: pad.l, y: h - 6, "text-anchor": "start" }, "0"));
  nodes.push(el("text", { x: w - pad.r, y: h - 6, "text-anchor": "end" }, duration(tMax)));
  if (pts.length > 0) {
    const line = pts.map((p, i) => `${i ? "L" : "M"}${x(p.t).toFixed(1)},${y(p.settled / p.total).toFixed(1)}`).join("");
    const end = pts[pts.length - 1];
    const area = `${line}L${x(end.t).toFixed(1)},${y(0)}L${x(pts[0].t).toFixed(1)},${y(0)}Z`;
    nodes.push(el("path", { class: "area", d: area }));
    nodes.push(el("path", { class: "line", d: line }));
  }
  svg.replaceChildren(...nodes);
}

function render(run) {
  last = run;
  $("login").hidden = true;
  const failed = run.state.startsWith("failed");
  setState(run.finished ? "finished" : failed ? "failed" : "running",
    run.finished ? "finished" : failed ? run.state : "running");
  $("game").textContent = `${run.game} · ${run.answers} answers`;
  const share = run.first_total ? run.first_settled / run.first_total : 0;
  $("settled").textContent = `${run.first_settled} / ${run.first_total}`;
  $("percent").textContent = `${Math.floor(share * 100)} %`;
  $("eta").textContent = run.finished ? "done" : duration(run.eta_secs);
  $("elapsed").textContent = duration(run.elapsed_secs);
  $("best").textContent = run.best ? `${run.best.guess} ${run.best.total}` : "–";
  $("bar-fill").style.width = `${(share * 100).toFixed(1)}%`;
  document.querySelector(".bar").setAttribute("aria-valuenow", String(Math.floor(share * 100)));
  $("jobs").textContent = `jobs: ${run.jobs.done} done, ${run.jobs.leased} leased, ${run.jobs.queued} queued · ${run.results} results`;
  // A first guess cut into part jobs: its parts settled and the interval of its total.
  const cuts = $("cuts");
  cuts.replaceChildren(...(run.cuts || []).map((c) => {
    const li = document.createElement("li");
    const upper = c.upper == null ? "?" : String(c.upper);
    li.textContent = `${c.guess}: ${c.parts_settled} / ${c.parts} parts settled · total in [${c.lower}, ${upper}] · ETA ${duration(c.eta_secs)}`;
    return li;
  }));
  cuts.hidden = cuts.children.length === 0;
  drawPlot(run);

  // `*`: a row resting on a worker claim the audit did not re-run (the result line says so).
  fillRows(document.querySelector("#ranking tbody"), run.ranking.map((r, i) => ({
    tds: [
      cell(String(i + 1)),
      cell(r.guess, "guess-cell"),
      cell(`${r.exact ? "" : "≥ "}${r.value}${r.unchecked ? " *" : ""}`, "num"),
      cell(r.exact ? (r.value / run.answers).toFixed(4) : `≥ ${(r.value / run.answers).toFixed(3)}`, "num"),
    ],
  })));

  $("ranking-marks").hidden = !run.ranking.some((r) => r.unchecked);
  $("ranking-title").textContent = run.finished ? "Ranking" : "Ranking so far";
  $("workers-live").textContent = `· ${run.workers_live} live`;
  fillRows(document.querySelector("#workers tbody"), run.workers.map((w) => ({
    cls: w.quarantined ? "quarantined" : w.live ? "" : "gone",
    tds: [
      cell(`#${w.id}${w.token ? " " + w.token : ""}${w.quarantined ? " (quarantined)" : w.live ? "" : " (gone)"}`),
      cell(String(w.threads), "num"),
      cell(String(w.jobs_done), "num"),
      cell(w.rate == null ? "–" : w.rate.toFixed(1), "num"),
    ],
  })));

  $("result").hidden = !run.finished;
  if (run.finished && run.best) {
    $("result-guess").textContent = run.best.guess;
    $("result-total").textContent = `total ${run.best.total}, mean ${run.best.mean.toFixed(4)} guesses (${run.proof})`;
    $("result-audit").textContent = run.audit;
  }
  $("updated").textContent = `updated ${new Date().toLocaleTimeString()}`;
}

function askToken(message) {
  setState("login", "token needed");
  $("login").hidden = false;
  $("login-error").hidden = !message;
  $("login-error").textContent = message || "";
  $("token").focus();
}

async function poll() {
  clearTimeout(timer);
  try {
    const reply = await fetch("api/v1/run", {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      cache: "no-store",
    });
    if (reply.status === 401) {
      sessionStorage.removeItem(KEY);
      askToken(token ? "That token was refused." : "");
      token = "";
      return;
    }
    if (!reply.ok) throw new Error(`HTTP ${reply.status}`);
    render(await reply.json());
  } catch (err) {
    // The coordinator stops soon after the result: keep the last picture, say so.
    if (last) {
      setState(last.finished ? "finished" : "gone", last.finished ? "finished · coordinator stopped" : "coordinator unreachable");
    } else {
      setState("gone", "coordinator unreachable");
    }
  }
  timer = setTimeout(poll, POLL_MS);
}

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("token").value.trim();
  if (token) sessionStorage.setItem(KEY, token);
  poll();
});
window.addEventListener("resize", () => { if (last) drawPlot(last); });
// A token pasted into the address of an open page (#token=…) is taken at once.
window.addEventListener("hashchange", () => {
  const given = takeToken();
  if (given && given !== token) {
    token = given;
    poll();
  }
});
poll();
