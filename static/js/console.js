// The arbitrator's console: the game screen follows the game live (live.js), countdowns run on the server's
// time, and paper slips are recorded without leaving the page (focus back on the table field after each).

import { serverClock, startCountdown } from "./clock.js";
import { $, fmt, idleTime, newKey, readJson, typeset } from "./common.js";
import { runningDeadline } from "./incidents.js";
import { stateMark, subscribe } from "./live.js";
import { entriesTable } from "./paper-page.js";
import { typedText } from "./paper.js";

function csrfToken(form) {
  const field = form.querySelector("input[name=csrfmiddlewaretoken]");
  return field ? field.value : "";
}

// Countdowns: every .clock[data-deadline] in `root`.
const countdowns = [];
function startClocks(root) {
  while (countdowns.length) countdowns.pop().stop();
  root.querySelectorAll(".clock[data-deadline]").forEach((el) => {
    // A clock without a deadline (paused) keeps its text until the game tells it one.
    const idleText = el.dataset.deadline ? "" : el.textContent;
    countdowns.push(startCountdown(el, { clock: serverClock, deadline: el.dataset.deadline, idleText }));
  });
}

// Forms that ask before acting (closing a round early, ending the game).
function guardConfirms(root) {
  root.querySelectorAll("form[data-confirm]").forEach((form) => {
    if (form.dataset.guarded) return;
    form.dataset.guarded = "1";
    form.addEventListener("submit", (ev) => {
      if (!window.confirm(form.dataset.confirm)) ev.preventDefault();
    });
  });
}

// A line at the top of the page while the server works without its cache.
function showNotice(text) {
  let notice = $("live-notice");
  if (!text && !notice) return;
  if (!notice) {
    notice = document.createElement("p");
    notice.id = "live-notice";
    notice.className = "notice warn";
    notice.setAttribute("role", "status");
    document.body.prepend(notice);
  }
  notice.textContent = text;
  notice.hidden = !text;
}

// The notice's text, in the page's language: the server gives it with its time (/live?clock=1) while it
// works without its cache.
let degradedText = "";
async function degradedNotice(gameId) {
  if (!degradedText) {
    try {
      const res = await fetch(`/games/${gameId}/live?clock=1`, { cache: "no-store", headers: { Accept: "application/json" } });
      const body = res.ok ? await res.json() : {};
      degradedText = body.notice || "";
    } catch {
      // Offline for a moment: the next change asks again.
    }
  }
  return degradedText;
}

// Follow the game on its live stream, slip counts included (live.js; polling when the stream cannot be
// held): `onChange(info)` runs when the game has changed since the page was drawn (a rack, a start, a slip
// handed in, a close, a master, a correction, the end). One runs at a time; changes that come meanwhile
// make one more run, with the latest state. `drawnMark`: what the page was drawn at ("version/progress
// mark", read by the server before the page's state); the stream's first state runs onChange unless it is
// that one, so that a change between the page and its stream is not missed. Without a mark (the server
// without its cache) the first state is taken as the page's own.
function followGame(gameId, onChange, drawnMark) {
  drawnMark = drawnMark || "";
  let drawn = false;
  let latest = null; // a change not yet run
  let running = false;
  async function run() {
    running = true;
    while (latest) {
      const info = latest;
      latest = null;
      try {
        await onChange(info);
      } catch {
        // Offline for a moment: the next change tries again.
      }
    }
    running = false;
  }
  let shown = null;
  return subscribe(gameId, (info) => {
    shown = info;
    if (!info.degraded) {
      showNotice("");
    } else {
      degradedNotice(gameId).then((text) => {
        if (shown === info) showNotice(text);
      });
    }
    if (!drawn) {
      drawn = true;
      // A mark of the version alone compares the version alone.
      if (!drawnMark || drawnMark === stateMark(info, drawnMark.includes("/"))) return; // the page's own state
    }
    latest = info;
    if (!running) run();
  }, { progress: true });
}

function typingIn(area) {
  const active = document.activeElement;
  return active && area.contains(active) && (active.tagName === "INPUT" || active.tagName === "TEXTAREA");
}

// The game screen: replace the live part with a fresh rendering when the game changes.
function gameScreen(area) {
  let pending = false;
  async function refresh() {
    if (typingIn(area)) {
      pending = true;
      return;
    }
    pending = false;
    const res = await fetch(area.dataset.liveUrl, { cache: "no-store", credentials: "same-origin" });
    if (!res.ok) return;
    const html = await res.text();
    const focusedId = document.activeElement && area.contains(document.activeElement) ? document.activeElement.id : "";
    area.innerHTML = html;
    startClocks(area);
    guardConfirms(area);
    if (focusedId) {
      const again = document.getElementById(focusedId);
      if (again) again.focus();
    }
  }
  area.addEventListener("focusout", () => {
    setTimeout(() => {
      if (pending && !typingIn(area)) refresh();
    }, 0);
  });
  followGame(area.dataset.game, refresh, area.dataset.drawn);
}

