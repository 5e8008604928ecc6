// The slip form: its fields (reference typed or picked on the board, word with its blanks, score: the
// shared slip-fields.js), the status line under it and the receipt of the slip the server holds.
//
// createSlipForm({T, gameId, labelling, player, live, clock}) -> {follow, update, fill, hold, send, pending}
// live(): the game's current state. The slips made go to the sender (sending.js), whose reports come back
// to the status line and the receipt.
import { wordElement } from "../board.js";
import { $, fmt, newKey, say } from "../common.js";
import { parseRef } from "../notation.js";
import { createSlipFields } from "../slip-fields.js";
import { createSender } from "./sending.js";
import { lastSeq } from "./store.js";

function sameSlip(a, b) {
  return a && b && a.word === b.word && (a.ref || "") === (b.ref || "") && (a.score ?? null) === (b.score ?? null);
}

export function createSlipForm({ T, gameId, labelling, keys = [], keysLabel = "", player, live, clock, onTopping = null, onLate = null }) {
  const form = $("slip-form");
  const submitButton = $("slip-submit");
  const slipStatus = $("slip-status");
  let accepted = null; // the slip the server holds for the current round (what it answered)
  let shownRound = live().round ?? null;

  // The one place the status line changes: kind "ok", "warn", "bad", or none.
  function status(text, kind = "") {
    say(slipStatus, text, kind ? `slip-status status-${kind}` : "slip-status");
  }

  const fields = createSlipFields({
    T,
    labelling,
    keys,
    keysLabel,
    onChange: formChanged,
    onNeedRef: () => status(T.need_ref, "warn"),
  });
  const currentSlip = fields.slip;

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
      fields.word.focus();
      return;
    }
    if (slip.ref && !parseRef(slip.ref, labelling)) {
      status(T.bad_ref, "warn");
      fields.ref.focus();
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
  const fill = fields.fill;

  function reset() {
    accepted = null;
    $("late-note").hidden = true;
    fields.clear();
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
      if (held.topping) {
        // Topping: each slip is a try judged at once; the answer says found (and when), never the top.
        status(held.topping.found ? fmt(T.topping_found, { n: held.topping.found_after }) : T.topping_missed,
          held.topping.found ? "ok" : "warn");
        if (onTopping) onTopping(held.round, held.topping);
      }
      formChanged();
      showReceiptNow();
    },
    // Too late on arrival. Sent before the end by the server's own reckoning: the network or the server held it
    // up, which the arbitrator may judge (the console shows when it was sent).
    closed(fields = {}) {
      // The slip is on record as late: the player's result of a round already closed now reads late, which
      // changes no line the live state carries (the top, the master, the head of the standings).
      if (onLate) onLate();
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
    // The blank toggles only for a rack that holds a blank.
    const inPlay = info.round_status === "drawn" || info.round_status === "open";
    fields.setRack(inPlay && info.game ? info.game.rack : "");
    if (info.round !== shownRound) {
      shownRound = info.round;
      const sending = sender.pending();
      if (!sending || sending.round !== info.round) reset();
    }
    update();
    if (!inPlay) fields.unpick();
  }

  return { follow, update, fill, hold, send: sender.send, pending: sender.pending };
}
