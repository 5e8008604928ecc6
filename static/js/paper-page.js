// The paper-slip page's list and checks: every slip typed in this round, newest first, with its verdict
// (recorded; once the round is closed, paid, outcome and reason), refreshed in place from the server; and,
// while typing, a flag on a table where nobody sits or a word the rack cannot make, the focus left where
// it is. The server judges every entry all the same.
import { setTileLabels, wordElement } from "./board.js";
import { fmt } from "./common.js";
import { lettersNotInRack, markedWord } from "./paper.js";

function td(tr, value, cls) {
  const cell = document.createElement("td");
  if (value instanceof Node) cell.appendChild(value);
  else cell.textContent = value ?? "";
  if (cls) cell.className = cls;
  tr.appendChild(cell);
  return cell;
}

// Keys for a tile set's tiles of several letters and Ñ/Ç (state.keys), under the word: each types its label
// where the cursor is, as the arbitrator reads it off the paper slip.
function tileKeys(input, keys, label) {
  if (!input || !Array.isArray(keys) || !keys.length) return;
  const row = document.createElement("div");
  row.className = "tile-keys";
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", label || "");
  for (const key of keys) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "tile-key";
    button.dataset.label = key;
    button.textContent = key;
    button.tabIndex = -1; // Tab still goes table, word, reference, score
    button.addEventListener("click", () => {
      const at = input.selectionStart ?? input.value.length;
      const end = input.selectionEnd ?? at;
      input.value = input.value.slice(0, at) + key + input.value.slice(end);
      input.setSelectionRange(at + key.length, at + key.length);
      input.dispatchEvent(new Event("input", { bubbles: true }));
      input.focus();
    });
    row.appendChild(button);
  }
  input.insertAdjacentElement("afterend", row);
}

