// hakase web assistant: type (or take) a guess, tap its tiles to the colours the game showed,
// and read the optimal next guess. Talks to /api/v1/ of `hakase serve`; no build step.
"use strict";

const TEXT = {
  ja: {
    tagline: "ワードルの次の一手を、証明済みの最適戦略で。",
    run: "ゲームと解",
    board: "これまでの手",
    yourGuess: "入力した単語",
    useSuggestion: "おすすめを使う",
    tapHint: "タイルをタップして色を合わせる（灰 → 黄 → 緑）。Tab で移動、Space で切り替え、Enter で決定。",
    submit: "決定",
    undo: "一手戻す",
    restart: "最初から",
    paste: "共有された絵文字を貼り付ける",
    pasteHint: "ゲームの共有文（⬛🟨🟩 の行）を貼り付けると、おすすめの単語を打った前提で順に入力します。",
    applyPaste: "反映",
    nextGuess: "次のおすすめ",
    remaining: "残りの答え",
    expected: "あと平均",
    worst: "あと最大",
    pattern: "色",
    left: "残り",
    then: "次の手",
    avg: "あと平均",
    chartOf: (w) => `「${w}」の結果ごとの表`,
    chartNone: "表",
    guesses: (n) => `${n} 手`,
    won: (w, n) => `${n} 手目で正解: ${w}`,
    noneLeft: "この色の組み合わせに合う答えはありません。",
    infeasible: "残りの手数では全ての答えを確実には当てられません。",
    fromTree: "保存された木より",
    computed: "その場で計算（最適木から外れた手）",
    // The server decides the claim (the run's `label`); this only words each label kind.
    claims: {
      "proven-optimal": () => "最適性は証明済み",
      exact: (w) => w
        ? `初手「${w}」を前提とした最適性は証明済み（初手そのものの最適性ではない）`
        : "この初手を前提とした最適性は証明済み",
      heuristic: (w) => w ? `初手「${w}」を前提とした上界（証明なし）` : "上界（証明なし）",
    },
    answers: "答え",
    tries: "回",
    enterWord: "単語を入力してください。",
    footer: "hakase 博士 — 色は 灰 (含まれない)・黄 (別の位置)・緑 (正しい位置)。",
    noRuns: "解がまだありません。hakase solve で作ってください。",
    lang: "English",
    puzzleTitle: "パズル（答えは一つ）",
    puzzleNext: "次の問題",
    puzzleAnswer: "答え",
    puzzleCheck: "答え合わせ",
    puzzleMeta: (p) => `${p.game} · ${p.day}/${p.count} 日目 · ${p.kind === "deduction" ? "推理" : "最善手"} · ${{ easy: "易", medium: "中", hard: "難" }[p.level]}`,
    puzzleRight: (w) => `正解！ 答えは ${w}。`,
    puzzleWrong: (a, w) => `不正解: ${a} ではありません。答えは ${w}。`,
  },
  en: {
    tagline: "The next Wordle guess, from a proven-optimal strategy.",
    run: "Game and solution",
    board: "Your guesses",
    yourGuess: "Word you played",
    useSuggestion: "Use suggestion",
    tapHint: "Tap each tile to match the game (gray → yellow → green). Tab to move, Space to change, Enter to submit.",
    submit: "Submit",
    undo: "Undo",
    restart: "Restart",
    paste: "Paste the emoji grid the game shares",
    pasteHint: "Paste the shared result (rows of ⬛🟨🟩); each row is applied to the suggested guess in turn.",
    applyPaste: "Apply",
    nextGuess: "Next guess",
    remaining: "Answers left",
    expected: "Expected guesses left",
    worst: "Worst case",
    pattern: "Colours",
    left: "Left",
    then: "Then",
    avg: "Avg. left",
    chartOf: (w) => `Chart of ${w}`,
    chartNone: "Chart",
    guesses: (n) => `${n} guess${n === 1 ? "" : "es"}`,
    won: (w, n) => `Solved in ${n}: ${w}`,
    noneLeft: "No answer fits these colours.",
    infeasible: "No strategy can guarantee the answer within the guesses left.",
    fromTree: "from the stored tree",
    computed: "computed on the spot (you left the optimal tree)",
    answers: "answers",
    tries: "tries",
    enterWord: "Type a word first.",
    footer: "hakase 博士 — gray: not in the answer, yellow: elsewhere, green: right place.",
    noRuns: "No solution is served yet: make one with hakase solve.",
    lang: "日本語",
    puzzleTitle: "Puzzle (exactly one answer)",
    puzzleNext: "Next puzzle",
    puzzleAnswer: "Your answer",
    puzzleCheck: "Check",
    puzzleMeta: (p) => `${p.game} · day ${p.day} of ${p.count} · ${p.kind} · ${p.level}`,
    puzzleRight: (w) => `Right! The answer is ${w}.`,
    puzzleWrong: (a, w) => `Wrong: not ${a}. The answer is ${w}.`,
  },
};

