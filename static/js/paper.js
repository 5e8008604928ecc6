// Paper slips typed by the arbitrator: the word as typed (a "?" before a blank's letter, case meaning
// nothing, as engine/notation.py parse_marked_word reads it) and a check, while typing, that the rack can
// give the letters. No DOM: tests/tournaments/test_paper_page_checks.py runs it with Node.js against the
// engine. The server stays the judge: these only flag an entry before it is sent.
import { SIZE, parseRef } from "./notation.js";

const LETTER = /^[A-Za-z]$/;

// {word} in the slips' notation (uppercase a tile, lowercase a blank), or {error: "bad_blank_mark"} for a
// "?" not followed by a letter. Other characters are left for the server to refuse.
export function markedWord(text) {
  const typed = String(text || "").trim();
  let word = "";
  let marked = false;
  for (const ch of typed) {
    if (ch === "?") {
      if (marked) return { error: "bad_blank_mark" };
      marked = true;
      continue;
    }
    if (marked && !LETTER.test(ch)) return { error: "bad_blank_mark" };
    word += marked ? ch.toLowerCase() : ch.toUpperCase();
    marked = false;
  }
  if (marked) return { error: "bad_blank_mark" };
  return { word };
}

function counts(letters) {
  const found = new Map();
  for (const ch of letters) found.set(ch, (found.get(ch) || 0) + 1);
  return found;
}

// The letters the word needs from the rack: with a reference that names a square, only the squares of
// the board still empty (a letter already there is not played); without one, every letter, the board's
// tiles then counting as letters the word may go through. Uppercase, a blank's letter as its letter.
function needed(word, board, ref, labelling) {
  const square = ref ? parseRef(ref, labelling) : null;
  const rows = Array.isArray(board) && board.length === SIZE ? board : null;
  if (square && rows) {
    const need = [];
    for (let i = 0; i < word.length; i += 1) {
      const row = square.row + (square.horizontal ? 0 : i);
      const col = square.col + (square.horizontal ? i : 0);
      if (row >= SIZE || col >= SIZE) return { need: word.toUpperCase().split(""), extra: "" };
      if (rows[row][col] === ".") need.push(word[i].toUpperCase());
    }
    return { need, extra: "" };
  }
  const extra = rows ? rows.join("").replace(/\./g, "").toUpperCase() : "";
  return { need: word.toUpperCase().split(""), extra };
}

// The letters the rack cannot give, blanks counted as any letter: [] when the word is possible. `rack`
// with "?" for a blank; `board` 15 strings ("." empty); `ref` as typed (may be empty or wrong).
export function lettersNotInRack(word, rack, board = null, ref = "", labelling = "rows-letters") {
  if (!word) return [];
  const { need, extra } = needed(word, board, ref, labelling);
  const have = counts(String(rack || "").toUpperCase() + extra);
  const blanks = have.get("?") || 0;
  const short = [];
  for (const [letter, n] of counts(need)) {
    for (let i = have.get(letter) || 0; i < n; i += 1) short.push(letter);
  }
  return short.length > blanks ? short.sort() : [];
}

// A slip's word written back as the arbitrator types it ("SAlAD" -> "SA?LAD"), as engine/notation.py
// marked_word_text writes it.
export function typedText(word) {
  return Array.from(String(word || "")).map((ch) => (ch !== ch.toUpperCase() ? `?${ch.toUpperCase()}` : ch)).join("");
}