// Paper slips: each entry is taken at Enter, the fields are cleared and the table field has the focus at
// once, so the next slip can be typed while this one travels. Entries are sent one after another; a
// refused one comes back into the fields (when they are empty) with the cursor on the field at fault,
// else its row in the log offers to bring it back.
function slipEntry(form) {
  const texts = JSON.parse(document.getElementById("slip-texts").textContent);
  const status = document.getElementById("slip-status");
  const logBody = document.querySelector("#slip-log tbody");
  const names = ["table", "word", "ref", "score"];
  const fields = names.reduce((acc, name) => {
    acc[name] = form.querySelector(`[name=${name}]`);
    return acc;
  }, {});
  const round = form.querySelector("input[name=round]").value;
  let queue = Promise.resolve();
  let pending = 0;
  // The slips typed in this round, with their verdicts, and the checks made while typing (paper-page.js).
  const entries = entriesTable({ form, fields, texts, logBody, state: readJson("paper-state") || {} });

  // The banner: ok (green), "warning" (recorded, but not as typed: a second slip paid 0, an entry
  // cancelled) or an error.
  function say(text, ok) {
    status.textContent = text;
    status.classList.toggle("is-ok", ok === true);
    status.classList.toggle("is-warning", ok === "warning");
    status.classList.toggle("is-error", ok === false);
  }

  // A second, different slip for a table: the arbitrator says which it is with the page's own buttons, or
  // cancels (Esc), and then nothing is recorded. Resolves "replace", "second" or null (cancelled).
  const secondBox = $("second-slip");
  function askSecond(message) {
    if (!secondBox) return Promise.resolve(null);
    const back = document.activeElement;
    $("second-slip-text").textContent = typeset(message);
    secondBox.hidden = false;
    secondBox.focus(); // not a button: a stray Enter records nothing
    return new Promise((resolve) => {
      const buttons = {
        "second-slip-replace": "replace", "second-slip-second": "second", "second-slip-cancel": null,
      };
      const done = (choice) => {
        secondBox.hidden = true;
        document.removeEventListener("keydown", onKey, true);
        for (const id of Object.keys(buttons)) $(id).removeEventListener("click", handlers[id]);
        if (back && back.isConnected && back !== document.body) back.focus();
        else fields.table.focus();
        resolve(choice);
      };
      const onKey = (ev) => {
        if (ev.key !== "Escape") return;
        ev.preventDefault();
        ev.stopPropagation();
        done(null);
      };
      const handlers = {};
      for (const [id, choice] of Object.entries(buttons)) {
        handlers[id] = () => done(choice);
        $(id).addEventListener("click", handlers[id]);
      }
      document.addEventListener("keydown", onKey, true);
    });
  }

  function cell(tr, value, cls) {
    const td = document.createElement("td");
    td.textContent = value;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }

  function showProgress(progress) {
    const count = document.getElementById("progress-count");
    if (count) count.textContent = `${progress.received} / ${progress.players}`;
    const list = document.getElementById("missing-list");
    const label = document.getElementById("missing-label");
    if (label && progress.missing) label.hidden = progress.missing.length === 0;
    if (list && progress.missing) {
      list.replaceChildren(
        ...progress.missing.map((p) => {
          const li = document.createElement("li");
          li.textContent = p.table ? `${texts.table}${p.table} ${p.name}` : p.name;
          return li;
        }),
      );
    }
  }

  function formIsEmpty() {
    return names.every((name) => !fields[name].value.trim());
  }

  function bringBack(entry, badField) {
    for (const name of names) fields[name].value = entry[name];
    entries.check();
    const target = fields[badField] || fields.table;
    target.focus();
    if (target.select) target.select();
  }

  async function send(entry, row) {
    const body = new FormData();
    body.append("round", round);
    body.append("key", entry.key);
    if (entry.choice) body.append("choice", entry.choice);
    for (const name of names) body.append(name, entry[name]);
    let res;
    let answer = null;
    try {
      res = await fetch(form.action, {
        method: "POST",
        body,
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken(form) },
      });
      answer = await res.json();
    } catch {
      res = null;
    }
    pending -= 1;
    form.dataset.pending = String(pending);
    const state = row.querySelector(".entry-state");
    if (res && res.ok) {
      const slip = answer.slip;
      // What was recorded, truthfully: a second slip (paid 0), a typing correction, or a slip.
      const several = Boolean(answer.entry && answer.entry.several);
      let text = answer.created ? texts.recorded : texts.again;
      if (answer.created && several) text = texts.second;
      else if (answer.created && entry.choice === "replace") text = texts.replaced;
      entries.fill(row, answer.entry, text);
      const verdict = answer.entry && answer.entry.paid !== null ? ` → ${fmt(texts.paid, { n: answer.entry.paid })}, ${answer.entry.outcome_text}` : "";
      say(typeset(`${text}: ${texts.table}${answer.player.table} ${answer.player.name} — ${typedText(slip.word)} ${slip.ref || ""} ${slip.claimed ?? ""}${verdict}`), several ? "warning" : true);
      showProgress(answer.progress);
      if (!pending) entries.refresh();
      return;
    }
    if (res && res.status === 409 && answer && answer.error && answer.error.code === "second_slip" && !entry.choice) {
      // Two different paper slips for one table: a typing correction (replaces) or a second slip (paid 0);
      // cancelled, nothing is recorded.
      row.dataset.state = "asking";
      state.textContent = answer.error.message;
      say("", null); // the banner told of the entry before: this one is not recorded yet
      form.dataset.asking = "1";
      const choice = await askSecond(answer.error.message);
      delete form.dataset.asking;
      if (choice) {
        entry.choice = choice;
        state.textContent = texts.sending;
        pending += 1;
        form.dataset.pending = String(pending);
        await send(entry, row);
        return;
      }
      row.dataset.state = "cancelled";
      state.textContent = texts.cancelled;
      state.className = "entry-state muted";
      say(typeset(fmt(texts.cancelled_banner, { table: entry.table })), "warning");
      entry.key = newKey("console:");
      const edit = document.createElement("button");
      edit.type = "button";
      edit.className = "button-small";
      edit.textContent = texts.edit;
      edit.addEventListener("click", () => bringBack(entry, "table"));
      state.append(" ", edit);
      if (formIsEmpty()) bringBack(entry, "word");
      return;
    }
    const error = (answer && answer.error) || { message: texts.network, fields: {} };
    const badField = Object.keys(error.fields || {}).find((name) => fields[name]);
    row.dataset.state = "refused";
    state.textContent = typeset(`${texts.refused}: ${error.message} `);
    state.className = "entry-state outcome-zero";
    say(typeset(`${texts.refused} (${texts.table}${entry.table}): ${error.message}`), false);
    // Sent again after a fix, the entry is a new slip: it gets a new key (a network failure keeps it).
    if (res) entry.key = newKey("console:");
    const again = document.createElement("button");
    again.type = "button";
    again.className = "button-small";
    again.textContent = texts.edit;
    again.addEventListener("click", () => bringBack(entry, badField));
    state.appendChild(again);
    if (formIsEmpty()) bringBack(entry, badField);
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    for (const name of ["table", "word"]) {
      if (!fields[name].value.trim()) {
        fields[name].focus();
        return;
      }
    }
    const entry = { key: newKey("console:") };
    for (const name of names) entry[name] = fields[name].value.trim();
    const row = document.createElement("tr");
    row.dataset.state = "sending";
    cell(row, entry.table, "num");
    cell(row, "", "entry-name");
    cell(row, entry.word, "word entry-word");
    cell(row, entry.ref, "entry-ref");
    cell(row, entry.score, "num entry-claimed");
    cell(row, "", "num entry-paid");
    cell(row, texts.sending, "entry-state");
    logBody.prepend(row);
    form.reset();
    entries.check();
    fields.table.focus();
    pending += 1;
    form.dataset.pending = String(pending);
    queue = queue.then(() => send(entry, row));
  });

  // Slips handed in from phones move the count too; a closed or new round reloads the page.
  const count = $("progress-count");
  const gameId = form.action.match(/games\/(\d+)\//)[1];
  const drawnMark = form.closest(".slip-card")?.dataset.drawn;
  followGame(gameId, async (info) => {
    followPause(info);
    if (String(info.round) !== round) {
      if (!pending && !form.dataset.asking && formIsEmpty()) window.location.reload();
      return;
    }
    // The same round closed, corrected or joined: the verdicts and the tables again, in place.
    await entries.refresh();
    if (info.round_status !== "open") return;
    if (count && info.progress) count.textContent = `${info.progress.received} / ${info.progress.players}`;
  }, drawnMark);
}