const STATES = ["gray", "yellow", "green"];
const KANJI = ["灰", "黄", "緑"];
const $ = (id) => document.getElementById(id);

const state = {
  lang: "en",
  runs: [],
  run: null,
  steps: [], // {guess, cells: [0|1|2...]}
  cells: [], // colours of the guess being entered
  next: null,
  chart: null,
};

function t(key, ...args) {
  const v = TEXT[state.lang][key];
  return typeof v === "function" ? v(...args) : v;
}

// Words as the game writes them: katakana for Pokémon (hiragana and half-width kana are
// converted), lower case for English.
function normalizeWord(text) {
  let s = text.normalize("NFKC").trim();
  if (state.run && state.run.kana) {
    s = s.replace(/[\u3041-\u3096]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60));
  } else {
    s = s.toLowerCase();
  }
  return s;
}

function letters(word) {
  return Array.from(word);
}

function patternText(cells) {
  return cells.map((c) => KANJI[c]).join("");
}

async function api(path, body) {
  const init = body === undefined
    ? {}
    : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const res = await fetch(`/api/v1/${path}`, init);
  const json = await res.json().catch(() => ({ error: { message: `HTTP ${res.status}` } }));
  if (!res.ok) {
    throw new Error(json.error ? json.error.message : `HTTP ${res.status}`);
  }
  return json;
}

function history(extra) {
  const steps = state.steps.map((s) => ({ guess: s.guess, pattern: patternText(s.cells) }));
  if (extra) steps.push(extra);
  return steps;
}

function showError(message) {
  const el = $("error");
  el.textContent = message || "";
  el.hidden = !message;
}

function setBusy(busy) {
  document.body.dataset.busy = busy ? "true" : "false";
}

// ---- rendering -------------------------------------------------------------------------

function applyLanguage() {
  document.documentElement.lang = state.lang;
  for (const el of document.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  $("lang").textContent = t("lang");
  renderRunInfo();
  renderAdvice();
  renderChart();
}

function renderRunInfo() {
  const run = state.run;
  if (!run) {
    $("run-info").textContent = state.runs.length ? "" : t("noRuns");
    return;
  }
  const proof = claimText(run);
  const mean = run.total ? (run.total / run.answers).toFixed(4) : "?";
  $("run-info").textContent =
    `${run.game}: ${run.answers} ${t("answers")}, ${run.tries} ${t("tries")} · ` +
    `${run.first_guess || "?"} → ${run.total ?? "?"} (${mean}) · ${proof}`;
}

// What a run may claim, as the server decided it: its own words (`claim`), or, in another
// language, the words for the label kind it sent (`label`). The page never judges a proof.
function claimText(run) {
  const words = (TEXT[state.lang].claims || {})[run.label];
  return words ? words(run.first_guess_fixed) : run.claim;
}

function tile(ch, cell) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = ch;
  paintTile(b, ch, cell);
  return b;
}

// Colours a tile in place (the element stays, so focus and rapid taps stay on it).
function paintTile(b, ch, cell) {
  b.className = `tile ${STATES[cell]}`;
  b.dataset.state = STATES[cell];
  b.setAttribute("aria-label", `${ch}: ${cellLabel(cell)}`);
}

