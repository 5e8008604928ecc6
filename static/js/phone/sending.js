// Sending a slip, with retries under the same key: the server keeps one slip per key, so a slip sent
// again after a lost answer is never a second slip. The slip on its way is kept on the device until the
// server answers.
//
// createSender(gameId, player, report) -> {send(slip), pending()}; slip: {round, word, ref, score, key, seq,
// sent_ms} (sent_ms: when the player handed it in, on the server's clock; a retry keeps it).
// report.sending(): on its way; report.accepted(held): the slip the server now holds; report.closed(fields):
// too late (fields: the refusal's, sent_before when the server knows the slip left before the end); report.stale(held): a slip made after it is already held (held may be null); report.refused(message);
// report.retrying(): no answer, a server error or too many requests, sent again soon.
import { errorMessage } from "../common.js";
import { pending as stored, playerHeaders } from "./store.js";

export function createSender(gameId, player, report) {
  let sending = null; // the slip being sent
  let retryTimer = null;

  function done() {
    sending = null;
    stored.drop(gameId);
  }

  async function send(slip) {
    sending = slip;
    stored.keep(gameId, slip);
    clearTimeout(retryTimer);
    report.sending();
    let attempt = 0;
    const tryOnce = async () => {
      if (sending !== slip) return;
      attempt += 1;
      let res;
      let body = null;
      try {
        res = await fetch(`/api/games/${gameId}/rounds/${slip.round}/slips`, {
          method: "POST",
          headers: playerHeaders(player, { "Content-Type": "application/json" }),
          // A retry sends the same key and seq: it is the same slip.
          body: JSON.stringify({
            word: slip.word, ref: slip.ref, score: slip.score, key: slip.key, seq: slip.seq, sent_ms: slip.sent_ms,
          }),
        });
        body = await res.json().catch(() => null);
      } catch {
        res = null;
      }
      if (sending !== slip) return;
      const code = res && res.status === 409 && body && body.error ? body.error.code : null;
      if (res && (res.status === 200 || res.status === 201)) {
        done();
        const held = { ...slip, ...(body || {}), score: body && "score" in body ? body.score : slip.score };
        if (body && body.claimed !== undefined && !("score" in body)) held.score = body.claimed;
        report.accepted(held);
      } else if (code === "round_closed") {
        done();
        report.closed(body.error.fields || {});
      } else if (code === "stale_slip") {
        // A slip made after this one is already held (sent from this phone earlier, or from another
        // device): it still counts.
        done();
        const held = body.error.fields && body.error.fields.slip;
        report.stale(held ? { ...held, score: held.score ?? null } : null);
      } else if (res && res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
        done();
        report.refused(errorMessage(body, res.statusText));
      } else {
        // No answer, a server error or "too many requests": the slip may or may not have arrived.
        // Sending it again under the same key cannot make a second slip.
        report.retrying();
        retryTimer = setTimeout(tryOnce, Math.min(4000, 500 * 2 ** Math.min(attempt, 3)));
      }
    };
    await tryOnce();
  }

  window.addEventListener("online", () => {
    if (sending) send(sending);
  });

  return {
    send,
    // The slip on its way, or null.
    pending: () => sending,
  };
}
