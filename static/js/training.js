// Training on a past game: the same racks and master moves, a slip judged at once by the server (nothing is
// written there), the running totals beside the tops, then the percentage, the rank in the real game and a
// link to share. The progress stays in this browser (localStorage) until the training starts again.
import { fillBoard, renderRack, setTileLabels, wordElement } from "./board.js";
import { formatSeconds } from "./clock.js";
import { $, errorMessage, fmt, formatPercent, readJson, say, typeset } from "./common.js";
import { loadPlayer, playerHeaders } from "./phone/store.js";
import { reasonText } from "./reasons.js";
import { createSlipFields } from "./slip-fields.js";

const C = readJson("train-config");
setTileLabels(C.labels); // a set with tiles beyond A-Z: the rack, the board and the words show its labels
const T = C.text;
const KEY = `training:${C.game}`;
const TOPS_SHOWN = 5; // the tied tops listed with a verdict; the others are counted

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || "null");
    if (saved && Array.isArray(saved.verdicts)) return saved;
  } catch {
    // A damaged entry: start afresh.
  }
  return null;
}

let state = load();

// Only the first verdict of each round counts (the server signs it so): kept apart from the progress, so that
// starting again keeps them; a later try is practice. {round number: the counted verdict}.
const FIRSTS_KEY = `training-firsts:${C.game}`;
let firsts = {};
try {
  firsts = JSON.parse(localStorage.getItem(FIRSTS_KEY) || "{}") || {};
} catch {
  firsts = {};
}
const counted = (v) => (v && firsts[v.round]) || v;
let timer = null;

function save() {
  localStorage.setItem(KEY, JSON.stringify(state));
}

function csrf() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

// A game open to the club's members: this phone's player token (kept since the player joined one of the
// club's games) goes with every request.
const member = C.members_only ? loadPlayer(C.game, C.tournament) : null;

function headers(extra) {
  return member && member.token ? playerHeaders(member, extra) : { Accept: "application/json", ...extra };
}

