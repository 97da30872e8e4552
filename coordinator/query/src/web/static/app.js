// hakase web assistant: type (or take) a guess, tap its tiles to the colours the game showed,
// and read the optimal next guess. Talks to /api/v1/ of `hakase serve`; no build step.
"use strict";

// English counted nouns, spelled in one place for the whole page ("1 guess", "2 guesses");
// Japanese counts with counters, which do not change with the number.
function plural(n, one, many) {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

// A message as a sentence: the server's English messages end without a full stop, and a
// message followed by another sentence needs one.
function sentence(text) {
  return /[.!?。！？]$/.test(text) ? text : `${text}${state.lang === "ja" ? "。" : "."}`;
}

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
    runInfo: (game, answers, tries) => `${game}: 答え ${answers} 個・${tries} 回まで`,
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
      "proven-if-claims-hold": (w, n) => w
        ? `初手「${w}」を前提とした最適性は、未検証のワーカーの主張 ${n} 件が正しければ証明済み`
        : `未検証のワーカーの主張 ${n} 件が正しければ最適性は証明済み`,
    },
    enterWord: "単語を入力してください。",
    footer: "hakase 博士 — 色は 灰 (含まれない)・黄 (別の位置)・緑 (正しい位置)。",
    noRuns: "解がまだありません。hakase solve で作ってください。",
    lang: "English",
    puzzleTitle: "パズル（正解は一つ）",
    puzzleNext: "次の問題",
    puzzleAnswer: "答え",
    puzzleGuess: "最善手",
    puzzleCheck: "答え合わせ",
    puzzleMeta: (p) => `${p.game} · ${p.day}/${p.count} 日目 · ${p.kind === "deduction" ? "推理" : "最善手"} · ${{ easy: "易", medium: "中", hard: "難" }[p.level]}`,
    puzzleRight: (w) => `正解！ 答えは ${w}。`,
    puzzleRightMove: (w) => `正解！ 最善手は ${w}。`,
    puzzleWrong: (a) => `${a} ではありません。もう一度どうぞ（「答えを見る」で答えを表示）。`,
    puzzleNotName: (a, g) => `「${a}」は ${g} の名前（単語）ではありません。もう一度どうぞ。`,
    puzzleReveal: "答えを見る",
    puzzleRevealed: (w) => `答えは ${w}。`,
    puzzleRevealedMove: (w) => `最善手は ${w}。`,
    puzzleCandidates: "残っている答え",
    conflict: (m) => `この色の組み合わせは全部は正しくありえません: ${sentence(m)} タイルを直し続けるか、「一手戻す」で戻ってください。`,
    rankingTitle: "初手の順位",
    rankingWord: "調べる初手",
    rankingLook: "調べる",
    rankingRank: "順位",
    rankingGuess: "初手",
    rankingTotal: "合計手数",
    rankingMean: "平均",
    rankingOf: (r, n) => `${n} 個中 ${r} 位`,
    rankingBound: "下界（この初手は最善になれないと証明済み。順位なし）",
    rankingUnranked: "厳密な値。ただし下界で打ち切った初手がこれより良い可能性があり、順位は不明",
    rankingUnsettled: "まだ確定していません",
    rankingCannotWin: "この初手では全ての答えを当てきれません",
    rankingFound: (w, total, mean, place) => `${w}: 合計 ${total}${mean ? `（平均 ${mean}）` : ""} · ${place}`,
    rankingCaption: (n, from, to, width) => `確定した ${n} 個の初手の合計手数の分布（${from}〜${to}、幅 ${width} ごと）。緑: 最善、青: 調べた初手。`,
    rankingCaptionCannotWin: (n) => `ほかの ${n} 個の初手では全ての答えを当てきれません。`,
    rankingNone: "この解には初手の順位がありません。",
    rankingClaims: { rank_all: "全初手の厳密な値", listed: "指定した初手の厳密な値", best: "最善の初手のみ厳密、ほかは打ち切った下界（≥）" },
    rankingProgress: (k, n) => `（途中: ${k}${n ? ` / ${n}` : ""} 確定）`,
    rankingMarks: (n) => `。未検証のワーカーの主張 ${n} 件が正しければ（* 印）`,
    reviewTitle: "この対局を振り返る",
    reviewHint: "上で遊んだ対局が入っています。共有された絵文字（⬛🟨🟩）と単語を貼り付けても振り返れます。",
    reviewWords: "入力した単語（順に、空白区切り）",
    reviewGrid: "色（共有された絵文字、単語ごとに一行）",
    reviewAnswer: "答え（色がなければ必須）",
    reviewRun: "振り返る",
    reviewFill: "上の対局を入れる",
    reviewLegend: "損失: あなたの手が最善手より平均で何手多くかかるか（その後は最善）。運: 色を見る前に見込まれた残り手数 − 色を見た後の残り手数（正なら色に助けられた）。",
    reviewBest: "最善手",
    reviewYours: "あなた",
    reviewLoss: "損失",
    reviewLuck: "運",
    reviewOptimal: "最善",
    reviewUnjudged: "判定なし",
    reviewPerhaps: "ほか未確認",
    reviewMore: (n) => `ほか ${n} 手`,
    reviewPerfect: (n) => `完璧な対局: ${n} 手すべて最善手。`,
    reviewSome: (k, n) => `${n} 手中 ${k} 手が最善手。`,
    reviewTotals: (loss, luck) => `損失は合計 ${loss} 手、運は ${luck} 手。`,
    reviewStart: (m) => `最初から最善に指すと平均 ${m} 手。`,
    reviewSame: (w, m, g, n, won) => `同じ初手「${w}」から最善に指すと平均 ${m} 手` + (g ? `、この答えなら ${g} 手（あなたは ${won ? `${n} 手` : `${n} 手で未発見`}）。` : "。"),
    reviewGiven: (w) => `初手の最善は解の初手「${w}」を前提としたもの（初手そのものの最適性は証明されていない）。`,
    reviewAnswers: (a, b) => `${a} → ${b} 個`,
    errors: {
      unknown_word: (step, w, s, g, other) => `${step !== "0" ? `${step} 手目: ` : ""}「${w}」は${g ? ` ${g} ` : "このゲーム"}で使える単語ではありません${s ? `（もしかして ${s}）` : ""}${other ? `。${other} の単語です` : ""}。`,
      unknown_answer: (w, s, g, other) => `「${w}」は${g ? ` ${g} ` : "このゲーム"}の単語ではないので、答えにはなりません${s ? `（もしかして ${s}）` : ""}${other ? `。${other} の単語です` : ""}。`,
      not_an_answer: (w, g) => `「${w}」は${g ? ` ${g} ` : "このゲーム"}では答えになりえない単語です。`,
      bad_pattern: (step, p) => `${step !== "0" ? `${step} 手目: ` : ""}色「${p}」を読めません（灰黄緑・BYG・⬛🟨🟩・012 で文字数分）。`,
      no_answer_fits: (step, g, p) => `${step} 手目（${g} ${p}）: これまでの手と合わせて、この色に合う答えがありません。`,
      never_shown: (step, g, p) => `${step} 手目（${g} ${p}）: この単語でこの色の組み合わせは出ません。`,
      already_won: (step, g, p) => `${step} 手目（${g} ${p}）: その前の手で正解しています。`,
      too_long: (n, tries) => `${n} 手ありますが、このゲームは ${tries} 回までです。`,
      hard_mode: (step, g) => `${step} 手目（${g}）: ハードモードでは緑の文字は同じ位置に置き、見つかった文字は使い続けます。`,
      strict_mode: (step, g) => `${step} 手目（${g}）: 厳格モードでは、これまでの手がかりに合う答えしか入力できません。`,
      infeasible: (k) => `残り ${k} 手では全ての答えを確実には当てられません。`,
      too_many_to_solve: (n, l) => `最適木から外れて答えが ${n} 個残っています。その場で解くのは ${l} 個までです。`,
      unknown_run: (name, all) => `解「${name}」はありません（あるもの: ${all}）。`,
      several_runs: (all) => `解が複数あります。どれか選んでください: ${all}`,
      no_runs: () => "解がまだありません。",
      review_empty: () => "振り返る手がありません。少なくとも一手入力してください。",
      colours_words: (rows, words) => `色が ${rows} 行、単語が ${words} 個です。単語ごとに一行ずつ必要です。`,
      no_colours: () => "色がありません。共有された絵文字を貼り付けるか、答えを入力してください。",
      not_the_answer: (step, g, p, a, shows) => `${step} 手目（${g}）: 色 ${p} は答え ${a} の色（${shows}）と違います。`,
      puzzle_batch: (b, all) => `パズル集「${b}」はありません（あるもの: ${all}）。`,
      puzzle_day: (b, n, d) => `「${b}」は 1〜${n} 日目までです（${d} 日目はありません）。`,
      answer_empty: () => "答えを入力してください。",
    },
    questions: {
      question_deduction: (rows) => `この ${rows} 行に合う答えはただ一つ。どれ？`,
      question_win_within: (n, g) => `答えは残り ${n} 個。どの答えでも ${g} 手以内に必ず当てられる手がただ一つあります。どれ？`,
      question_unique_optimum: (n) => `答えは残り ${n} 個。その後を完璧に指したときの合計手数が最も少ない手がただ一つあります。どれ？`,
    },
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
    guesses: (n) => plural(n, "guess", "guesses"),
    runInfo: (game, answers, tries) => `${game}: ${plural(answers, "answer", "answers")}, ${plural(tries, "try", "tries")}`,
    won: (w, n) => `Solved in ${plural(n, "guess", "guesses")}: ${w}`,
    noneLeft: "No answer fits these colours.",
    infeasible: "No strategy can guarantee the answer within the guesses left.",
    fromTree: "from the stored tree",
    computed: "computed on the spot (you left the optimal tree)",
    enterWord: "Type a word first.",
    footer: "hakase 博士 — gray: not in the answer, yellow: elsewhere, green: right place.",
    noRuns: "No solution is served yet: make one with hakase solve.",
    lang: "日本語",
    puzzleTitle: "Puzzle (exactly one solution)",
    puzzleNext: "Next puzzle",
    puzzleAnswer: "Your answer",
    puzzleGuess: "Your guess",
    puzzleCheck: "Check",
    puzzleMeta: (p) => `${p.game} · day ${p.day} of ${p.count} · ${p.kind} · ${p.level}`,
    puzzleRight: (w) => `Right! The answer is ${w}.`,
    puzzleRightMove: (w) => `Right! The best guess is ${w}.`,
    puzzleWrong: (a) => `Not ${a}. Try again, or show the solution.`,
    puzzleNotName: (a, g) => `${a} is not a name (word) of ${g}. Try again.`,
    puzzleReveal: "Show the solution",
    puzzleRevealed: (w) => `The answer is ${w}.`,
    puzzleRevealedMove: (w) => `The best guess is ${w}.`,
    puzzleCandidates: "Answers left",
    conflict: (m) => `These colours cannot all be right: ${sentence(m)} Keep fixing tiles, or Undo.`,
    rankingTitle: "Ranking of first guesses",
    rankingWord: "Look up a first guess",
    rankingLook: "Look up",
    rankingRank: "Rank",
    rankingGuess: "First guess",
    rankingTotal: "Total",
    rankingMean: "Mean",
    rankingOf: (r, n) => `rank ${r} of ${n}`,
    rankingBound: "a proven lower bound (cut off: it cannot be the best; no rank)",
    rankingUnranked: "exact, but not ranked: a guess cut off at a lower bound may be worth less",
    rankingUnsettled: "not settled yet",
    rankingCannotWin: "cannot find every answer within the tries",
    rankingFound: (w, total, mean, place) => `${w}: total ${total}${mean ? ` (mean ${mean})` : ""} · ${place}`,
    rankingCaption: (n, from, to, width) => `How the totals of the ${plural(n, "settled first guess", "settled first guesses")} spread, in bins of ${width} (${from} to ${to}). Green: the best; blue: the guess looked up.`,
    rankingCaptionCannotWin: (n) => `${plural(n, "other cannot", "others cannot")} find every answer within the tries.`,
    rankingNone: "This solution holds no ranking of first guesses.",
    rankingClaims: { rank_all: "exact values of every first guess", listed: "exact values of the first guesses listed", best: "the best first guess exact, the others lower bounds (≥) where they were cut off" },
    rankingProgress: (k, n) => `(in progress: ${k}${n ? ` of ${n}` : ""} settled)`,
    rankingMarks: (n) => `, if ${plural(n, "unchecked worker claim holds", "unchecked worker claims hold")}, marked *`,
    reviewTitle: "Review this game",
    reviewHint: "The game played above is filled in. You can also paste the emoji grid the game shares (⬛🟨🟩) with the words.",
    reviewWords: "Words you played (in order, separated by spaces)",
    reviewGrid: "Colours (the shared emoji grid, one row per word)",
    reviewAnswer: "Answer (needed without colours)",
    reviewRun: "Review",
    reviewFill: "Take the game above",
    reviewLegend: "Loss: the guesses your choice cost on average against the best one (then optimal play). Luck: the further guesses expected before the colours minus after them (positive: the colours helped).",
    reviewBest: "Best",
    reviewYours: "Yours",
    reviewLoss: "Loss",
    reviewLuck: "Luck",
    reviewOptimal: "optimal",
    reviewUnjudged: "not judged",
    reviewPerhaps: "perhaps others",
    reviewMore: (n) => `${n} more`,
    reviewPerfect: (n) => n === 1 ? "A perfect game: its one move optimal." : `A perfect game: all ${n} moves optimal.`,
    reviewSome: (k, n) => `${k} of ${plural(n, "move", "moves")} optimal.`,
    reviewTotals: (loss, luck) => `Loss ${loss} guesses in all, luck ${luck}.`,
    reviewStart: (m) => `Optimal play from the start: ${m} guesses on average.`,
    reviewSame: (w, m, g, n, won) => `Optimal play from your first guess ${w}: ${m} on average` + (g ? `; it finds this answer in ${g} (${won ? `you: ${n}` : `you had not found it after ${plural(n, "guess", "guesses")}`}).` : "."),
    reviewGiven: (w) => `The first move is judged against the run's first guess ${w}, optimal only given it.`,
    reviewAnswers: (a, b) => `${a} → ${plural(b, "answer", "answers")}`,
    // The server's English, worded for the page: a word of another game names that game's
    // runs, not the command line's --game.
    errors: {
      unknown_word: (step, w, s, g, other) => `${step !== "0" ? `step ${step}: ` : ""}"${w}" is not an allowed guess in ${g || "this game"}${s ? `; did you mean ${s}?` : ""}${other ? `; it is a word of ${other} (choose a ${other} run above)` : ""}`,
      unknown_answer: (w, s, g, other) => `"${w}" is not a word of ${g || "this game"}, so it cannot be the answer${s ? `; did you mean ${s}?` : ""}${other ? `; it is a word of ${other} (choose a ${other} run above)` : ""}`,
    },
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
  conflict: null, // {step, error} while the played colours fit no answer
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
    const err = new Error(json.error ? json.error.message : `HTTP ${res.status}`);
    // The server's message is English; a key with its arguments is worded here.
    err.key = json.error && json.error.key;
    err.args = (json.error && json.error.args) || [];
    throw err;
  }
  return json;
}