function cellLabel(cell) {
  return state.lang === "ja" ? KANJI[cell] : STATES[cell];
}

function renderBoard() {
  const board = $("board");
  board.replaceChildren();
  state.steps.forEach((step, i) => {
    const li = document.createElement("li");
    li.className = "tiles played";
    letters(step.guess).forEach((ch, j) => {
      const b = tile(ch, step.cells[j]);
      b.addEventListener("click", () => fixPlayed(i, j));
      li.appendChild(b);
    });
    board.appendChild(li);
  });
  document.body.dataset.steps = String(state.steps.length);
}

function renderTiles() {
  const word = normalizeWord($("guess").value);
  const chars = letters(word);
  state.cells = chars.map((_, i) => state.cells[i] ?? 0);
  const box = $("tiles");
  box.replaceChildren();
  chars.forEach((ch, i) => {
    const b = tile(ch, state.cells[i]);
    b.dataset.index = String(i);
    b.addEventListener("click", () => {
      state.cells[i] = (state.cells[i] + 1) % 3;
      paintTile(b, ch, state.cells[i]);
    });
    box.appendChild(b);
  });
}

function renderAdvice() {
  const next = state.next;
  const won = $("won");
  won.hidden = true;
  delete document.body.dataset.won;
  if (!next) {
    $("next-guess").textContent = "";
    $("source").textContent = "";
    for (const id of ["remaining", "expected", "worst"]) $(id).textContent = "";
    $("candidates").replaceChildren();
    return;
  }
  const entry = $("entry");
  if (next.won) {
    const last = state.steps[state.steps.length - 1];
    won.textContent = t("won", last ? last.guess : "", next.steps);
    won.hidden = false;
    document.body.dataset.won = String(next.steps);
  }
  entry.classList.toggle("done", next.won);
  $("submit").disabled = next.won;
  $("next-guess").textContent = next.won ? "—" : next.guess || "—";
  $("source").textContent = next.won || !next.guess
    ? ""
    : next.source === "computed" ? t("computed") : t("fromTree");
  $("remaining").textContent = String(next.count);
  $("expected").textContent = next.won ? "0" : next.mean != null ? next.mean.toFixed(3) : "—";
  $("worst").textContent = next.won ? "0" : next.worst != null ? t("guesses", next.worst) : "—";
  const list = $("candidates");
  list.replaceChildren();
  if (!next.won && !next.feasible) {
    const li = document.createElement("li");
    li.className = "error";
    li.textContent = t("infeasible");
    list.appendChild(li);
  }
  if (!next.won && next.candidates) {
    for (const word of next.candidates) {
      const li = document.createElement("li");
      li.textContent = word;
      list.appendChild(li);
    }
  }
}

function renderChart() {
  const chart = state.chart;
  const body = $("chart").querySelector("tbody");
  body.replaceChildren();
  const section = $("chart-section");
  if (!chart || !chart.guess || (state.next && state.next.won)) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  $("chart-title").textContent = t("chartOf", chart.guess);
  for (const row of chart.rows) {
    const tr = document.createElement("tr");
    const cells = document.createElement("td");
    cells.className = "mini";
    cells.setAttribute("aria-label", row.pattern);
    for (const d of row.digits) {
      const span = document.createElement("span");
      span.className = `dot ${STATES[Number(d)]}`;
      cells.appendChild(span);
    }
    const count = document.createElement("td");
    count.textContent = String(row.count);
    count.className = "num";
    const then = document.createElement("td");
    then.textContent = row.next_guess || (row.digits.includes("0") || row.digits.includes("1") ? "" : "✓");
    const avg = document.createElement("td");
    avg.className = "num";
    // Row totals count the chart's own guess: what is left after it is total − count.
    avg.textContent = row.total != null && row.count ? ((row.total - row.count) / row.count).toFixed(2) : "";
    tr.append(cells, count, then, avg);
    body.appendChild(tr);
  }
}

// ---- actions ---------------------------------------------------------------------------

