// The projector: big board, the rack (kept letters, then the new ones), the countdown with the
// 30-second call, the last top and master, the top of the standings. Follows the game live.
import { fillBoard, renderRack } from "./board.js";
import { serverClock, startCountdown } from "./clock.js";
import { $, fmt, idleTime, readJson, showPlay } from "./common.js";
import { subscribe } from "./live.js";

const config = readJson("page-config");
const T = config.text;

const countdown = startCountdown($("countdown"), {
  clock: serverClock,
  idleText: "–:––",
  onCall30: () => {
    $("call").textContent = T.call30;
    document.body.classList.add("call-30");
  },
  onEnd: () => {
    $("call").textContent = T.time_up;
    document.body.classList.remove("call-30");
  },
});

function topText(last) {
  const count = (last.tops || []).length;
  if (last.top_score === null || last.top_score === undefined) return T.no_play;
  return `${T.top} ${count > 1 ? fmt(T.tied, { n: last.top_score, count }) : fmt(T.top_score, { n: last.top_score })}`;
}

function render(info) {
  const game = info.game || {};
  fillBoard($("board"), game.board, { blankLabel: `(${T.blank})` });
  $("round-label").textContent = info.round ? fmt(T.round_n, { n: info.round }) : "";
  const inPlay = info.round_status === "drawn" || info.round_status === "open";
  if (inPlay) {
    renderRack($("rack"), game.rack || "", { kept: game.kept || "", values: config.values, blankLabel: T.blank, keptLabel: T.kept });
    $("rejected").textContent = (game.rejected || []).join("  ");
  } else {
    $("rack").textContent = "";
    $("rejected").textContent = info.status === "over" ? T.over : "";
  }
  if (info.round_status !== "open") {
    $("call").textContent = info.round_status === "closed" ? T.closed : "";
    document.body.classList.remove("call-30");
  }
  // With no round on, the projector's clock stays blank.
  countdown.setDeadline(info.round_status === "open" ? info.deadline : null, idleTime(info, ""));
  const progress = info.progress || {};
  $("progress").textContent = progress.received !== null && progress.received !== undefined ? fmt(T.slips, progress) : "";
  const last = info.last;
  if (last) {
    $("last-title").textContent = fmt(T.round_n, { n: last.number });
    $("last-top").textContent = topText(last);
    showPlay($("last-master"), last.master, T);
  }
  $("last").hidden = !last;
  const body = $("standings-body");
  body.textContent = "";
  for (const row of (info.standings || []).slice(0, 8)) {
    const tr = document.createElement("tr");
    [row.rank, row.name, row.total, row.diff ? `-${Math.abs(row.diff)}` : "0"].forEach((v, i) => {
      const td = document.createElement("td");
      td.textContent = v;
      if (i !== 1) td.className = "num";
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
  $("standings").hidden = !last || !(info.standings || []).length;
  // Before the first rack and between games the hall needs the join code more than anything else.
  $("join").hidden = Boolean(last) || inPlay;
  $("bag").textContent = game.bag_count !== undefined && game.bag_count !== null ? `${T.bag}: ${game.bag_count}` : "";
}

const initial = JSON.parse($("page-snapshot").textContent || "{}");
if (initial && initial.game) render(initial);
subscribe(config.game, render, {
  progress: true,
  onStatus: (s) => {
    const notice = $("conn");
    if (notice) notice.textContent = s === "degraded" ? T.degraded : "";
  },
});
