// The player's review of a game: one round at a time (← → keys, the buttons, or a swipe on the board),
// with the board before the round, the rack, the slip and its result, the tops, the best plays and the
// rank of the player's play; the summary of the game below.
import { fillBoard, renderRack, setTileLabels, wordElement } from "./board.js";
import { $, errorMessage, fmt, formatPercent, readJson, showPlay, typeset } from "./common.js";
import { loadPlayer, playerHeaders } from "./phone/store.js";
import { reasonText } from "./reasons.js";

const SWIPE_PX = 50; // a horizontal swipe at least this long turns the page

const config = readJson("page-config");
setTileLabels(config.labels);
const T = config.text;
const player = config.player ? null : loadPlayer(config.game, config.tournament);
let rounds = [];
let current = null;
let loading = false;

function headers() {
  return player && player.token ? playerHeaders(player) : { Accept: "application/json" };
}

function fail(text) {
  $("review-error").textContent = typeset(text);
  $("review-error").hidden = false;
}

async function load(number) {
  if (loading) return;
  loading = true;
  const query = new URLSearchParams();
  if (number) query.set("round", number);
  if (config.player) query.set("player", config.player);
  try {
    const res = await fetch(`${config.data_url}?${query}`, { headers: headers(), cache: "no-store",
      credentials: "same-origin" });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      fail(errorMessage(body, `${res.status}`));
      return;
    }
    $("review-error").hidden = true;
    show(body);
  } catch {
    fail(T.offline);
  } finally {
    loading = false;
  }
}

// A line of the summary: `template` with its values, the word (blanks circled) where %(word)s stands.
function item(list, template, values = {}) {
  const li = document.createElement("li");
  const [before, after = ""] = fmt(template, { ...values, word: "\u0000" }).split("\u0000");
  li.append(before);
  if (values.word) li.append(wordElement(values.word, { blankLabel: T.blank }), after);
  list.append(li);
}

function showResult(r) {
  const slip = $("review-slip");
  slip.textContent = "";
  if (r.slip) {
    const claimed = r.slip.claimed === null ? T.no_score : fmt(T.claimed, { n: r.slip.claimed });
    slip.append(wordElement(r.slip.word, { blankLabel: T.blank }), ` ${r.slip.ref || ""} · ${claimed}`);
  } else {
    slip.textContent = config.reasons.no_slip;
  }
  const result = $("review-result");
  result.textContent = "";
  if (r.result) {
    const head = document.createElement("strong");
    head.textContent = `${fmt(T.paid, { n: r.result.paid })} — ${config.outcomes[r.result.outcome] || r.result.outcome}`;
    head.className = r.result.outcome === "ok" ? "status-ok" : r.result.outcome === "warning" ? "status-warn" : "status-bad";
    const why = document.createElement("span");
    why.className = "reason";
    why.dataset.reason = r.result.reason;
    why.textContent = reasonText(config.reasons, r.result, r.slip && r.slip.word);
    result.append(head, document.createElement("br"), why);
    if (r.result.corrected) result.append(` (${T.corrected})`);
  }
  // Topping: the player's time in the round, as the standings count it.
  const time = $("review-time");
  time.hidden = !r.topping;
  $("review-time-title").hidden = !r.topping;
  if (r.topping) {
    time.textContent = r.topping.found_after === null ? fmt(T.time_not_found, { seconds: r.topping.seconds })
      : fmt(T.time_found, { n: r.topping.found_after, seconds: r.topping.seconds });
  }
  const mine = r.mine;
  const rank = $("review-rank");
  rank.dataset.state = mine.state;
  rank.textContent = mine.state === "ranked" ? fmt(T.rank, { rank: mine.rank_text, count: r.count })
    : fmt(mine.state === "no_slip" ? T.no_slip : T.not_legal, { count: r.count });
}