function slipPageWithoutForm() {
  // No open round: reload when one opens.
  const match = window.location.pathname.match(/games\/(\d+)\/slips/);
  // Reloading on a change, it compares versions alone: slip counts never move without an open round.
  const drawnMark = (document.querySelector(".slip-card")?.dataset.drawn || "").split("/")[0];
  if (match) followGame(match[1], () => window.location.reload(), drawnMark);
}

// The paper-slips page's clock stands still while the arbitrator has paused it, and follows the new deadline.
function followPause(info) {
  for (const countdown of countdowns) countdown.setDeadline(runningDeadline(info), idleTime(info));
}

// Incidents on the round screen, keyboard first: P, R, E, F or X (when no field has the cursor) puts the
// cursor in its form, or presses its button (Resume).
document.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || !/^[a-z]$/i.test(ev.key)) return;
  const active = document.activeElement;
  if (active && ["INPUT", "TEXTAREA", "SELECT"].includes(active.tagName)) return;
  const target = document.querySelector(`[data-key="${ev.key.toLowerCase()}"]`);
  if (!target) return;
  ev.preventDefault();
  if (target.tagName === "BUTTON") target.click();
  else target.focus();
});

startClocks(document);
guardConfirms(document);
const area = document.getElementById("live-area");
if (area) gameScreen(area);
const slipForm = document.getElementById("slip-form");
if (slipForm) slipEntry(slipForm);
else if (document.querySelector(".slip-card")) slipPageWithoutForm();
