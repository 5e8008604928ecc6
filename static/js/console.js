// The arbitrator's console: the game screen follows the game live, countdowns run on the server's time,
// and paper slips are recorded without leaving the page (focus back on the table field after each).

import { serverClock, serverMsOf, startCountdown } from "./clock.js";

const POLL_MS = 1000;

function csrfToken(form) {
  const field = form.querySelector("input[name=csrfmiddlewaretoken]");
  return field ? field.value : "";
}

function newKey() {
  if (window.crypto && typeof window.crypto.randomUUID === "function") return `console:${window.crypto.randomUUID()}`;
  return `console:${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

// Countdowns: every .clock[data-deadline] in `root`.
const countdowns = [];
function startClocks(root) {
  while (countdowns.length) countdowns.pop().stop();
  root.querySelectorAll(".clock[data-deadline]").forEach((el) => {
    countdowns.push(startCountdown(el, { clock: serverClock, deadline: el.dataset.deadline }));
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

// Ask the game's version every second (it changes with every rack, start, slip count, close, master,
// correction, end); `onChange(info)` runs when it moves.
function followGame(gameId, onChange) {
  let version = null;
  let timer = null;
  async function tick() {
    try {
      const sentAt = Date.now();
      const res = await fetch(`/games/${gameId}/live?clock=1`, { cache: "no-store", headers: { Accept: "application/json" } });
      const receivedAt = Date.now();
      if (res.ok) {
        const info = await res.json();
        serverClock.addSample(serverMsOf(info), sentAt, receivedAt);
        if (version !== null && info.version !== version) await onChange(info);
        version = info.version;
      }
    } catch (err) {
      // Offline for a moment: the next tick tries again.
    }
    timer = setTimeout(tick, POLL_MS);
  }
  tick();
  return () => clearTimeout(timer);
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
  followGame(area.dataset.game, refresh);
}

// Paper slips: post each slip with fetch, log it, clear the fields, focus the table again.
function slipEntry(form) {
  const texts = JSON.parse(document.getElementById("slip-texts").textContent);
  const status = document.getElementById("slip-status");
  const logBody = document.querySelector("#slip-log tbody");
  const keyField = form.querySelector("input[name=key]");
  const fields = ["table", "word", "ref", "score"].reduce((acc, name) => {
    acc[name] = form.querySelector(`[name=${name}]`);
    return acc;
  }, {});
  let busy = false;

  function say(text, ok) {
    status.textContent = text;
    status.classList.toggle("is-ok", ok);
    status.classList.toggle("is-error", !ok);
  }

  function logRow(cells, outcome) {
    const tr = document.createElement("tr");
    for (const [value, cls] of cells) {
      const td = document.createElement("td");
      td.textContent = value;
      if (cls) td.className = cls;
      tr.appendChild(td);
    }
    const td = document.createElement("td");
    td.textContent = outcome.text;
    td.className = outcome.ok ? "outcome-ok" : "outcome-zero";
    tr.appendChild(td);
    logBody.prepend(tr);
  }

  function showProgress(progress) {
    const count = document.getElementById("progress-count");
    if (count) count.textContent = `${progress.received} / ${progress.players}`;
    const list = document.getElementById("missing-list");
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

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (busy) return;
    for (const name of ["table", "word"]) {
      if (!fields[name].value.trim()) {
        fields[name].focus();
        return;
      }
    }
    busy = true;
    if (!keyField.value) keyField.value = newKey();
    const sent = {
      table: fields.table.value.trim(),
      word: fields.word.value.trim(),
      ref: fields.ref.value.trim(),
      score: fields.score.value.trim(),
    };
    let res;
    let body = null;
    try {
      res = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken(form) },
      });
      body = await res.json();
    } catch (err) {
      busy = false;
      say(texts.network, false);
      fields.table.focus();
      return;
    }
    busy = false;
    if (res.ok) {
      const slip = body.slip;
      const text = !body.created ? texts.again : texts.recorded;
      logRow(
        [
          [String(body.player.table ?? sent.table), "num"],
          [body.player.name, ""],
          [slip.word, "word"],
          [slip.ref || "", ""],
          [slip.claimed === null ? "" : String(slip.claimed), "num"],
        ],
        { text, ok: true },
      );
      say(`${text}: ${texts.table}${body.player.table} ${body.player.name} — ${slip.word} ${slip.ref || ""} ${slip.claimed ?? ""}`, true);
      showProgress(body.progress);
      form.reset();
      keyField.value = "";
      fields.table.focus();
      return;
    }
    const error = (body && body.error) || { message: String(res.status), fields: {} };
    say(`${texts.refused}: ${error.message}`, false);
    logRow(
      [[sent.table, "num"], ["", ""], [sent.word, "word"], [sent.ref, ""], [sent.score, "num"]],
      { text: `${texts.refused}: ${error.message}`, ok: false },
    );
    // The same entry, once fixed, is a new slip: it needs its own key.
    keyField.value = "";
    const bad = Object.keys(error.fields || {}).find((name) => fields[name]);
    const target = fields[bad] || fields.table;
    target.focus();
    if (target.select) target.select();
  });

  // Slips handed in from phones move the count too; a closed or new round reloads the page.
  const count = document.getElementById("progress-count");
  const gameId = form.action.match(/games\/(\d+)\//)[1];
  followGame(gameId, async () => {
    const res = await fetch(`/games/${gameId}/live`, { cache: "no-store" });
    if (!res.ok) return;
    const info = await res.json();
    if (String(info.round) !== form.dataset.round || info.round_status !== "open") {
      if (!busy && !typingIn(form)) window.location.reload();
      return;
    }
    if (count && info.progress) count.textContent = `${info.progress.received} / ${info.progress.players}`;
  });
}

function slipPageWithoutForm() {
  // No open round: reload when one opens.
  const match = window.location.pathname.match(/games\/(\d+)\/slips/);
  if (match) followGame(match[1], () => window.location.reload());
}

startClocks(document);
guardConfirms(document);
const area = document.getElementById("live-area");
if (area) gameScreen(area);
const slipForm = document.getElementById("slip-form");
if (slipForm) slipEntry(slipForm);
else if (document.querySelector(".slip-card")) slipPageWithoutForm();