function showTops(r) {
  const tops = $("review-tops");
  tops.textContent = "";
  if (!r.tops.length) tops.textContent = T.no_play;
  r.tops.forEach((top, i) => {
    if (i) tops.append(document.createElement("br"));
    tops.append(wordElement(top.word, { blankLabel: T.blank }), ` ${top.ref} · ${fmt(T.points, { n: top.score })}`);
  });
  showPlay($("review-master"), r.master, T);
  $("review-found").textContent = r.found_top.text;
  const body = $("review-best");
  body.textContent = "";
  for (const play of r.best) {
    const tr = document.createElement("tr");
    if (play.mine) tr.className = "mine";
    else if (play.score === r.top_score) tr.className = "top";
    const cells = [play.rank_text, null, play.ref, play.score];
    cells.forEach((value, i) => {
      const td = document.createElement("td");
      if (i === 1) {
        td.append(wordElement(play.word, { blankLabel: T.blank }));
        if (play.mine) td.append(` (${T.yours})`);
      } else {
        td.textContent = value;
      }
      if (i === 0 || i === 3) td.className = "num";
      tr.append(td);
    });
    body.append(tr);
  }
  if (r.tied_more_text) {
    const tr = document.createElement("tr");
    tr.className = "tied-more";
    const td = document.createElement("td");
    td.colSpan = 4;
    td.textContent = r.tied_more_text;
    tr.append(td);
    body.append(tr);
  }
}

function showSummary(s) {
  $("review-total").textContent = s.percent === null ? "" : fmt(T.total, {
    total: s.total, top: s.top_total, percent: formatPercent(s.percent),
  });
  const times = $("review-times");
  times.hidden = !s.topping;
  if (s.topping) times.textContent = fmt(T.times, s.topping);
  const losses = $("review-losses");
  losses.textContent = "";
  for (const line of s.losses) item(losses, T.loss, { n: line.number, paid: line.paid, top: line.top_score, loss: line.loss });
  if (!s.losses.length) item(losses, T.none);
  const found = $("review-found-words");
  found.textContent = "";
  for (const line of s.found) item(found, T.found_item, { n: line.number, word: line.word });
  if (!s.found.length) item(found, T.none);
  const missed = $("review-missed");
  missed.textContent = "";
  for (const line of s.missed) item(missed, T.missed_item, { n: line.number, word: line.word, ref: line.ref, score: line.score });
  if (!s.missed.length) item(missed, T.none);
}

function show(body) {
  rounds = body.rounds;
  const r = body.round;
  current = r.number;
  $("review-body").hidden = false;
  $("review-who").textContent = body.player.table ? `${body.player.name} · ${fmt(T.table, { n: body.player.table })}` : body.player.name;
  $("review-round").textContent = fmt(T.round_n, { n: r.number });
  $("review-round").dataset.round = r.number;
  const at = rounds.indexOf(r.number);
  $("review-prev").disabled = at <= 0;
  $("review-next").disabled = at < 0 || at >= rounds.length - 1;
  fillBoard($("review-board"), r.board, { blankLabel: `(${T.blank})` });
  renderRack($("review-rack"), r.rack, { kept: r.kept, blankLabel: T.blank });
  showResult(r);
  showTops(r);
  showSummary(body.summary);
  const url = new URL(window.location.href);
  url.searchParams.set("round", r.number);
  history.replaceState(null, "", url);
}

function step(by) {
  const at = rounds.indexOf(current);
  const next = rounds[at + by];
  if (at >= 0 && next !== undefined) load(next);
}

$("review-prev").addEventListener("click", () => step(-1));
$("review-next").addEventListener("click", () => step(1));
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest && event.target.closest("input, textarea, select")) return;
  if (event.key === "ArrowLeft") step(-1);
  else if (event.key === "ArrowRight") step(1);
});
let touch = null;
const area = document.querySelector(".review-grid");
area.addEventListener("touchstart", (event) => {
  const t = event.changedTouches[0];
  touch = { x: t.clientX, y: t.clientY };
}, { passive: true });
area.addEventListener("touchend", (event) => {
  if (!touch) return;
  const t = event.changedTouches[0];
  const dx = t.clientX - touch.x;
  const dy = t.clientY - touch.y;
  touch = null;
  if (Math.abs(dx) >= SWIPE_PX && Math.abs(dx) > 2 * Math.abs(dy)) step(dx < 0 ? 1 : -1);
}, { passive: true });

load(config.round);
