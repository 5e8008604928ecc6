// The player's phone: join, follow the round, hand in a slip that survives a lost network, see results.
import { fillBoard, formatRef, makePickable, parseRef, renderRack, wordElement } from "./board.js";
import { formatSeconds, serverClock, startCountdown } from "./clock.js";
import { subscribe } from "./live.js";

const $ = (id) => document.getElementById(id);

// Before the start the clock shows the round's full time, after the close 0:00, with no round dashes.
function idleTime(info) {
  const seconds = (info.game && info.game.round_seconds) || 0;
  if (info.round_status === "drawn" && seconds) return formatSeconds(seconds);
  return info.round_status === "closed" ? formatSeconds(0) : "–:––";
}
const storeKey = (gameId) => `arbiter.game.${gameId}`;
const pendingKey = (gameId) => `arbiter.pending.${gameId}`;
const seqKey = (gameId) => `arbiter.seq.${gameId}`;
const tournamentKey = (tournamentId) => `arbiter.tournament.${tournamentId}`;

function fmt(template, values) {
  return String(template).replace(/%\((\w+)\)s/g, (_, name) => (values[name] ?? ""));
}

function readJson(id) {
  const el = $(id);
  return el ? JSON.parse(el.textContent) : null;
}

function loadStore(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch (err) {
    return null;
  }
}

function newKey() {
  // crypto.randomUUID exists only on https or localhost; venue Wi-Fi often serves plain http.
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function errorMessage(body, fallback) {
  return (body && body.error && body.error.message) || fallback;
}

// ---------------------------------------------------------------- join
function setupJoin() {
  const form = $("join-form");
  const text = readJson("join-text") || {};
  const statusEl = $("join-status");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const code = $("join-code").value.trim().toUpperCase();
    const name = $("join-name").value.trim();
    if (!code || !name) {
      statusEl.textContent = text.missing;
      statusEl.className = "error";
      return;
    }
    statusEl.textContent = text.joining;
    statusEl.className = "";
    try {
      const res = await fetch("/api/join", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ join_code: code, name }),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok) {
        statusEl.textContent = fmt(text.failed, { message: errorMessage(body, res.statusText) });
        statusEl.className = "error";
        return;
      }
      localStorage.setItem(storeKey(body.game), JSON.stringify({ token: body.token, player: body.id, name }));
      // The same token plays the tournament's later games.
      if (body.tournament) localStorage.setItem(tournamentKey(body.tournament), JSON.stringify({ token: body.token, name }));
      localStorage.setItem("arbiter.lastGame", String(body.game));
      window.location.assign(`/games/${body.game}/play`);
    } catch (err) {
      statusEl.textContent = text.offline;
      statusEl.className = "error";
    }
  });
}