// An error in the page's language: the server's key worded from this page's catalogue, else
// the server's (English) message.
function errorText(e) {
  const words = (TEXT[state.lang].errors || {})[e.key];
  return words ? words(...e.args) : e.message;
}

// The keys whose first argument is the step at fault.
const STEP_KEYS = ["unknown_word", "bad_pattern", "no_answer_fits", "never_shown", "already_won", "hard_mode", "strict_mode"];

// Not named `history`: a global function of that name hides window.history (and with it
// replaceState, so the address never followed the page).
function playedSteps(extra) {
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
  renderRanking();
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
    `${t("runInfo", run.game, run.answers, run.tries)} · ` +
    `${run.first_guess || "?"} → ${run.total ?? "?"} (${mean}) · ${proof}`;
}

// What a run may claim, as the server decided it: its own words (`claim`), or, in another
// language, the words for the label kind it sent (`label`). The page never judges a proof.
function claimText(run) {
  const words = (TEXT[state.lang].claims || {})[run.label];
  return words ? words(run.first_guess_fixed, run.unchecked_claims) : run.claim;
}

function tile(ch, cell) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = ch;
  paintTile(b, ch, cell);
  // Space changes the colour (the button's click); Enter submits, as the hint says. A focused
  // button turns Enter into a click on keydown, so it is stopped there.
  b.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      submit();
    }
  });
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
    if (state.conflict && state.conflict.step === i + 1) {
      li.classList.add("conflict");
      li.setAttribute("aria-invalid", "true");
    }
    letters(step.guess).forEach((ch, j) => {
      const b = tile(ch, step.cells[j]);
      b.addEventListener("click", () => fixPlayed(i, j));
      li.appendChild(b);
    });
    board.appendChild(li);
  });
  document.body.dataset.steps = String(state.steps.length);
  document.body.dataset.conflict = state.conflict ? String(state.conflict.step || 0) : "";
  $("submit").disabled = Boolean(state.conflict) || Boolean(state.next && state.next.won);
  fillReview();
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
  // No advice (colours that cannot all be right, nothing asked yet) or a win, which the
  // banner says: no next guess and no figures, rather than empty ones or some without a unit.
  for (const id of ["suggestion", "stats", "candidates"]) $(id).hidden = !next || next.won;
  $("advice").hidden = !next;
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
  $("submit").disabled = next.won || Boolean(state.conflict);
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
    const body = { run: state.run.name, history: playedSteps() };
    const [next, chart] = await Promise.all([api("next", body), api("chart", body)]);
    state.next = next;
    state.chart = chart;
    state.conflict = null;
    showError("");
  } catch (e) {
    // The played colours as the player set them cannot all be right: keep them, say which
    // step is at fault, and wait for more fixes (or Undo). No advice is shown meanwhile.
    state.conflict = { step: STEP_KEYS.includes(e.key) ? Number(e.args[0]) : 0, error: e };
    state.next = null;
    state.chart = null;
    showError(t("conflict", errorText(e)));
  }
  if (!state.conflict) {
    $("guess").value = state.next && !state.next.won ? state.next.guess || "" : "";
  }
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
    showError(errorText(e));
    setBusy(false);
    return false;
  }
  state.steps = steps;
  await refresh();
  return true;
}