async function refresh() {
  setBusy(true);
  try {
    const body = { run: state.run.name, history: history() };
    const [next, chart] = await Promise.all([api("next", body), api("chart", body)]);
    state.next = next;
    state.chart = chart;
    showError("");
  } catch (e) {
    showError(e.message);
  }
  $("guess").value = state.next && !state.next.won ? state.next.guess || "" : "";
  state.cells = [];
  renderBoard();
  renderTiles();
  renderAdvice();
  renderChart();
  setBusy(false);
}

// Tries `steps` as the new history; keeps the old one and shows why when the server refuses.
async function tryHistory(steps) {
  setBusy(true);
  const body = {
    run: state.run.name,
    history: steps.map((s) => ({ guess: s.guess, pattern: patternText(s.cells) })),
  };
  try {
    await api("next", body);
  } catch (e) {
    showError(e.message);
    setBusy(false);
    return false;
  }
  state.steps = steps;
  await refresh();
  return true;
}

async function submit(event) {
  if (event) event.preventDefault();
  if (!state.run || (state.next && state.next.won)) return;
  const word = normalizeWord($("guess").value);
  if (!word) {
    showError(t("enterWord"));
    return;
  }
  const cells = letters(word).map((_, i) => state.cells[i] ?? 0);
  await tryHistory([...state.steps, { guess: word, cells }]);
}

async function fixPlayed(i, j) {
  const steps = state.steps.map((s) => ({ guess: s.guess, cells: [...s.cells] }));
  steps[i].cells[j] = (steps[i].cells[j] + 1) % 3;
  await tryHistory(steps);
}

// Lines of ⬛⬜🟨🟩 become steps, each on the guess suggested at that point.
async function applyPaste() {
  const rows = $("paste").value
    .split(/\r?\n/)
    .map((line) => Array.from(line).map((c) => ({ "⬛": 0, "⬜": 0, "🟨": 1, "🟩": 2 })[c]).filter((c) => c !== undefined))
    .filter((row) => row.length > 0);
  for (const cells of rows) {
    if (!state.next || state.next.won || !state.next.guess) break;
    const ok = await tryHistory([...state.steps, { guess: state.next.guess, cells }]);
    if (!ok) break;
  }
}

async function chooseRun(name) {
  state.run = state.runs.find((r) => r.name === name) || state.runs[0] || null;
  state.steps = [];
  state.next = null;
  state.chart = null;
  if (state.run) {
    $("run").value = state.run.name;
    const url = new URL(location.href);
    url.searchParams.set("run", state.run.name);
    history_replace(url);
    $("guess").lang = state.run.kana ? "ja" : "en";
  }
  renderRunInfo();
  if (state.run) await refresh();
  else setBusy(false);
}

function history_replace(url) {
  try {
    window.history.replaceState(null, "", url);
  } catch (_) {
    // file:// or sandboxed: the URL is only a convenience.
  }
}

async function main() {
  const params = new URLSearchParams(location.search);
  const stored = localStorage.getItem("hakase-lang");
  state.lang = params.get("lang") || stored || (navigator.language.startsWith("ja") ? "ja" : "en");
  if (!TEXT[state.lang]) state.lang = "en";
  applyLanguage();
  $("lang").addEventListener("click", () => {
    state.lang = state.lang === "ja" ? "en" : "ja";
    localStorage.setItem("hakase-lang", state.lang);
    applyLanguage();
    renderBoard();
    renderTiles();
    if (puzzle.current) $("puzzle-meta").textContent = t("puzzleMeta", puzzle.current);
  });
  $("entry").addEventListener("submit", submit);
  $("guess").addEventListener("input", renderTiles);
  // The tiles already show the converted word; the field follows when it loses focus (not
  // while typing, which would break the IME; and without redrawing the tiles, so the click
  // that took the focus away still lands on its tile).
  $("guess").addEventListener("change", () => {
    $("guess").value = normalizeWord($("guess").value);
  });
  $("use-suggestion").addEventListener("click", () => {
    if (state.next && state.next.guess) {
      $("guess").value = state.next.guess;
      renderTiles();
    }
  });
  $("undo").addEventListener("click", () => {
    if (state.steps.length) tryHistory(state.steps.slice(0, -1));
  });
  $("restart").addEventListener("click", () => tryHistory([]));
  $("apply-paste").addEventListener("click", applyPaste);
  $("run").addEventListener("change", (e) => chooseRun(e.target.value));
  try {
    state.runs = (await api("runs")).runs;
  } catch (e) {
    showError(e.message);
  }
  const select = $("run");
  for (const run of state.runs) {
    const option = document.createElement("option");
    option.value = run.name;
    option.textContent = `${run.name} (${run.game})`;
    select.appendChild(option);
  }
  await chooseRun(params.get("run"));
}

