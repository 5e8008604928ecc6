// The slip form: reference (typed, or picked on the board), word with its blanks, score; the status line
// under it and the receipt of the slip the server holds.
//
// createSlipForm({T, gameId, labelling, player, live, clock}) -> {follow, update, fill, hold, send, pending}
// live(): the game's current state. The slips made go to the sender (sending.js), whose reports come back
// to the status line and the receipt.
import { makePickable, wordElement } from "../board.js";
import { $, fmt, newKey, say } from "../common.js";
import { formatRef, parseRef } from "../notation.js";
import { createSender } from "./sending.js";
import { lastSeq } from "./store.js";

function capital(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

function sameSlip(a, b) {
  return a && b && a.word === b.word && (a.ref || "") === (b.ref || "") && (a.score ?? null) === (b.score ?? null);
}

export function createSlipForm({ T, gameId, labelling, player, live, clock }) {
  const form = $("slip-form");
  const refInput = $("slip-ref");
  const dirButton = $("slip-dir");
  const wordInput = $("slip-word");
  const scoreInput = $("slip-score");
  const submitButton = $("slip-submit");
  const slipStatus = $("slip-status");
  const blanks = new Set();
  let accepted = null; // the slip the server holds for the current round (what it answered)
  let shownRound = live().round ?? null;

  // The one place the status line changes: kind "ok", "warn", "bad", or none.
  function status(text, kind = "") {
    say(slipStatus, text, kind ? `slip-status status-${kind}` : "slip-status");
  }

  const picker = makePickable($("board"), {
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
      status(T.need_ref, "warn");
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

  function formChanged() {
    submitButton.textContent = accepted && !sameSlip(currentSlip(), accepted) ? T.replace : T.submit;
  }

  function roundOpen() {
    const info = live();
    if (info.round_status !== "open" || !info.deadline || info.paused) return false; // paused: slips wait
    return Date.parse(info.deadline) > clock.now();
  }

  // Open to input while the round is open (on the server's clock) and the device has a player.
  function update() {
    const open = roundOpen();
    for (const el of form.querySelectorAll("input, button")) el.disabled = !open || !player;
    if (!open && live().round_status === "closed" && !sender.pending() && !accepted) {
      status(T.closed_form);
    }
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!roundOpen()) return update();
    const slip = currentSlip();
    if (!slip.word) {
      status(T.need_word, "warn");
      wordInput.focus();
      return;
    }
    if (slip.ref && !parseRef(slip.ref, labelling)) {
      status(T.bad_ref, "warn");
      refInput.focus();
      return;
    }
    if (accepted && sameSlip(slip, accepted)) return;
    sender.send({ ...slip, round: live().round, key: newKey(), seq: nextSeq(), sent_ms: Math.round(clock.now()) });
  });

  // The order in which this device made its slips, sent as `seq`: a slip whose request arrives late (held
  // up on the venue's Wi-Fi) never replaces one made after it. The server's time in milliseconds, so that
  // another device of the same player compares too; never below a slip made earlier on this device (a clock
  // corrected backwards) nor the slip the server holds (made before this one, wherever it came from).
  function nextSeq() {
    const last = lastSeq.load(gameId);
    const held = accepted && Number.isFinite(accepted.seq) ? accepted.seq : 0;
    const seq = Math.min(Math.max(Math.round(clock.now()), last + 1, held + 1), Number.MAX_SAFE_INTEGER);
    lastSeq.keep(gameId, seq);
    return seq;
  }

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
    line.append(wordElement(accepted.word, { blankLabel: T.blank }), ` · ${accepted.ref || "—"} · ${score}`);
    text.append(line);
    if (when) text.append(document.createElement("br"), fmt(T.received_at, { time: when }));
    const sealed = $("receipt-sealed");
    sealed.hidden = !accepted.receipt;
    if (accepted.receipt) {
      // The server's seal: a short code to read out, and the whole receipt to show an arbitrator.
      const sig = accepted.receipt.seal.sig;
      text.append(document.createElement("br"), fmt(T.sealed, { code: `${sig.slice(0, 4)}-${sig.slice(4, 8)}` }));
      $("receipt-json").value = JSON.stringify(accepted.receipt);
    }
    $("receipt").hidden = false;
  }

  // The slip just handed in: the on-screen keyboard put away and the receipt brought into view (it is
  // below the form, under the fold of a small phone).
  function showReceiptNow() {
    if (form.contains(document.activeElement)) document.activeElement.blur();
    $("receipt").scrollIntoView({ block: "nearest" });
  }

  // Put a slip in the fields (one being sent again after a reload, the one the server holds).
  function fill(slip) {
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

  function reset() {
    accepted = null;
    $("late-note").hidden = true;
    fill({ word: "", ref: "", score: null });
    status("");
    $("receipt").hidden = true;
    formChanged();
  }

  // The slip the server holds for this round: in the fields and on the receipt.
  function hold(slip) {
    accepted = slip;
    fill(accepted);
    showReceipt();
    status(T.accepted, "ok");
    formChanged();
  }

  // What the sender reports, on the status line and the receipt.
  const report = {
    sending: () => status(T.sending),
    accepted(held) {
      accepted = held;
      showReceipt();
      status(T.accepted, "ok");
      formChanged();
      showReceiptNow();
    },
    // Too late on arrival. Sent before the end by the server's own reckoning: the network or the server held it
    // up, which the arbitrator may judge (the console shows when it was sent).
    closed(fields = {}) {
      const before = Number(fields.sent_before);
      if (!(before > 0)) return status(T.refused_closed, "bad");
      const n = before >= 1 ? Math.round(before) : Math.max(0.1, Math.round(before * 10) / 10);
      const text = fmt(T.refused_late_sent, { n });
      status(text, "bad");
      // Once the round is closed the form gives way to the results: the note above them stays.
      $("late-note").textContent = text;
      $("late-note").hidden = false;
    },
    stale(held) {
      if (held) {
        accepted = held;
        showReceipt();
      }
      status(T.refused_stale, "bad");
      formChanged();
    },
    refused: (message) => status(fmt(T.refused, { message }), "bad"),
    retrying: () => status(T.retrying, "warn"),
  };
  const sender = createSender(gameId, player, report);

  // A new state of the game: a new round clears the form (unless its slip is on its way); outside a round
  // no square is picked.
  function follow(info) {
    // Once the round is closed the form and its receipt give way to the result (results.js): no old slip
    // left greyed out. A new rack brings the form back.
    const closed = info.round_status === "closed" || info.status === "over";
    form.hidden = closed || !player;
    if (closed) $("receipt").hidden = true;
    if (info.round !== shownRound) {
      shownRound = info.round;
      const sending = sender.pending();
      if (!sending || sending.round !== info.round) reset();
    }
    update();
    if (!(info.round_status === "drawn" || info.round_status === "open")) picker.set(null);
  }

  renderBlankToggles();
  return { follow, update, fill, hold, send: sender.send, pending: sender.pending };
}