async function submit(event) {
  if (event) event.preventDefault();
  if (!state.run || state.conflict || (state.next && state.next.won)) return;
  const word = normalizeWord($("guess").value);
  if (!word) {
    showError(t("enterWord"));
    return;
  }
  const cells = letters(word).map((_, i) => state.cells[i] ?? 0);
  await tryHistory([...state.steps, { guess: word, cells }]);
}

// Fixing a played tile always takes the new colour, even when the colours no longer fit any
// answer (one tile of several wrong ones fixed at a time passes through such states): the
// board then says which step cannot be right, and the next fix or Undo settles it.
async function fixPlayed(i, j) {
  const steps = state.steps.map((s) => ({ guess: s.guess, cells: [...s.cells] }));
  steps[i].cells[j] = (steps[i].cells[j] + 1) % 3;
  state.steps = steps;
  await refresh();
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
  state.conflict = null;
  review.dirty = false;
  if (state.run) {
    $("run").value = state.run.name;
    const url = new URL(location.href);
    url.searchParams.set("run", state.run.name);
    history_replace(url);
    $("guess").lang = state.run.kana ? "ja" : "en";
  }
  renderRunInfo();
  loadRanking();
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
    if (state.conflict) showError(t("conflict", errorText(state.conflict.error)));
    renderPuzzleTexts();
    renderReview();
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
  // Undo and Restart take the shorter history as it is (it may still hold a conflict).
  $("undo").addEventListener("click", () => {
    if (state.steps.length) {
      state.steps = state.steps.slice(0, -1);
      refresh();
    }
  });
  $("restart").addEventListener("click", () => {
    state.steps = [];
    refresh();
  });
  $("apply-paste").addEventListener("click", applyPaste);
  setupReview();
  setupRanking();
  $("run").addEventListener("change", (e) => chooseRun(e.target.value));
  try {
    state.runs = (await api("runs")).runs;
  } catch (e) {
    showError(errorText(e));
  }
  const select = $("run");
  for (const run of state.runs) {
    const option = document.createElement("option");
    option.value = run.name;
    // A run named after its game is shown once, not as "pokemon-qiita2023 (pokemon-qiita2023)".
    option.textContent = run.name === run.game ? run.name : `${run.name} · ${run.game}`;
    option.title = `${run.name}: ${run.game}`;
    select.appendChild(option);
  }
  await chooseRun(params.get("run"));
}