// ---- puzzles ----------------------------------------------------------------------------

const CELL_OF = { "灰": 0, "黄": 1, "緑": 2, B: 0, Y: 1, G: 2, "0": 0, "1": 1, "2": 2, "⬛": 0, "⬜": 0, "🟨": 1, "🟩": 2 };

const puzzle = { batches: [], current: null };

function renderPuzzle() {
  const p = puzzle.current;
  $("puzzle-verdict").hidden = true;
  $("puzzle-answer").value = "";
  if (!p) return;
  $("puzzle-meta").textContent = t("puzzleMeta", p);
  $("puzzle-question").textContent = p.question;
  const rows = $("puzzle-rows");
  rows.replaceChildren();
  for (const row of p.rows) {
    const li = document.createElement("li");
    li.className = "tiles played";
    const cells = Array.from(row.pattern).map((c) => CELL_OF[c] ?? 0);
    letters(row.guess).forEach((ch, i) => {
      const cell = document.createElement("span");
      cell.textContent = ch;
      cell.className = `tile ${STATES[cells[i]]}`;
      cell.setAttribute("aria-label", `${ch}: ${cellLabel(cells[i])}`);
      li.appendChild(cell);
    });
    rows.appendChild(li);
  }
  document.body.dataset.puzzle = `${p.batch}/${p.day}`;
}

async function loadPuzzle() {
  const batch = $("puzzle-batch").value;
  const day = Number($("puzzle-day").value) || 1;
  try {
    puzzle.current = await api(`puzzles/${encodeURIComponent(batch)}/${day}`);
    renderPuzzle();
  } catch (e) {
    $("puzzle-meta").textContent = e.message;
  }
}

async function checkPuzzle(event) {
  event.preventDefault();
  const p = puzzle.current;
  const answer = $("puzzle-answer").value;
  if (!p || !answer.trim()) return;
  const verdict = $("puzzle-verdict");
  try {
    const v = await api(`puzzles/${encodeURIComponent(p.batch)}/${p.day}/answer`, { answer });
    verdict.textContent = v.correct ? t("puzzleRight", v.solution) : t("puzzleWrong", v.answer, v.solution);
    verdict.className = `verdict ${v.correct ? "right" : "wrong"}`;
    document.body.dataset.puzzleVerdict = v.correct ? "right" : "wrong";
  } catch (e) {
    verdict.textContent = e.message;
    verdict.className = "verdict wrong";
  }
  verdict.hidden = false;
}

async function setupPuzzles() {
  $("puzzle-form").addEventListener("submit", checkPuzzle);
  $("puzzle-batch").addEventListener("change", loadPuzzle);
  $("puzzle-day").addEventListener("change", loadPuzzle);
  $("puzzle-next").addEventListener("click", () => {
    const p = puzzle.current;
    const day = p ? (p.day % p.count) + 1 : 1;
    $("puzzle-day").value = String(day);
    loadPuzzle();
  });
  try {
    puzzle.batches = (await api("puzzles")).batches;
  } catch (e) {
    $("puzzle-meta").textContent = e.message;
    return;
  }
  const select = $("puzzle-batch");
  for (const b of puzzle.batches) {
    const option = document.createElement("option");
    option.value = b.name;
    option.textContent = `${b.name} (${b.count})`;
    select.appendChild(option);
  }
  await loadPuzzle();
}

main().finally(setupPuzzles);
