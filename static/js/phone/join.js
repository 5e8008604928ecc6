// The join page: the game's code and the player's name; the token the server answers is kept on the
// device and the phone goes to the game.
import { $, errorMessage, fmt, readJson, say } from "../common.js";
import { keepJoined } from "./store.js";

export function setupJoin(form) {
  const text = readJson("join-text") || {};
  const statusEl = $("join-status");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const code = $("join-code").value.trim().toUpperCase();
    const name = $("join-name").value.trim();
    if (!code || !name) {
      say(statusEl, text.missing, "error");
      return;
    }
    // A table number is optional: left empty, the server gives the next free table.
    const tableField = $("join-table");
    const tableText = tableField ? tableField.value.trim() : "";
    const table = tableText ? Number(tableText) : null;
    if (tableText && !(Number.isInteger(table) && table >= 1 && table <= text.table_max)) {
      say(statusEl, fmt(text.bad_table, { max: text.table_max }), "error");
      tableField.focus();
      return;
    }
    say(statusEl, text.joining);
    try {
      const res = await fetch("/api/join", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        // The player keeps the language of this page (their phone's): the server stores it and leaves the
        // phone its language cookie, so the game's pages speak it too.
        body: JSON.stringify({
          join_code: code,
          name,
          ...(table === null ? {} : { table }),
          ...(text.language ? { language: text.language } : {}),
        }),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok) {
        if (body && body.error && body.error.code === "table_taken") {
          say(statusEl, fmt(text.table_taken, { table }), "error");
          if (tableField) tableField.focus();
          return;
        }
        say(statusEl, fmt(text.failed, { message: errorMessage(body, res.statusText) }), "error");
        return;
      }
      keepJoined({ game: body.game, tournament: body.tournament, token: body.token, id: body.id, name });
      window.location.assign(`/games/${body.game}/play`);
    } catch {
      say(statusEl, text.offline, "error");
    }
  });
}