// ---- puzzles ----------------------------------------------------------------------------

const CELL_OF = { "灰": 0, "黄": 1, "緑": 2, B: 0, Y: 1, G: 2, "0": 0, "1": 1, "2": 2, "⬛": 0, "⬜": 0, "🟨": 1, "🟩": 2 };

const puzzle = { batches: [], current: null, error: null, verdict: null };

function renderPuzzle() {
  const p = puzzle.current;
  $("puzzle-verdict").hidden = true;
  $("puzzle-answer").value = "";
  if (!p) return;
  renderPuzzleTexts();
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
  // A best move is asked about the answers left: they are listed (a deduction's would give
  // its answer away, and the server does not send them).
  const list = $("puzzle-candidates");
  list.replaceChildren();
  for (const word of p.candidates || []) {
    const li = document.createElement("li");
    li.textContent = word;
    list.appendChild(li);
  }
  $("puzzle-candidates-box").hidden = !(p.candidates && p.candidates.length);
  delete document.body.dataset.puzzleVerdict;
  document.body.dataset.puzzle = `${p.batch}/${p.day}`;
}

// The texts of the puzzle in the page's language (the question by its key).
function renderPuzzleTexts() {
  const p = puzzle.current;
  if (puzzle.error) {
    $("puzzle-meta").textContent = errorText(puzzle.error);
    return;
  }
  if (!p) return;
  $("puzzle-meta").textContent = t("puzzleMeta", p);
  // A best move's solution is a guess, not the game's answer: the field and the verdicts
  // say so.
  document.querySelector("label[for='puzzle-answer']").textContent =
    t(p.kind === "best-move" ? "puzzleGuess" : "puzzleAnswer");
  const words = (TEXT[state.lang].questions || {})[p.question_key];
  $("puzzle-question").textContent = words ? words(...p.question_args) : p.question;
  if (puzzle.verdict) showVerdict(...puzzle.verdict);
}