export function entriesTable({ form, fields, texts, logBody, state }) {
  let current = state;
  setTileLabels(state.labels);
  tileKeys(fields.word, state.keys, state.keys_label);
  const flagsEl = document.getElementById("slip-flags");
  const gameMatch = form.action.match(/games\/(\d+)\//);
  const enteredUrl = gameMatch ? `/console/games/${gameMatch[1]}/slips/entered/` : "";

  function verdict(entry) {
    if (entry.paid !== null && entry.paid !== undefined) {
      return { text: entry.outcome_text, cls: `outcome-${entry.outcome}` };
    }
    if (!entry.current) return { text: texts.replaced_later, cls: "muted" };
    if (entry.several) return { text: texts.second, cls: "outcome-zero" };
    return { text: texts.recorded, cls: "outcome-ok" };
  }

  // A row of the list from the server's entry (the page's own row once its answer came).
  let listsAsked = 0; // lists asked of the server so far (refresh)

  function fill(tr, entry, recordedText) {
    if (!entry) return;
    tr.textContent = "";
    tr.dataset.state = "recorded";
    tr.dataset.slip = String(entry.slip);
    // The page's own row, from its answer: a list asked before now may not hold it yet (showRows).
    if (recordedText !== undefined) tr.dataset.after = String(listsAsked);
    else delete tr.dataset.after;
    // A list fetched while this entry was on its way may hold it already: one row per slip.
    logBody.querySelectorAll(`tr[data-slip="${entry.slip}"]`).forEach((other) => {
      if (other !== tr) other.remove();
    });
    td(tr, entry.table, "num");
    td(tr, entry.name, "entry-name");
    td(tr, wordElement(entry.word, { blankLabel: texts.blank }), "word entry-word");
    td(tr, entry.ref || "", "entry-ref");
    td(tr, entry.claimed, "num entry-claimed");
    td(tr, entry.paid, "num entry-paid");
    const shown = verdict(entry);
    const text = recordedText && shown.cls === "outcome-ok" && entry.paid === null ? recordedText : shown.text;
    const state = td(tr, "", `entry-state ${shown.cls}`);
    if (entry.paid !== null && entry.paid !== undefined) {
      // The outcome, then why (nothing more to say of a slip paid as written).
      const outcome = document.createElement("strong");
      outcome.textContent = entry.outcome_text;
      state.appendChild(outcome);
      if (entry.reason !== "ok") {
        const why = document.createElement("span");
        why.className = "entry-reason";
        why.dataset.reason = entry.reason;
        why.textContent = entry.reason_text;
        state.append(" — ", why);
      }
    } else {
      state.textContent = text;
    }
  }

  // `asked`: the number of the list request these rows answer. A row the page recorded after that request
  // left, and which the list does not hold, stays: the list was read before its slip was (one slip would
  // otherwise vanish until the next list).
  function showRows(rows, asked = 0) {
    // The page's own rows not recorded (on their way, refused) stay on top; the server's list follows.
    const listed = new Set((rows || []).map((entry) => String(entry.slip)));
    logBody.querySelectorAll("tr[data-state=recorded]").forEach((tr) => {
      const newer = tr.dataset.after !== undefined && Number(tr.dataset.after) >= asked;
      if (!newer || listed.has(tr.dataset.slip)) tr.remove();
    });
    for (const entry of rows || []) {
      const tr = document.createElement("tr");
      fill(tr, entry);
      logBody.appendChild(tr);
    }
  }

  function showRound() {
    const closed = current.status === "closed";
    const pill = document.getElementById("slips-round-status");
    if (pill && current.status_text) {
      pill.textContent = current.status_text;
      pill.className = `pill pill-${current.status}`;
    }
    const clock = document.getElementById("slips-clock");
    if (clock && closed) clock.hidden = true;
    const note = document.getElementById("after-close-note");
    if (note) note.hidden = !closed;
    const late = document.getElementById("late-paper");
    if (late) late.hidden = !closed;
    const card = document.getElementById("slips-complete-card");
    if (card) card.hidden = !closed;
    const provisional = document.getElementById("slips-provisional");
    if (provisional) provisional.hidden = Boolean(current.slips_complete);
    const final = document.getElementById("slips-final");
    if (final) final.hidden = !current.slips_complete;
  }

  function mark(field, bad) {
    field.classList.toggle("is-flagged", bad);
    if (bad) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
  }

  // The flags for what is typed now; the focus is never moved.
  function check() {
    const flags = [];
    const table = fields.table.value.trim();
    const tables = current.tables || {};
    let badTable = false;
    if (table && !(table in tables)) {
      flags.push(fmt(texts.no_table, { table }));
      badTable = true;
    } else if (table && tables[table].includes(" / ")) {
      flags.push(fmt(texts.shared_table, { table }));
      badTable = true;
    }
    let badWord = false;
    const typed = fields.word.value.trim();
    if (typed) {
      const read = markedWord(typed);
      if (read.error) {
        flags.push(texts.bad_mark);
        badWord = true;
      } else if (!current.labels) {
        // A set with tiles of several letters (CH is one tile, C and H never make it): the server's
        // judging reads the word; this letter count would flag PERRO against an RR tile.
        const missing = lettersNotInRack(read.word, current.rack, current.board, fields.ref.value, current.labelling);
        if (missing.length) {
          flags.push(fmt(texts.not_in_rack, { rack: current.rack || "", letters: missing.join(" ") }));
          badWord = true;
        }
      }
    }
    mark(fields.table, badTable);
    mark(fields.word, badWord);
    if (flagsEl) {
      flagsEl.textContent = flags.join(" · ");
      flagsEl.hidden = flags.length === 0;
      // Who sits at the table typed, when nobody is flagged there: the arbitrator sees the name at once.
      if (!badTable && table && tables[table] && !flags.length) {
        flagsEl.textContent = `${texts.table}${table} ${tables[table]}`;
        flagsEl.hidden = false;
      }
      flagsEl.classList.toggle("is-error", flags.length > 0);
    }
  }

  let refreshing = null;
  let again = false; // a change came while the list was on its way: ask once more after it
  async function refresh() {
    if (!enteredUrl) return undefined;
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        listsAsked += 1;
        const asked = listsAsked;
        const res = await fetch(enteredUrl, { cache: "no-store", credentials: "same-origin" });
        if (!res.ok) return;
        const body = await res.json();
        if (String(body.round) !== String(current.round)) return; // a new round: the page reloads
        current = body;
        showRows(body.rows, asked);
        showRound();
        check();
      } catch {
        // Offline for a moment: the next change asks again.
      } finally {
        refreshing = null;
      }
      if (again) {
        again = false;
        await refresh();
      }
    })();
    return refreshing;
  }

  for (const name of ["table", "word", "ref"]) fields[name].addEventListener("input", check);
  showRows(current.rows);
  showRound();
  if (flagsEl) flagsEl.hidden = true;
  return { check, fill, refresh };
}
