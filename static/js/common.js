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

// The page's language, from <html lang> (the server sets it: the tournament's on the projector and, until
// the phone switches, on the phone).
export function pageLanguage() {
  return (document.documentElement.lang || "en").slice(0, 2).toLowerCase();
}

// How the page's language writes (as tournaments/typography.py on the server): French puts a no-break
// space before : ; ? ! and before the percent sign, and writes decimals with a comma.
const NBSP = "\u00a0";
const HIGH_PUNCTUATION = /(?<=[\p{L}\p{N}_)\]»”’.%…])[ \u00a0\u202f]?([:;?!])(?=[\s"”»)\]]|$)/gu;

export function typeset(text, lang = pageLanguage()) {
  return lang === "fr" ? String(text).replace(HIGH_PUNCTUATION, `${NBSP}$1`) : String(text);
}

export function formatDecimal(value, places = 1, lang = pageLanguage()) {
  const text = Number(value).toFixed(places);
  return lang === "fr" ? text.replace(".", ",") : text;
}

export function formatPercent(value, places = 1, lang = pageLanguage()) {
  return formatDecimal(value, places, lang) + (lang === "fr" ? `${NBSP}%` : "%");
}

// Django's named placeholders: fmt("%(n)s points", {n: 12}). The text is set in the page's typography,
// and a number with decimals is written with the page's decimal mark.
export function fmt(template, values) {
  const show = (value) => (typeof value === "number" && !Number.isInteger(value) ? formatDecimal(value, 1) : value);
  return typeset(template).replace(/%\((\w+)\)s/g, (_, name) => show(values[name]) ?? "");
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
  // The clock paused by the arbitrator: the time it had left, standing still.
  if (info.round_status === "open" && info.paused) return formatSeconds(Math.ceil(info.time_left || 0));
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