function showVerdict(kind, word) {
  const verdict = $("puzzle-verdict");
  const p = puzzle.current || {};
  const move = p.kind === "best-move";
  const text = {
    right: () => t(move ? "puzzleRightMove" : "puzzleRight", word),
    wrong: () => t("puzzleWrong", word),
    "not-a-name": () => t("puzzleNotName", word, p.game),
    revealed: () => t(move ? "puzzleRevealedMove" : "puzzleRevealed", word),
    error: () => errorText(word),
  }[kind];
  verdict.textContent = text();
  verdict.className = `verdict ${kind === "right" ? "right" : kind === "revealed" ? "info" : "wrong"}`;
  verdict.hidden = false;
  puzzle.verdict = [kind, word];
  document.body.dataset.puzzleVerdict = kind;
}

async function loadPuzzle() {
  const batch = $("puzzle-batch").value;
  const day = Number($("puzzle-day").value) || 1;
  puzzle.verdict = null;
  try {
    puzzle.current = await api(`puzzles/${encodeURIComponent(batch)}/${day}`);
    puzzle.error = null;
    renderPuzzle();
  } catch (e) {
    puzzle.error = e;
    renderPuzzleTexts();
  }
}

// A wrong name or a word that is no name is only called so: the player tries again, or asks
// for the solution with its own button.
async function checkPuzzle(event) {
  event.preventDefault();
  const p = puzzle.current;
  const answer = $("puzzle-answer").value;
  if (!p || !answer.trim()) return;
  try {
    const v = await api(`puzzles/${encodeURIComponent(p.batch)}/${p.day}/answer`, { answer });
    if (v.correct) showVerdict("right", v.solution);
    else if (!v.name) showVerdict("not-a-name", v.answer);
    else showVerdict("wrong", v.answer);
  } catch (e) {
    showVerdict("error", e);
  }
}