// ---------------------------------------------------------------- play
function setupPlay() {
  const config = readJson("page-config");
  const T = config.text;
  const gameId = config.game;
  const labelling = config.labelling;
  let info = readJson("page-snapshot") || {};
  // A personal link made at the console carries the player's token in the fragment (never sent to the
  // server): keep it for this game and take it out of the address bar.
  const linked = new URLSearchParams(window.location.hash.slice(1)).get("token");
  if (linked) {
    localStorage.setItem(storeKey(gameId), JSON.stringify({ token: linked }));
    localStorage.setItem("arbiter.lastGame", String(gameId));
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  // A player of the tournament's earlier game plays this one with the same token.
  const tournamentId = info.game && info.game.tournament;
  const me = loadStore(storeKey(gameId)) || (tournamentId && loadStore(tournamentKey(tournamentId)));
  const table = $("board");
  const form = $("slip-form");
  const refInput = $("slip-ref");
  const dirButton = $("slip-dir");
  const wordInput = $("slip-word");
  const scoreInput = $("slip-score");
  const submitButton = $("slip-submit");
  const slipStatus = $("slip-status");
  const blanks = new Set();
  let accepted = null; // the slip the server holds for the current round (what it answered)
  let sending = null; // the slip being sent: {round, word, ref, score, key, seq}
  let resultsShown = null;

  const countdown = startCountdown($("countdown"), {
    clock: serverClock,
    idleText: "–:––",
    onCall30: () => {
      $("call").textContent = T.call30;
      if (navigator.vibrate) navigator.vibrate(200);
    },
    onEnd: () => {
      $("call").textContent = T.time_up;
      updateForm();
    },
  });

  if (!me) {
    $("need-join").hidden = false;
    form.hidden = true;
  }

  // -- the slip form
  const picker = makePickable(table, {
    onPick(ref) {
      refInput.value = formatRef(ref.row, ref.col, ref.horizontal, labelling);
      showDirection(ref);
      refInput.setCustomValidity("");
      formChanged();
    },
  });

  function showDirection(ref) {
    const down = ref && !ref.horizontal;
    dirButton.setAttribute("aria-pressed", down ? "true" : "false");
    dirButton.textContent = down ? `${capital(T.down)} ↓` : `${capital(T.across)} →`;
  }

  function capital(s) {
    return s ? s[0].toUpperCase() + s.slice(1) : s;
  }

  refInput.addEventListener("input", () => {
    const ref = parseRef(refInput.value, labelling);
    picker.set(ref);
    showDirection(ref);
    formChanged();
  });
  refInput.addEventListener("blur", () => {
    const ref = parseRef(refInput.value, labelling);
    if (ref) refInput.value = formatRef(ref.row, ref.col, ref.horizontal, labelling);
  });
  dirButton.addEventListener("click", () => {
    const ref = parseRef(refInput.value, labelling);
    if (!ref) {
      slipStatus.textContent = T.need_ref;
      slipStatus.className = "slip-status status-warn";
      refInput.focus();
      return;
    }
    const flipped = { ...ref, horizontal: !ref.horizontal };
    refInput.value = formatRef(flipped.row, flipped.col, flipped.horizontal, labelling);
    picker.set(flipped);
    showDirection(flipped);
    formChanged();
  });

  wordInput.addEventListener("input", () => {
    const clean = wordInput.value.replace(/[^A-Za-z]/g, "").toUpperCase();
    if (clean !== wordInput.value) wordInput.value = clean;
    for (const i of [...blanks]) if (i >= clean.length) blanks.delete(i);
    renderBlankToggles();
    formChanged();
  });
  scoreInput.addEventListener("input", formChanged);

  function renderBlankToggles() {
    const box = $("blank-toggles");
    box.textContent = "";
    Array.from(wordInput.value).forEach((ch, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "blank-toggle" + (blanks.has(i) ? " on" : "");
      b.textContent = ch;
      b.setAttribute("aria-pressed", blanks.has(i) ? "true" : "false");
      b.setAttribute("aria-label", `${ch} ${i + 1}: ${T.blank}`);
      b.addEventListener("click", () => {
        if (blanks.has(i)) blanks.delete(i);
        else blanks.add(i);
        renderBlankToggles();
        formChanged();
        box.children[i].focus();
      });
      box.appendChild(b);
    });
    $("blank-field").hidden = wordInput.value.length === 0;
  }

  function slipWord() {
    return Array.from(wordInput.value)
      .map((ch, i) => (blanks.has(i) ? ch.toLowerCase() : ch.toUpperCase()))
      .join("");
  }

  function currentSlip() {
    const ref = parseRef(refInput.value, labelling);
    const scoreText = scoreInput.value.trim();
    return {
      word: slipWord(),
      ref: ref ? formatRef(ref.row, ref.col, ref.horizontal, labelling) : refInput.value.trim().toUpperCase(),
      score: scoreText === "" ? null : parseInt(scoreText, 10),
    };
  }

  function sameSlip(a, b) {
    return a && b && a.word === b.word && (a.ref || "") === (b.ref || "") && (a.score ?? null) === (b.score ?? null);
  }

  function formChanged() {
    submitButton.textContent = accepted && !sameSlip(currentSlip(), accepted) ? T.replace : T.submit;
  }

  function roundOpen() {
    if (info.round_status !== "open" || !info.deadline) return false;
    return Date.parse(info.deadline) > serverClock.now();
  }

  function updateForm() {
    const open = roundOpen();
    for (const el of form.querySelectorAll("input, button")) el.disabled = !open || !me;
    if (!open && info.round_status === "closed" && !sending) {
      if (!accepted) {
        slipStatus.textContent = T.closed_form;
        slipStatus.className = "slip-status";
      }
    }
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!roundOpen()) return updateForm();
    const slip = currentSlip();
    if (!slip.word) {
      slipStatus.textContent = T.need_word;
      slipStatus.className = "slip-status status-warn";
      wordInput.focus();
      return;
    }
    if (slip.ref && !parseRef(slip.ref, labelling)) {
      slipStatus.textContent = T.bad_ref;
      slipStatus.className = "slip-status status-warn";
      refInput.focus();
      return;
    }
    if (accepted && sameSlip(slip, accepted)) return;
    send({ ...slip, round: info.round, key: newKey(), seq: nextSeq() });
  });

  // The order in which this device made its slips, sent as `seq`: a slip whose request arrives late (held
  // up on the venue's Wi-Fi) never replaces one made after it. The server's time in milliseconds, so that
  // another device of the same player compares too; never below a slip made earlier on this device (a clock
  // corrected backwards) nor the slip the server holds (made before this one, wherever it came from).
  function nextSeq() {
    const last = Number(localStorage.getItem(seqKey(gameId))) || 0;
    const held = accepted && Number.isFinite(accepted.seq) ? accepted.seq : 0;
    const seq = Math.min(Math.max(Math.round(serverClock.now()), last + 1, held + 1), Number.MAX_SAFE_INTEGER);
    localStorage.setItem(seqKey(gameId), String(seq));
    return seq;
  }

  // -- sending, with retries under the same key: the server keeps one slip per key.
  let retryTimer = null;
  async function send(slip) {
    sending = slip;
    localStorage.setItem(pendingKey(gameId), JSON.stringify(slip));
    clearTimeout(retryTimer);
    slipStatus.textContent = T.sending;
    slipStatus.className = "slip-status";
    let attempt = 0;
    const tryOnce = async () => {
      if (sending !== slip) return;
      attempt += 1;
      let res;
      let body = null;
      try {
        res = await fetch(`/api/games/${gameId}/rounds/${slip.round}/slips`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json",
            Authorization: `Bearer ${me.token}`,
          },
          // A retry sends the same key and seq: it is the same slip.
          body: JSON.stringify({ word: slip.word, ref: slip.ref, score: slip.score, key: slip.key, seq: slip.seq }),
        });
        body = await res.json().catch(() => null);
      } catch (err) {
        res = null;
      }
      if (sending !== slip) return;
      if (res && (res.status === 200 || res.status === 201)) {
        sending = null;
        localStorage.removeItem(pendingKey(gameId));
        accepted = { ...slip, ...(body || {}), score: body && "score" in body ? body.score : slip.score };
        if (body && body.claimed !== undefined && !("score" in body)) accepted.score = body.claimed;
        showReceipt();
        slipStatus.textContent = T.accepted;
        slipStatus.className = "slip-status status-ok";
        formChanged();
        return;
      }
      if (res && res.status === 409 && body && body.error && body.error.code === "round_closed") {
        sending = null;
        localStorage.removeItem(pendingKey(gameId));
        slipStatus.textContent = T.refused_closed;
        slipStatus.className = "slip-status status-bad";
        return;
      }
      if (res && res.status === 409 && body && body.error && body.error.code === "stale_slip") {
        // A slip made after this one is already held (sent from this phone earlier, or from another device):
        // it still counts, and the receipt shows it.
        sending = null;
        localStorage.removeItem(pendingKey(gameId));
        const held = body.error.fields && body.error.fields.slip;
        if (held) {
          accepted = { ...held, score: held.score ?? null };
          showReceipt();
        }
        slipStatus.textContent = T.refused_stale;
        slipStatus.className = "slip-status status-bad";
        formChanged();
        return;
      }
      if (res && res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
        sending = null;
        localStorage.removeItem(pendingKey(gameId));
        slipStatus.textContent = fmt(T.refused, { message: errorMessage(body, res.statusText) });
        slipStatus.className = "slip-status status-bad";
        return;
      }
      // No answer, a server error or "too many requests": the slip may or may not have arrived.
      // Sending it again under the same key cannot make a second slip.
      slipStatus.textContent = T.retrying;
      slipStatus.className = "slip-status status-warn";
      retryTimer = setTimeout(tryOnce, Math.min(4000, 500 * 2 ** Math.min(attempt, 3)));
    };
    await tryOnce();
  }

  window.addEventListener("online", () => {
    if (sending) send(sending);
  });

  function showReceipt() {
    if (!accepted) {
      $("receipt").hidden = true;
      return;
    }
    const when = accepted.received_at ? new Date(Date.parse(accepted.received_at)).toLocaleTimeString() : "";
    const score = accepted.score === null || accepted.score === undefined ? T.no_score : fmt(T.points, { n: accepted.score });
    const text = $("receipt-text");
    text.textContent = "";
    const line = document.createElement("strong");
    line.innerHTML = "";
    line.append(wordNode(accepted.word), ` · ${accepted.ref || "—"} · ${score}`);
    text.append(line);
    if (when) text.append(document.createElement("br"), fmt(T.received_at, { time: when }));
    $("receipt").hidden = false;
  }

  function wordNode(word) {
    return wordElement(word, { blankLabel: T.blank });
  }

  function fillForm(slip) {
    wordInput.value = (slip.word || "").toUpperCase();
    blanks.clear();
    Array.from(slip.word || "").forEach((ch, i) => {
      if (ch !== ch.toUpperCase()) blanks.add(i);
    });
    renderBlankToggles();
    refInput.value = slip.ref || "";
    const ref = parseRef(refInput.value, labelling);
    picker.set(ref);
    showDirection(ref);
    scoreInput.value = slip.score ?? slip.claimed ?? "";
  }

  function resetForm() {
    accepted = null;
    fillForm({ word: "", ref: "", score: null });
    slipStatus.textContent = "";
    $("receipt").hidden = true;
    formChanged();
  }

  async function api(path) {
    const res = await fetch(path, {
      headers: { Accept: "application/json", Authorization: `Bearer ${me.token}` },
      cache: "no-store",
    });
    if (res.status === 401) {
      $("need-join").hidden = false;
      throw new Error("not joined");
    }
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return res.json();
  }

  // Who this phone is, and what the server already holds for the round (after a reload, or another tab).
  async function loadMe() {
    if (!me) return;
    try {
      const body = await api(`/api/games/${gameId}/me`);
      me.player = body.id;
      me.name = body.name;
      localStorage.setItem(storeKey(gameId), JSON.stringify(me));
      if (tournamentId) localStorage.setItem(tournamentKey(tournamentId), JSON.stringify({ token: me.token, name: me.name }));
      $("who").textContent = body.table ? `${body.name} · ${fmt(T.table, { n: body.table })}` : body.name;
      const held = body.slip;
      if (held && body.round === info.round && info.round_status === "open" && !sending) {
        accepted = {
          word: held.word, ref: held.ref, score: held.score ?? null, received_at: held.received_at, seq: held.seq,
        };
        fillForm(accepted);
        showReceipt();
        slipStatus.textContent = T.accepted;
        slipStatus.className = "slip-status status-ok";
        formChanged();
      }
    } catch (err) {
      // Offline or not joined: said elsewhere.
    }
  }

  // -- after the close: top, master, my result, the standings.
  function showPlay(el, play) {
    el.textContent = "";
    if (!play) {
      el.textContent = T.no_play;
      return;
    }
    el.append(wordNode(play.word), ` ${play.ref} · ${fmt(T.points, { n: play.score })}`);
  }

  // After a close a thousand phones ask at once: spread them over a second and a half, and ask only for
  // this player's own line (the top, the master and the top of the standings come with the live state).
  let mineTimer = null;
  let lastMine = null;
  function loadMine(delay) {
    clearTimeout(mineTimer);
    mineTimer = setTimeout(async () => {
      if (!me) return;
      try {
        const res = await fetch(`/games/${gameId}/mine`, {
          headers: { Accept: "application/json", Authorization: `Bearer ${me.token}` },
          cache: "no-store",
        });
        if (res.status === 401) {
          $("need-join").hidden = false;
          return;
        }
        if (!res.ok) return;
        lastMine = await res.json();
        showResults(info.last, lastMine.result);
        showStandings(info.standings || [], lastMine.standing);
      } catch (err) {
        // Offline: the next change asks again.
      }
    }, delay);
  }

  function showResults(last, mine) {
    if (!last) return;
    resultsShown = last.number;
    $("results-title").textContent = fmt(T.round_n, { n: last.number });
    const count = (last.tops || []).length;
    $("result-top").textContent = last.top_score === null || last.top_score === undefined ? T.no_play
      : count > 1 ? fmt(T.tied, { n: last.top_score, count }) : fmt(T.top_score, { n: last.top_score });
    showPlay($("result-master"), last.master);
    const box = $("result-mine");
    box.textContent = "";
    if (mine && mine.round === last.number) {
      const outcome = config.outcomes[mine.outcome] || mine.outcome;
      const reason = config.reasons[mine.reason] || mine.message || mine.reason;
      const head = document.createElement("strong");
      head.textContent = `${fmt(T.paid, { n: mine.paid })} — ${outcome}`;
      head.className = mine.outcome === "ok" ? "status-ok" : mine.outcome === "warning" ? "status-warn" : "status-bad";
      box.append(head, document.createElement("br"));
      if (mine.word) {
        const claimed = mine.claimed === null || mine.claimed === undefined ? T.no_score : fmt(T.claimed, { n: mine.claimed });
        box.append(wordNode(mine.word), ` ${mine.ref || ""} · ${claimed}`, document.createElement("br"));
      }
      const why = document.createElement("span");
      why.className = "reason";
      why.dataset.reason = mine.reason;
      why.textContent = reason;
      box.append(why);
    }
    $("results").hidden = info.round_status === "drawn" || info.round_status === "open";
  }

  function showStandings(rows, mine) {
    const body = $("standings-body");
    body.textContent = "";
    const shown = rows.slice();
    if (mine && !shown.some((row) => row.player === mine.player)) shown.push(mine);
    for (const row of shown) {
      const tr = document.createElement("tr");
      if (me && row.player === me.player) tr.className = "me";
      const cells = [row.rank, row.name, row.total, row.diff ? `-${Math.abs(row.diff)}` : "0"];
      cells.forEach((value, i) => {
        const td = document.createElement("td");
        td.textContent = value;
        if (i !== 1) td.className = "num";
        tr.appendChild(td);
      });
      body.appendChild(tr);
    }
    $("standings").hidden = shown.length === 0;
  }

  // -- following the game
  let shownRound = info.round ?? null;
  function onChange(next) {
    const newRound = next.round !== shownRound;
    info = next;
    const game = next.game || {};
    fillBoard(table, game.board, { blankLabel: `(${T.blank})` });
    if (next.round_status === "drawn" || next.round_status === "open") {
      renderRack($("rack"), game.rack || "", { kept: game.kept || "", values: config.values, blankLabel: T.blank, keptLabel: T.kept });
    } else {
      $("rack").textContent = "";
    }
    document.querySelector(".rack-box").hidden = !(next.round_status === "drawn" || next.round_status === "open");
    // Rejected draws are announced with the rack (e.g. -AEIOUU+), never silently dropped.
    $("rejected").textContent = (game.rejected || []).join("  ");
    $("round-label").textContent = next.round ? fmt(T.round_n, { n: next.round }) : "";
    const phase = next.status === "over" ? T.over : T[next.round_status] || T.waiting;
    $("phase").textContent = phase;
    countdown.setDeadline(next.round_status === "open" ? next.deadline : null, idleTime(next));
    if (newRound) {
      shownRound = next.round;
      if (!sending || sending.round !== next.round) resetForm();
    }
    updateForm();
    // During a round the slip comes first; once it is closed, the results of the last round.
    const inPlay = next.round_status === "drawn" || next.round_status === "open";
    if (resultsShown) $("results").hidden = inPlay;
    if (!inPlay) picker.set(null);
    // The top, the master and the standings change only with a close, a new master or a correction.
    showResults(next.last, lastMine && lastMine.result);
    showStandings(next.standings || [], lastMine && lastMine.standing);
    const scores = JSON.stringify([next.last, next.standings]);
    if (next.last && me && scores !== lastScores) loadMine(lastScores === null ? 0 : Math.random() * 1500);
    lastScores = scores;
  }
  let lastScores = null;

  function start() {
    onChange(info);
    if (me) {
      const pending = loadStore(pendingKey(gameId));
      if (pending && pending.round === info.round && info.round_status === "open") {
        fillForm(pending);
        send(pending);
      } else {
        localStorage.removeItem(pendingKey(gameId));
      }
      loadMe();
    }
    subscribe(gameId, onChange, {
      onStatus: (s) => {
        $("conn").textContent = T[s] || s;
        $("conn").dataset.state = s;
      },
    });
  }
  renderBlankToggles();
  start();
}

if ($("join-form")) setupJoin();
if ($("slip-form")) setupPlay();
