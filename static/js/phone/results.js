// After the close: the round's top, the master, the player's own result, and the standings.
//
// createResults({config, gameId, player, live}) -> {follow(info), refreshMine()}; live(): the game's current
// state; refreshMine(): ask for the player's own line now (a change that only the player's line shows).
import { $, fmt, formatPercent, showPlay } from "../common.js";
import { wordElement } from "../board.js";
import { playerHeaders } from "./store.js";
import { reasonText } from "../reasons.js";

export function createResults({ config, gameId, player, live }) {
  const T = config.text;
  let shown = null; // the number of the round whose results are on screen
  let mine = null; // this player's own line: {result, standing}, from /games/<id>/mine
  let mineTimer = null;
  let lastScores = null; // the last top and standings seen, to ask for the player's line when they move
  let lastAmended = null; // the last round's amended results, when this player's is among them

  // After a close a thousand phones ask at once: spread them over a second and a half, and ask only for
  // this player's own line (the top, the master and the top of the standings come with the live state).
  // Asks may overlap (a close, then a correction): an answer to an ask older than one already answered is
  // not shown, or the phone would go back to the line before the change.
  let asked = 0;
  let answered = 0;
  function loadMine(delay) {
    clearTimeout(mineTimer);
    mineTimer = setTimeout(async () => {
      if (!player) return;
      const ask = ++asked;
      try {
        const res = await fetch(`/games/${gameId}/mine`, { headers: playerHeaders(player), cache: "no-store" });
        if (res.status === 401) {
          $("need-join").hidden = false;
          return;
        }
        if (!res.ok) return;
        const body = await res.json();
        if (ask < answered) return;
        answered = ask;
        mine = body;
        const info = live();
        showResults(info.last, mine.result);
        showStandings(info.standings || [], mine.standing);
        showFinal(info, mine.standing);
      } catch {
        // Offline: the next change asks again.
      }
    }, delay);
  }

  function showResults(last, result) {
    if (!last) return;
    const fresh = shown !== last.number; // this round's close just reached the phone
    shown = last.number;
    $("results-title").textContent = fmt(T.round_n, { n: last.number });
    const count = (last.tops || []).length;
    $("result-top").textContent = last.top_score === null || last.top_score === undefined ? T.no_play
      : count > 1 ? fmt(T.tied, { n: last.top_score, count }) : fmt(T.top_score, { n: last.top_score });
    showPlay($("result-master"), last.master, T);
    const box = $("result-mine");
    box.textContent = "";
    if (result && result.round === last.number) {
      const outcome = config.outcomes[result.outcome] || result.outcome;
      const reason = reasonText(config.reasons, result, result.word);
      const head = document.createElement("strong");
      head.textContent = `${fmt(T.paid, { n: result.paid })} — ${outcome}`;
      head.className = result.outcome === "ok" ? "status-ok" : result.outcome === "warning" ? "status-warn" : "status-bad";
      box.append(head, document.createElement("br"));
      if (result.bonus) { // the bingo bonus in the pay: 50 for 7 tiles, 75 for 8 in 7 et 8
        const bonus = document.createElement("span");
        bonus.id = "result-bonus";
        bonus.className = "bonus";
        bonus.textContent = fmt(T.bonus, { n: result.bonus });
        box.append(bonus, document.createElement("br"));
      }
      if (result.word) {
        const claimed = result.claimed === null || result.claimed === undefined ? T.no_score : fmt(T.claimed, { n: result.claimed });
        box.append(wordElement(result.word, { blankLabel: T.blank }), ` ${result.ref || ""} · ${claimed}`,
          document.createElement("br"));
      }
      const why = document.createElement("span");
      why.className = "reason";
      why.dataset.reason = result.reason;
      why.textContent = reason;
      box.append(why);
    }
    const status = live().round_status;
    $("results").hidden = status === "drawn" || status === "open";
    // The form the player was looking at is gone: the result takes its place in view.
    if (fresh && !$("results").hidden) $("results").scrollIntoView({ block: "nearest" });
  }

  function showStandings(rows, standing) {
    const body = $("standings-body");
    body.textContent = "";
    const listed = rows.slice();
    if (standing && !listed.some((row) => row.player === standing.player)) listed.push(standing);
    for (const row of listed) {
      const tr = document.createElement("tr");
      if (player && row.player === player.player) tr.className = "me";
      const cells = [row.rank, row.name, row.total, row.diff ? `-${Math.abs(row.diff)}` : "0"];
      cells.forEach((value, i) => {
        const td = document.createElement("td");
        td.textContent = value;
        if (i !== 1) td.className = "num";
        tr.appendChild(td);
      });
      body.appendChild(tr);
    }
    $("standings").hidden = listed.length === 0;
    // Paper slips of the last round still being entered: these standings may change.
    const provisional = $("standings-provisional");
    if (provisional) provisional.hidden = !live().provisional;
  }

  // The game over: the player's total against the sum of the tops (total - diff), as a percentage.
  function showFinal(info, standing) {
    const line = $("final-result");
    const shown = info.status === "over" && !!standing;
    line.hidden = !shown;
    if (!shown) return;
    line.textContent = fmt(T.final_result, {
      total: standing.total, tops: standing.total - standing.diff, percent: formatPercent(standing.percent),
    });
  }

  // A new state of the game. During a round the slip comes first; once it is closed, the results of the
  // last round. The top, the master and the standings change only with a close, a new master or a
  // correction: only then is the player's own line asked again.
  function follow(info) {
    const inPlay = info.round_status === "drawn" || info.round_status === "open";
    if (shown) $("results").hidden = inPlay;
    showResults(info.last, mine && mine.result);
    showStandings(info.standings || [], mine && mine.standing);
    showFinal(info, mine && mine.standing);
    // Every phone asks again when the top, the master or the head of the standings moved; only the phones of
    // the players whose result the arbitrator changed after the close (last.amended) when nothing else did.
    const { amended = [], ...closed } = info.last || {};
    const scores = JSON.stringify([info.last ? closed : null, info.standings]);
    const mineAmended = info.last && player && amended.includes(player.player) ? JSON.stringify([closed.number, amended]) : null;
    if (info.last && player && scores !== lastScores) loadMine(lastScores === null ? 0 : Math.random() * 1500);
    else if (mineAmended && mineAmended !== lastAmended) loadMine(0);
    lastScores = scores;
    lastAmended = mineAmended;
  }

  return { follow, refreshMine: () => loadMine(0) };
}
