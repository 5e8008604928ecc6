// The projector: big board, the rack (kept letters, then the new ones), the countdown with the
// 30-second call, the last top and master, the standings page after page (projector/standings.js), the join
// code between rounds. Follows the game live; the page fits the screen and never scrolls.
import { fillBoard, renderRack, setTileLabels } from "./board.js";
import { serverClock, startCountdown } from "./clock.js";
import { $, fmt, idleTime, readJson, showPlay, typeset } from "./common.js";
import { incidentNotice, markPaused, runningDeadline } from "./incidents.js";
import { subscribe } from "./live.js";
import { createStandings } from "./projector/standings.js";

const config = readJson("page-config");
const T = config.text;
setTileLabels(config.labels);
const standings = createStandings({
  section: $("standings"),
  body: $("standings-body"),
  pageLabel: $("standings-page"),
  provisionalLabel: $("standings-provisional"),
  seconds: config.page_seconds,
  T,
  url: config.standings_url,
});

// A line that must stay on one line (the master: "SALADS H8 · 18 points"): its font made smaller until it
// fits the width it has.
function fitLine(el) {
  el.style.fontSize = "";
  let size = parseFloat(getComputedStyle(el).fontSize);
  for (let i = 0; i < 30 && el.scrollWidth > el.clientWidth + 1 && size > 8; i++) {
    size *= 0.92;
    el.style.fontSize = `${size}px`;
  }
}

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
  const points = count > 1 ? fmt(T.tied, { n: last.top_score, count }) : fmt(T.top_score, { n: last.top_score });
  return fmt(T.top_line, { points });
}

function render(info) {
  const game = info.game || {};
  fillBoard($("board"), game.board, { blankLabel: `(${T.blank})`, marked: (info.last && info.last.placed) || [] });
  $("round-label").textContent = info.round ? fmt(T.round_n, { n: info.round }) : "";
  const inPlay = info.round_status === "drawn" || info.round_status === "open";
  if (inPlay) {
    renderRack($("rack"), game.rack || "", { kept: game.kept || "", values: config.values, blankLabel: T.blank, keptLabel: T.kept });
    $("rejected").textContent = (game.rejected || []).join("  ");
  } else {
    $("rack").textContent = "";
    $("rejected").textContent = "";
  }
  if (info.status === "over") {
    // The end: the standings are the news (final once every paper slip is in, until then the game is over).
    $("call").textContent = info.provisional ? T.over : T.final;
    document.body.classList.remove("call-30");
  } else if (info.round_status !== "open") {
    $("call").textContent = info.round_status === "closed" ? T.closed : "";
    document.body.classList.remove("call-30");
  } else if ($("call").textContent === T.closed) {
    $("call").textContent = ""; // the next round is on: the last one's close is old news
  }
  // With no round on, the projector's clock stays blank.
  countdown.setDeadline(runningDeadline(info), idleTime(info, ""));
  markPaused($("countdown"), info);
  // A pause or a cancelled round is told to the hall in the call line.
  const notice = incidentNotice(info, T);
  if (notice) {
    $("call").textContent = notice;
    document.body.classList.remove("call-30");
  } else if ($("call").dataset.incident) {
    $("call").textContent = "";
  }
  $("call").dataset.incident = notice ? "1" : "";
  const progress = info.progress || {};
  $("progress").textContent = progress.received !== null && progress.received !== undefined ? fmt(T.slips, progress) : "";
  const finders = (info.round_status === "open" && progress.finders) || [];
  $("finders").hidden = !finders.length;
  $("finders").textContent = finders.length ? fmt(T.topping_finders, { names: finders.join(", ") }) : "";
  const last = info.last;
  if (last) {
    $("last-title").textContent = `${fmt(T.round_n, { n: last.number })} · ${T.master}`;
    $("last-top").textContent = topText(last);
    showPlay($("last-master"), last.master, T);
  }
  $("last").hidden = !last;
  // Before the first rack and between rounds the hall needs the join code (latecomers join then); during a
  // round, the rack and the clock take its room.
  $("join").hidden = inPlay || info.status === "over";
  document.body.dataset.phase = inPlay ? "play" : info.status === "over" ? "over" : last ? "between" : "before";
  if (last) fitLine($("last-master"));
  $("bag").textContent = game.bag_count !== undefined && game.bag_count !== null ? typeset(`${T.bag}: ${game.bag_count}`) : "";
  standings.show(info); // last: it measures the room the rest leaves
}

window.addEventListener("resize", () => {
  if (!$("last").hidden) fitLine($("last-master"));
});

const initial = JSON.parse($("page-snapshot").textContent || "{}");
if (initial && initial.game) render(initial);
subscribe(config.game, render, {
  progress: true,
  silentSeconds: config.silent_seconds,
  onStatus: (s, detail = {}) => {
    const notice = $("conn");
    if (notice) notice.textContent = s === "silent" ? fmt(T.silent, { n: detail.seconds }) : s === "degraded" ? T.degraded : "";
    // A silent server: the hall's clock and board may be stale.
    document.body.classList.toggle("silent", s === "silent");
  },
});