async function revealPuzzle() {
  const p = puzzle.current;
  if (!p) return;
  try {
    const s = await api(`puzzles/${encodeURIComponent(p.batch)}/${p.day}/solution`);
    showVerdict("revealed", s.solution);
  } catch (e) {
    showVerdict("error", e);
  }
}

async function setupPuzzles() {
  $("puzzle-form").addEventListener("submit", checkPuzzle);
  $("puzzle-reveal").addEventListener("click", revealPuzzle);
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
    puzzle.error = e;
    renderPuzzleTexts();
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

// ---- review ----------------------------------------------------------------------------

const EMOJI = ["⬛", "🟨", "🟩"];

const review = { dirty: false, result: null, error: null };

// The review form follows the game played above until the player edits it.
function fillReview(force) {
  if (review.dirty && !force) return;
  review.dirty = false;
  $("review-words").value = state.steps.map((s) => s.guess).join(" ");
  $("review-grid").value = state.steps.map((s) => s.cells.map((c) => EMOJI[c]).join("")).join("\n");
  const won = state.next && state.next.won && state.steps.length;
  $("review-answer").value = won ? state.steps[state.steps.length - 1].guess : "";
}

async function runReview() {
  if (!state.run) return;
  const words = $("review-words").value.split(/[\s,、，]+/).map(normalizeWord).filter((w) => w);
  const grid = $("review-grid").value;
  const answer = normalizeWord($("review-answer").value);
  const body = { run: state.run.name, words };
  if (grid.trim()) body.grid = grid;
  if (answer) body.answer = answer;
  document.body.dataset.review = "busy";
  try {
    review.result = await api("review", body);
    review.error = null;
  } catch (e) {
    review.result = null;
    review.error = e;
  }
  renderReview();
  document.body.dataset.review = review.error ? "error" : "done";
}

const fmt = (x, digits = 3) => (x == null ? "?" : x.toFixed(digits));
const signedFmt = (x) => (x == null ? "?" : `${x >= 0 ? "+" : ""}${x.toFixed(3)}`);

function renderReview() {
  const error = $("review-error");
  error.hidden = !review.error;
  error.textContent = review.error ? errorText(review.error) : "";
  const moves = $("review-moves");
  moves.replaceChildren();
  const r = review.result;
  $("review-result").hidden = !r;
  if (!r) return;
  for (const m of r.moves) {
    const li = document.createElement("li");
    li.className = "review-move";
    li.dataset.step = String(m.step);
    const head = document.createElement("div");
    head.className = "review-head";
    const tiles = document.createElement("span");
    tiles.className = "tiles played";
    letters(m.guess).forEach((ch, i) => {
      const cell = document.createElement("span");
      const c = Number(m.digits[i]);
      cell.textContent = ch;
      cell.className = `tile ${STATES[c]}`;
      cell.setAttribute("aria-label", `${ch}: ${cellLabel(c)}`);
      tiles.appendChild(cell);
    });
    const count = document.createElement("span");
    count.className = "muted small";
    count.textContent = t("reviewAnswers", m.count, m.after.count);
    head.append(tiles, count);
    const stats = document.createElement("dl");
    stats.className = "stats review-stats";
    const stat = (label, value, cls) => {
      const div = document.createElement("div");
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.textContent = value;
      if (cls) div.className = cls;
      div.append(dt, dd);
      stats.appendChild(div);
    };
    const o = m.optimal;
    let best = t("reviewUnjudged");
    if (o) {
      best = `${o.guesses.slice(0, 3).join(" ")}`;
      if (o.count > 3) best += ` (${t("reviewMore", o.count - 3)})`;
      else if (!o.complete) best += ` (${t("reviewPerhaps")})`;
      best += ` · ${fmt(o.mean)}`;
    }
    stat(t("reviewBest"), best, "best");
    const yours = m.played.optimal ? `${t("reviewOptimal")} · ${fmt(m.played.mean)}` : fmt(m.played.mean);
    stat(t("reviewYours"), yours, "yours");
    stat(t("reviewLoss"), m.loss == null ? "?" : fmt(m.loss), "loss");
    stat(t("reviewLuck"), m.luck ? signedFmt(m.luck.value) : "?", "luck");
    li.append(head, stats);
    moves.appendChild(li);
  }
  const s = r.summary;
  const lines = [
    s.perfect ? t("reviewPerfect", s.guesses) : t("reviewSome", s.optimal_moves, s.guesses),
    t("reviewTotals", fmt(s.loss), signedFmt(s.luck)),
    t("reviewStart", fmt(s.mean)),
    t("reviewSame", s.first_guess, fmt(s.same_first_guess.mean), s.same_first_guess.guesses, s.guesses, r.won),
  ];
  if (r.label === "exact" && r.moves[0] && r.moves[0].optimal) {
    lines.push(t("reviewGiven", r.moves[0].optimal.guesses[0]));
  }
  // The verdict first (bold), then one line per comparison.
  const summary = $("review-summary");
  summary.replaceChildren();
  lines.forEach((line, i) => {
    const span = document.createElement("span");
    span.className = i === 0 ? "verdict-line" : "";
    span.textContent = line;
    summary.appendChild(span);
  });
}

function setupReview() {
  for (const id of ["review-words", "review-grid", "review-answer"]) {
    $(id).addEventListener("input", () => {
      review.dirty = true;
    });
  }
  $("review-fill").addEventListener("click", () => fillReview(true));
  $("review-run").addEventListener("click", runReview);
}

// ---- ranking ---------------------------------------------------------------------------

// The run's ranking of first guesses: the best rows, a histogram of every exact total, and
// a look-up of any first guess's exact value and rank (GET /api/v1/ranking).
const RANKING_TOP = 20;
const SVG_NS = "http://www.w3.org/2000/svg";

const ranking = { view: null, found: null, error: null };

function rankingUrl(extra) {
  return `ranking?run=${encodeURIComponent(state.run.name)}&${extra}`;
}

// Loads the best rows; `?opener=W` in the address looks W up too (a link to share).
async function loadRanking() {
  ranking.view = null;
  ranking.found = null;
  ranking.error = null;
  if (state.run) {
    try {
      ranking.view = await api(rankingUrl(`top=${RANKING_TOP}`));
    } catch (e) {
      ranking.error = e;
    }
  }
  const wanted = new URLSearchParams(location.search).get("opener");
  if (wanted && ranking.view) {
    $("ranking-word").value = wanted;
    await lookUpOpener();
    return;
  }
  renderRanking();
  document.body.dataset.ranking = ranking.error ? "error" : "done";
}

async function lookUpOpener(event) {
  if (event) event.preventDefault();
  const word = normalizeWord($("ranking-word").value);
  if (!state.run || !word) return;
  $("ranking-word").value = word;
  const url = new URL(location.href);
  url.searchParams.set("opener", word);
  history_replace(url);
  document.body.dataset.ranking = "busy";
  try {
    const reply = await api(rankingUrl(`words=${encodeURIComponent(word)}`));
    ranking.view = ranking.view || reply;
    ranking.found = reply.rows[0] || null;
    ranking.error = null;
  } catch (e) {
    ranking.found = null;
    ranking.error = e;
  }
  renderRanking();
  document.body.dataset.ranking = ranking.error ? "error" : "done";
}

// A row's total as shown: exact, "≥ bound", or a dash.
function rankingTotal(row) {
  if (row.total == null) return "—";
  // `*`: a row resting on a worker claim the audit did not re-run (the claim says so).
  const mark = row.unchecked ? " *" : "";
  return row.exact ? `${row.total}${mark}` : `≥ ${row.total}${mark}`;
}

function rankingPlace(row, view) {
  if (row.rank != null) return t("rankingOf", row.rank, view.settled);
  if (!row.settled) return t("rankingUnsettled");
  if (row.total == null) return t("rankingCannotWin");
  return row.exact ? t("rankingUnranked") : t("rankingBound");
}

function renderRanking() {
  const view = ranking.view;
  const found = ranking.found;
  const err = $("ranking-error");
  err.hidden = !ranking.error;
  err.textContent = ranking.error ? errorText(ranking.error) : "";
  // The scope in the page's words, and the condition of rows resting on unchecked worker
  // claims (marked *), never left out.
  const scoped = view && t("rankingClaims")[view.scope];
  const claim = !view ? "" : scoped
    ? `${scoped}${view.unchecked_claims ? t("rankingMarks", view.unchecked_claims) : ""}`
    : view.claim;
  const progress = view && !view.finished ? ` ${t("rankingProgress", view.settled, view.first_guesses)}` : "";
  $("ranking-claim").textContent = view ? `${view.run}: ${claim}${progress}` : "";
  const line = $("ranking-found");
  line.hidden = !found;
  if (found && view) {
    const mean = found.mean == null ? "" : found.mean.toFixed(4);
    line.textContent = t("rankingFound", found.guess, rankingTotal(found), mean, rankingPlace(found, view));
  }
  const body = $("ranking-table").tBodies[0];
  body.replaceChildren();
  const rows = view ? view.rows.slice() : [];
  if (found && !rows.some((r) => r.guess === found.guess)) rows.push(found);
  for (const row of rows) {
    const tr = document.createElement("tr");
    if (found && row.guess === found.guess) tr.className = "mark";
    const cells = [row.rank == null ? "—" : String(row.rank), row.guess, rankingTotal(row), row.mean == null ? "" : row.mean.toFixed(4)];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      if (i !== 1) td.className = "num";
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
  if (view && !view.rows.length && !ranking.error) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 4;
    td.textContent = t("rankingNone");
    tr.appendChild(td);
    body.appendChild(tr);
  }
  renderHistogram(view, found);
}

// Bars of the histogram the server counted; the best bin green, the looked-up guess's blue.
function renderHistogram(view, found) {
  const figure = $("ranking-figure");
  const svg = $("ranking-plot");
  svg.replaceChildren();
  const hist = view && view.histogram;
  // A search for the best cuts most guesses off at a bound: its few exact values are no
  // distribution.
  figure.hidden = !hist || hist.counts.length < 2 || view.scope === "best";
  if (figure.hidden) return;
  // Drawn at the plot's width in pixels: a fixed viewBox scaled to a phone shrank its
  // labels to about 6 px.
  const width = Math.max(240, Math.round(svg.getBoundingClientRect().width || 360));
  const [height, left, bottom, top] = [166, 34, 30, 10];
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const plotW = width - left - 6;
  const plotH = height - bottom - top;
  const most = Math.max(...hist.counts);
  const barW = plotW / hist.counts.length;
  const markBin = found && found.exact && found.total != null
    ? Math.floor((found.total - hist.from) / hist.width) : -1;
  const add = (name, attrs, text) => {
    const el = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text != null) el.textContent = text;
    svg.appendChild(el);
    return el;
  };
  hist.counts.forEach((count, i) => {
    // A bin that holds any guess stays visible: the best bin of English Wordle holds 23
    // of 12,972 openers, 2 px at its true height, and is where a strong opener is marked.
    const h = most && count ? Math.max((count / most) * plotH, 3) : 0;
    const lo = hist.from + i * hist.width;
    const bar = add("rect", {
      x: (left + i * barW + 0.5).toFixed(1), y: (top + plotH - h).toFixed(1),
      width: Math.max(barW - 1, 1).toFixed(1), height: h.toFixed(1),
      class: i === markBin ? "bar mark" : i === 0 ? "bar best" : "bar",
    });
    const range = hist.width > 1 ? `${lo}–${lo + hist.width - 1}` : `${lo}`;
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = `${range}: ${count}`;
    bar.appendChild(title);
  });
  add("line", { x1: left, y1: top + plotH + 0.5, x2: width - 6, y2: top + plotH + 0.5, class: "axis" });
  if (markBin >= 0 && markBin < hist.counts.length) {
    // A pointer under the looked-up guess's bin, seen however short its bar is.
    const x = left + (markBin + 0.5) * barW;
    const y = top + plotH + 2;
    add("path", { d: `M${x.toFixed(1)} ${y} l-4 6 h8 z`, class: "pointer" });
  }
  const last = hist.from + hist.counts.length * hist.width - 1;
  const answers = view.answers || 1;
  add("text", { x: left, y: height - 6 }, `${hist.from} (${(hist.from / answers).toFixed(3)})`);
  add("text", { x: width - 6, y: height - 6, "text-anchor": "end" }, `${last} (${(last / answers).toFixed(3)})`);
  add("text", { x: left - 4, y: top + 10, "text-anchor": "end" }, String(most));
  add("text", { x: left - 4, y: top + plotH, "text-anchor": "end" }, "0");
  const spread = hist.counts.reduce((a, b) => a + b, 0);
  // Settled guesses with no total cannot win: the caption counts them, the bins cannot.
  const cannotWin = Math.max(0, (view.settled || 0) - spread);
  $("ranking-caption").textContent = t("rankingCaption", spread, hist.from, last, hist.width)
    + (cannotWin ? ` ${t("rankingCaptionCannotWin", cannotWin)}` : "");
}

function setupRanking() {
  $("ranking-form").addEventListener("submit", lookUpOpener);
  // The histogram is drawn at its width: again when that changes (a phone turned).
  let drawn = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(drawn);
    drawn = requestAnimationFrame(() => renderHistogram(ranking.view, ranking.found));
  });
}

// Every part of the page is declared above: start.
main().finally(setupPuzzles);
