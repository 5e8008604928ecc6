// The game on the player's phone: rack, board and countdown follow the game live; the slip form and the
// results below (form.js, results.js) are handed each new state.
import { fillBoard, renderRack, setTileLabels } from "../board.js";
import { serverClock, startCountdown } from "../clock.js";
import { $, fmt, idleTime, readJson } from "../common.js";
import { incidentNotice, markPaused, runningDeadline } from "../incidents.js";
import { subscribe } from "../live.js";
import { createSlipForm } from "./form.js";
import { createResults } from "./results.js";
import { keepLinked, keepPlayer, loadPlayer, pending, playerHeaders } from "./store.js";

export function setupPlay() {
  const config = readJson("page-config");
  const T = config.text;
  setTileLabels(config.labels);
  const gameId = config.game;
  let info = readJson("page-snapshot") || {};
  const live = () => info;
  // A personal link made at the console carries the player's token in the fragment (never sent to the
  // server): keep it for this game and take it out of the address bar.
  const linked = new URLSearchParams(window.location.hash.slice(1)).get("token");
  if (linked) {
    keepLinked(gameId, linked);
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  const tournamentId = info.game && info.game.tournament;
  const player = loadPlayer(gameId, tournamentId);

  const countdown = startCountdown($("countdown"), {
    clock: serverClock,
    idleText: "–:––",
    onCall30: () => {
      $("call").textContent = T.call30;
      if (navigator.vibrate) navigator.vibrate(200);
    },
    onEnd: () => {
      $("call").textContent = T.time_up;
      form.update();
    },
  });

  if (!player) {
    $("need-join").hidden = false;
    $("slip-form").hidden = true;
  }
  // A field the browser scrolls into view stops below the sticky clock and rack, not under them.
  const top = $("phone-top");
  new ResizeObserver(() => {
    document.documentElement.style.scrollPaddingTop = `${top.offsetHeight + 8}px`;
  }).observe(top);
  // Topping: the player's running time from the round's start, then the seconds the top was found in. The
  // time is the server's reckoning (docs/rules.md 7.5): from the round's start, pauses included, and no more
  // than the round's time with the arbitrator's extensions (a top found later counts that).
  let toppingFound = null; // {round, n}
  function toppingSeconds(info) {
    const started = info.started_at ? Date.parse(info.started_at) : Date.parse(info.deadline) - config.round_seconds * 1000;
    const most = config.round_seconds + (info.extended_seconds || 0);
    return Math.min(most, Math.max(0, Math.floor((serverClock.now() - started) / 1000)));
  }
  function showToppingTime() {
    const el = $("topping-time");
    const info = live();
    if (toppingFound && toppingFound.round === info.round) {
      el.hidden = false;
      el.textContent = fmt(T.topping_found, { n: toppingFound.n });
    } else if (info.round_status === "open" && (info.started_at || info.deadline)) {
      el.hidden = false;
      el.textContent = fmt(T.topping_running, { n: toppingSeconds(info) });
    } else {
      el.hidden = true;
    }
  }
  if (config.topping) setInterval(showToppingTime, 1000);
  const results = createResults({ config, gameId, player, live });
  const form = createSlipForm({
    T, gameId, labelling: config.labelling, keys: config.keys || [], keysLabel: config.keys_label, player, live, clock: serverClock,
    onTopping: (round, tried) => {
      if (tried.found) toppingFound = { round, n: tried.found_after };
      showToppingTime();
    },
    onLate: () => results.refreshMine(),
  });

  async function api(path) {
    const res = await fetch(path, { headers: playerHeaders(player), cache: "no-store" });
    if (res.status === 401) {
      $("need-join").hidden = false;
      throw new Error("not joined");
    }
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return res.json();
  }

  // Who this phone is, and what the server already holds for the round (after a reload, or another tab).
  async function loadMe() {
    if (!player) return;
    try {
      const body = await api(`/api/games/${gameId}/me`);
      player.player = body.id;
      player.name = body.name;
      keepPlayer(gameId, tournamentId, player);
      $("who").textContent = body.table ? `${body.name} · ${fmt(T.table, { n: body.table })}` : body.name;
      const held = body.slip;
      if (body.topping && body.topping.found) {
        toppingFound = { round: body.round, n: body.topping.found_after };
        showToppingTime();
      }
      if (held && body.round === info.round && info.round_status === "open" && !form.pending()) {
        form.hold({
          word: held.word, ref: held.ref, score: held.score ?? null, received_at: held.received_at, seq: held.seq,
          receipt: held.receipt,
        });
      }
    } catch {
      // Offline or not joined: said elsewhere.
    }
  }

  function onChange(next) {
    info = next;
    const game = next.game || {};
    const inPlay = next.round_status === "drawn" || next.round_status === "open";
    fillBoard($("board"), game.board, { blankLabel: `(${T.blank})`, marked: (next.last && next.last.placed) || [] });
    if (inPlay) {
      renderRack($("rack"), game.rack || "", { kept: game.kept || "", values: config.values, blankLabel: T.blank, keptLabel: T.kept });
    } else {
      $("rack").textContent = "";
    }
    document.querySelector(".rack-box").hidden = !inPlay;
    // Rejected draws are announced with the rack (e.g. -AEIOUU+), never silently dropped.
    $("rejected").textContent = (game.rejected || []).join("  ");
    $("round-label").textContent = next.round ? fmt(T.round_n, { n: next.round }) : "";
    $("phase").textContent = incidentNotice(next, T) || (next.status === "over" ? T.over : T[next.round_status] || T.waiting);
    countdown.setDeadline(runningDeadline(next), idleTime(next));
    markPaused($("countdown"), next);
    form.follow(next);
    results.follow(next);
    // The review opens on the rounds the game has moved past, and on every round at the end.
    $("review-link").hidden = !(next.status === "over" || (next.round > 1 && next.round_status === "closed"));
    // Training on this game, once it is over and the arbitrator opened it (a phone's player is a member).
    $("training-link").hidden = !(next.status === "over" && next.training_open);
  }

  onChange(info);
  if (player) {
    const slip = pending.load(gameId);
    if (slip && slip.round === info.round && info.round_status === "open") {
      form.fill(slip);
      form.send(slip);
    } else {
      pending.drop(gameId);
    }
    loadMe();
  }
  subscribe(gameId, onChange, {
    silentSeconds: config.silent_seconds,
    onStatus: (s, detail = {}) => {
      const wasSilent = $("conn").dataset.state === "silent";
      $("conn").textContent = s === "silent" ? fmt(T.silent, { n: detail.seconds }) : T[s] || s;
      $("conn").dataset.state = s;
      // A silent server: "Round open: hand in your slip" would be a promise the phone cannot keep.
      if (s === "silent") $("phase").textContent = T.silent_phase;
      else if (wasSilent) onChange(info);
      $("phase").classList.toggle("status-bad", s === "silent");
    },
  });
}
