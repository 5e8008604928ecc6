// Grid references, read and written exactly as engine/notation.py does (duplicate-rules.md §2): no DOM, so
// the shared table of cases (tests/fixtures/notation_cases.json) checks both against each other.
//
// In both labellings the row's label written first means horizontal: rows-letters "H4" = row H from
// column 4 across, "4H" = column 4 from row H down; rows-numbers "8H" = row 8 from column H across,
// "H8" = column H from row 8 down. Input is lenient about case and spaces; output is canonical.

export const SIZE = 15;
export const LETTERS = "ABCDEFGHIJKLMNO";

// The characters the engine ignores (Python's str.split() without arguments): not quite JavaScript's \s,
// which also takes the byte-order mark and leaves out U+001C-U+001F and U+0085.
// eslint-disable-next-line no-control-regex -- those control characters are spaces to the engine
const SPACES = /[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/gu;
const LETTER_FIRST = /^([A-Z])([0-9]+)$/;
const NUMBER_FIRST = /^([0-9]+)([A-Z])$/;

export function formatRef(row, col, horizontal, labelling = "rows-letters") {
  const rowLabel = labelling === "rows-numbers" ? String(row + 1) : LETTERS[row];
  const colLabel = labelling === "rows-numbers" ? LETTERS[col] : String(col + 1);
  return horizontal ? rowLabel + colLabel : colLabel + rowLabel;
}

// {row, col, horizontal} (0-based), or null when the text names no square.
export function parseRef(text, labelling = "rows-letters") {
  const compact = String(text || "").replace(SPACES, "").toUpperCase();
  let letter;
  let number;
  const letterFirst = LETTER_FIRST.exec(compact);
  if (letterFirst) {
    [, letter, number] = letterFirst;
  } else {
    const numberFirst = NUMBER_FIRST.exec(compact);
    if (!numberFirst) return null;
    [, number, letter] = numberFirst;
  }
  const letterIndex = letter.charCodeAt(0) - 65;
  const numberIndex = parseInt(number, 10) - 1;
  if (letterIndex < 0 || letterIndex >= SIZE || !(numberIndex >= 0 && numberIndex < SIZE)) return null;
  if (labelling === "rows-numbers") {
    return { row: numberIndex, col: letterIndex, horizontal: !letterFirst };
  }
  return { row: letterIndex, col: numberIndex, horizontal: Boolean(letterFirst) };
}