async function post(url, body) {
  const res = await fetch(url, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", "X-CSRFToken": csrf() }),
    body: JSON.stringify(body),
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new Error(errorMessage(data, `HTTP ${res.status}`));
  return data;
}

const totalOf = (key) => (state ? state.verdicts.reduce((sum, v) => sum + (v ? counted(v)[key] : 0), 0) : 0);

// Topping: a verdict's time and whether it found the top (its `topping`), summed like the points.
const toppingOf = (v) => (v && counted(v).topping) || { seconds: 0, found: false };

function showTotals() {
  if (C.topping) {
    const done = state ? state.verdicts.filter(Boolean).map(toppingOf) : [];
    $("total-mine").textContent = fmt(T.seconds, { n: done.reduce((sum, t) => sum + t.seconds, 0) });
    $("total-top").textContent = String(done.filter((t) => t.found).length);
    return;
  }
  $("total-mine").textContent = String(totalOf("paid"));
  $("total-top").textContent = String(totalOf("top_score"));
}

// The slip's fields, the same as on the player's phone (slip-fields.js): a blank tapped on its letter, the
// across/down toggle beside the reference.
const fields = createSlipFields({
  T,
  labelling: C.labelling,
  keys: C.keys || [],
  keysLabel: C.keys_label || "",
  onNeedRef: () => say($("train-status"), T.need_ref, "warn"),
});

function showRound(index = state.index) {
  const round = C.rounds[Math.min(index, C.rounds.length - 1)];
  say($("round-label"), fmt(T.round_n, { n: round.number, count: C.rounds.length }));
  fillBoard($("board"), round.board, { blankLabel: T.blank });
  renderRack($("rack"), round.rack, { kept: round.kept, values: C.values, blankLabel: T.blank, keptLabel: T.kept });
  fields.setRack(round.rack);
  showTotals();
}

function playLine(el, play) {
  el.textContent = "";
  if (!play || !play.word) {
    el.textContent = T.no_play;
    return;
  }
  el.append(wordElement(play.word, { blankLabel: T.blank }), ` ${play.ref} · ${fmt(T.points, { n: play.score })}`);
}

function showVerdict(v) {
  $("train-form").hidden = true;
  $("verdict").hidden = false;
  $("verdict").dataset.round = String(v.round);
  $("verdict").dataset.outcome = v.outcome;
  let title = v.is_top ? fmt(T.is_top, { n: v.paid }) : fmt(T.not_top, { paid: v.paid, top: v.top_score });
  if (v.topping) {
    title = v.topping.found ? fmt(T.top_found_in, { n: v.topping.found_after })
      : fmt(T.top_not_found, { seconds: v.topping.seconds });
  }
  // A retry of a round: practice, not counted (the first verdict of the round is).
  $("verdict").dataset.counted = String(v.counted !== false);
  const ok = v.topping ? v.topping.found : v.is_top;
  say($("verdict-title"), v.counted === false ? `${title} · ${T.practice}` : title, ok ? "ok" : "warn");
  const mine = $("verdict-mine");
  mine.textContent = "";
  if (v.word) {
    mine.append(wordElement(v.word, { blankLabel: T.blank }), ` ${v.ref || ""} · `);
  }
  const reason = reasonText(C.reasons, v, v.word);
  mine.append(`${fmt(T.paid, { n: v.paid })} (${C.outcomes[v.outcome] || v.outcome}) — ${typeset(reason)}`);
  const tops = $("verdict-tops");
  tops.textContent = "";
  v.tops.slice(0, TOPS_SHOWN).forEach((top, i) => {
    const line = document.createElement("span");
    playLine(line, top);
    if (i) tops.append(" · ");
    tops.append(line);
  });
  const more = v.tops.length - TOPS_SHOWN;
  if (more > 0) tops.append(" · ", fmt(more === 1 ? T.more_top : T.more_tops, { n: more }));
  playLine($("verdict-master"), v.master);
  $("train-next").textContent = state.index + 1 < C.rounds.length ? T.next : T.finish;
  showTotals();
  $("verdict").scrollIntoView({ block: "nearest" });
}

function stopClock() {
  if (timer) clearInterval(timer);
  timer = null;
}

function startClock() {
  stopClock();
  const el = $("countdown");
  if (!state.clock) {
    el.textContent = "–:––";
    return;
  }
  if (!state.deadline) {
    state.deadline = Date.now() + (C.round_seconds - (state.elapsed || 0)) * 1000;
    save();
  }
  const tick = () => {
    const left = Math.max(0, Math.ceil((state.deadline - Date.now()) / 1000));
    el.textContent = formatSeconds(left);
    el.classList.toggle("call-30", left <= 30 && left > 0);
    if (left === 0) {
      stopClock();
      say($("train-status"), T.time_up, "warn");
      judge(true);
    }
  };
  tick();
  timer = setInterval(tick, 250);
}

async function openForm() {
  $("verdict").hidden = true;
  $("train-form").hidden = false;
  fields.clear();
  say($("train-status"), "");
  showRound();
  if (C.topping && !state.deadline) {
    // Topping: the round starts on the server's clock, which times the tries (a round started before keeps
    // its start: the clock shows what is left of it).
    try {
      const started = await post(C.start_url, { round: C.rounds[state.index].number });
      state.elapsed = started.elapsed;
    } catch (error) {
      say($("train-status"), fmt(T.error, { message: error.message || T.offline }), "error");
      return;
    }
  }
  startClock();
}

let judging = false;

async function judge(timeUp = false) {
  if (judging) return;
  const round = C.rounds[state.index];
  const slip = fields.slip();
  const body = { round: round.number, word: timeUp ? "" : slip.word, ref: timeUp ? "" : slip.ref,
    score: timeUp || !Number.isInteger(slip.score) || slip.score < 0 ? null : slip.score };
  judging = true;
  $("train-judge").disabled = true;
  say($("train-status"), T.judging);
  try {
    const verdict = await post(C.judge_url, body);
    if (verdict.topping && !verdict.topping.final) {
      // Topping: a wrong try; the clock runs on and the trainee tries again.
      say($("train-status"), fmt(T.try_again, { n: verdict.topping.elapsed }), "warn");
      return;
    }
    stopClock();
    state.verdicts[state.index] = verdict;
    if (verdict.counted) {
      firsts[verdict.round] = verdict;
      localStorage.setItem(FIRSTS_KEY, JSON.stringify(firsts));
    }
    state.deadline = null;
    save();
    showVerdict(verdict);
  } catch (error) {
    say($("train-status"), fmt(T.error, { message: error.message || T.offline }), "error");
    if (timeUp) setTimeout(() => judge(true), 3000);
  } finally {
    judging = false;
    $("train-judge").disabled = false;
  }
}

async function finish() {
  $("verdict").hidden = true;
  $("train-form").hidden = true;
  stopClock();
  if (!state.result) {
    state.result = await post(C.result_url, { name: state.name, proofs: state.verdicts.map((v) => counted(v).proof) });
    save();
  }
  const r = state.result;
  $("train-end").hidden = false;
  $("end-total").textContent = r.topping ? fmt(T.result_time, r.topping)
    : fmt(T.result, { total: r.total, tops: r.top_total, percent: formatPercent(r.percent) });
  $("end-rank").textContent = fmt(T.rank, { rank: r.rank, players: r.players });
  $("end-share").href = r.url;
  $("train-end").scrollIntoView({ block: "nearest" });
  showTotals();
}

function next() {
  state.index += 1;
  save();
  if (state.index >= C.rounds.length) {
    finish().catch((error) => say($("train-status"), fmt(T.error, { message: error.message }), "error"));
  } else {
    openForm();
  }
}

function resume() {
  $("train-start").hidden = true;
  if (state.index >= C.rounds.length) {
    showRound(C.rounds.length - 1);
    finish().catch((error) => say($("train-status"), fmt(T.error, { message: error.message }), "error"));
  } else if (state.verdicts[state.index]) {
    showRound();
    showVerdict(state.verdicts[state.index]);
  } else {
    openForm();
  }
}

$("train-start").addEventListener("submit", (event) => {
  event.preventDefault();
  // Topping is always timed: the time is the score.
  state = { name: $("train-name").value.trim(), clock: C.topping || $("train-clock").checked, index: 0, verdicts: [],
    deadline: null, result: null };
  save();
  resume();
});

$("train-form").addEventListener("submit", (event) => {
  event.preventDefault();
  judge(false);
});

$("train-next").addEventListener("click", next);

$("train-restart").addEventListener("click", () => {
  localStorage.removeItem(KEY);
  state = null;
  stopClock();
  $("train-end").hidden = true;
  $("train-start").hidden = false;
});

function begin() {
  if (C.rounds.length) showRound(state ? state.index : 0);
  if (state) resume();
}

// The rounds of a game open to members come once the server knows this phone's player.
async function loadRounds() {
  if (!member || !member.token) return;
  const res = await fetch(C.rounds_url, { headers: headers() });
  if (!res.ok) return;
  const data = await res.json();
  C.rounds = data.rounds;
  $("train-members").hidden = true;
  $("train-start").hidden = false;
  begin();
}

if (C.members_only) {
  loadRounds().catch(() => {});
} else {
  begin();
}
