// What the phone, the projector and the console share: element lookup, the server's text templates, a
// status line, the clock's text between rounds, a play's line, fresh keys.
import { wordElement } from "./board.js";
import { formatSeconds } from "./clock.js";

export const $ = (id) => document.getElementById(id);

// The JSON a page carries in a <script type="application/json" id=...> (json_script); null without it.
export function readJson(id) {
  const el = $(id);
  return el ? JSON.parse(el.textContent) : null;
}

// Django's named placeholders: fmt("%(n)s points", {n: 12}).
export function fmt(template, values) {
  return String(template).replace(/%\((\w+)\)s/g, (_, name) => values[name] ?? "");
}

// The message of the server's error answer ({"error": {"code", "message", "fields"}}), else `fallback`.
export function errorMessage(body, fallback) {
  return (body && body.error && body.error.message) || fallback;
}

// A status line: its text and the class that colours it.
export function say(el, text, className = "") {
  el.textContent = text;
  el.className = className;
}

// The clock outside a round: before the start the round's full time, after the close 0:00, and
// `none` when no round is on.
export function idleTime(info, none = "–:––") {
  const seconds = (info.game && info.game.round_seconds) || 0;
  if (info.round_status === "drawn" && seconds) return formatSeconds(seconds);
  return info.round_status === "closed" ? formatSeconds(0) : none;
}

// A play (the master, a top) as "WORD H8 · 66 points", its blanks circled; T.no_play without one.
export function showPlay(el, play, T) {
  el.textContent = "";
  if (!play) {
    el.textContent = T.no_play;
    return;
  }
  el.append(wordElement(play.word, { blankLabel: T.blank }), ` ${play.ref} · ${fmt(T.points, { n: play.score })}`);
}

// A fresh key for a slip: the server keeps one slip per key, so a retry under the same key is harmless.
// crypto.randomUUID exists only on https or localhost; venue Wi-Fi often serves plain http.
export function newKey(prefix = "") {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
