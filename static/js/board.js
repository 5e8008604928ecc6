// The board and the rack on screen: filling the board partial, picking a square.
// Plain ES module, no build step. Used by the phone and the projector; references are notation.js's.

import { SIZE, formatRef } from "./notation.js";

// A tile set's labels beyond its storage characters (Spanish "Θ" -> "CH", "Δ" -> "Ñ"), from the page's
// config (setTileLabels(config.labels)); empty for English and French, whose tiles are their letters.
let tileLabels = {};

export function setTileLabels(labels) {
  tileLabels = labels && typeof labels === "object" ? labels : {};
}

// The label of one stored character: a tile's label, a blank's in lowercase; any other character as it is.
export function tileLabel(ch) {
  const label = tileLabels[ch] || tileLabels[ch.toUpperCase()];
  if (!label) return ch;
  return ch === ch.toUpperCase() ? label : label.toLowerCase();
}

// A stored word or rack as players read it: each tile's label.
export function showTiles(stored) {
  return Array.from(stored || "").map(tileLabel).join("");
}

function cellAt(table, row, col) {
  return table.querySelector(`td[data-r="${row}"][data-c="${col}"]`);
}

// Put the letters of `rows` (15 strings, "." empty, lowercase a blank) into the board partial.
// `marked`: the squares [row, col] of the last move (the live state's last.placed), marked "fresh" and
// only they, whatever was marked before (a page open for hours, a master changed): as a reload shows them.
// Without it, squares that were empty before and hold a tile now are marked (unless this is the first fill).
export function fillBoard(table, rows, { blankLabel = "(blank)", marked } = {}) {
  if (!table || !Array.isArray(rows)) return [];
  const first = !table.dataset.filled;
  const changed = [];
  for (let r = 0; r < SIZE; r++) {
    const line = rows[r] || "";
    for (let c = 0; c < SIZE; c++) {
      const ch = line[c] || ".";
      const td = cellAt(table, r, c);
      if (!td) continue;
      const old = td.querySelector(".tile");
      const oldCh = old ? old.dataset.ch : ".";
      if (oldCh === ch) continue;
      if (old) old.remove();
      td.classList.remove("fresh");
      if (ch !== ".") {
        const tile = document.createElement("span");
        const blank = ch !== ch.toUpperCase();
        tile.className = blank ? "tile blank" : "tile";
        tile.dataset.ch = ch;
        const label = tileLabel(ch.toUpperCase());
        tile.textContent = label;
        if (label.length > 1) tile.classList.add("multi");
        if (blank) {
          const hidden = document.createElement("span");
          hidden.className = "visually-hidden";
          hidden.textContent = " " + blankLabel;
          tile.appendChild(hidden);
        }
        td.appendChild(tile);
        if (!first && oldCh === ".") {
          td.classList.add("fresh");
          changed.push([r, c]);
        }
      }
    }
  }
  // The first fill replaces what the server rendered: remember each tile's character.
  table.querySelectorAll("td .tile:not([data-ch])").forEach((tile) => {
    const td = tile.closest("td");
    const ch = (rows[+td.dataset.r] || "")[+td.dataset.c] || ".";
    tile.dataset.ch = ch;
  });
  table.dataset.filled = "1";
  if (Array.isArray(marked)) markSquares(table, marked);
  return changed;
}

// Exactly the squares [row, col] given that hold a tile are "fresh"; every other square is not.
function markSquares(table, squares) {
  const wanted = new Set(squares.map(([r, c]) => `${r},${c}`));
  table.querySelectorAll("td.sq").forEach((td) => {
    const on = wanted.has(`${td.dataset.r},${td.dataset.c}`) && !!td.querySelector(".tile");
    td.classList.toggle("fresh", on);
  });
}

// The rack, kept letters first then the new ones (the order the server gives), with tile values.
export function renderRack(el, rack, { kept = "", values = {}, blankLabel = "blank", keptLabel = "" } = {}) {
  el.textContent = "";
  const letters = Array.from(rack || "");
  const keptCount = Math.min(Array.from(kept || "").length, letters.length);
  letters.forEach((ch, i) => {
    if (i === keptCount && keptCount > 0) {
      const sep = document.createElement("li");
      sep.className = "sep";
      sep.setAttribute("aria-hidden", "true");
      el.appendChild(sep);
    }
    const li = document.createElement("li");
    li.className = "rtile" + (i < keptCount ? " kept" : "") + (ch === "?" ? " joker" : "");
    if (ch === "?") {
      li.setAttribute("aria-label", blankLabel);
      li.title = blankLabel;
    } else {
      const label = tileLabel(ch);
      li.textContent = label;
      if (label.length > 1) li.classList.add("multi");
      const v = values[ch];
      if (v !== undefined) {
        const sub = document.createElement("sub");
        sub.setAttribute("aria-hidden", "true");
        sub.textContent = v;
        li.appendChild(sub);
        li.classList.add("valued");
      }
    }
    if (i < keptCount && keptLabel) li.title = keptLabel;
    el.appendChild(li);
  });
}

// Let the player pick the start square and direction: a tap (or Enter) on a square picks it across,
// a second tap on the same square turns it down. Arrow keys move between squares (one tab stop).
export function makePickable(table, { onPick } = {}) {
  table.dataset.pickable = "1";
  let picked = null;
  let focusCell = cellAt(table, 7, 7);
  const cells = table.querySelectorAll("td.sq");
  cells.forEach((td) => {
    td.tabIndex = -1;
    td.setAttribute("role", "gridcell");
  });
  table.setAttribute("role", "grid");
  focusCell.tabIndex = 0;

  function describe(td) {
    const labelling = table.dataset.labelling;
    return formatRef(+td.dataset.r, +td.dataset.c, true, labelling);
  }
  cells.forEach((td) => td.setAttribute("aria-label", describe(td)));

  function show() {
    table.querySelectorAll("td.picked, td.path").forEach((td) => td.classList.remove("picked", "across", "down", "path"));
    if (!picked) return;
    const start = cellAt(table, picked.row, picked.col);
    start.classList.add("picked", picked.horizontal ? "across" : "down");
    for (let k = 1; k < SIZE; k++) {
      const r = picked.horizontal ? picked.row : picked.row + k;
      const c = picked.horizontal ? picked.col + k : picked.col;
      if (r >= SIZE || c >= SIZE) break;
      cellAt(table, r, c).classList.add("path");
    }
  }

  function choose(td) {
    const row = +td.dataset.r;
    const col = +td.dataset.c;
    if (picked && picked.row === row && picked.col === col) {
      picked = { row, col, horizontal: !picked.horizontal };
    } else {
      picked = { row, col, horizontal: true };
    }
    show();
    if (onPick) onPick(picked);
  }

  function moveFocus(td) {
    if (!td) return;
    focusCell.tabIndex = -1;
    focusCell = td;
    td.tabIndex = 0;
    td.focus();
  }

  table.addEventListener("click", (ev) => {
    const td = ev.target.closest("td.sq");
    if (!td || !table.contains(td)) return;
    moveFocus(td);
    choose(td);
  });
  table.addEventListener("keydown", (ev) => {
    const td = ev.target.closest("td.sq");
    if (!td) return;
    const r = +td.dataset.r;
    const c = +td.dataset.c;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[ev.key]) {
      const [dr, dc] = moves[ev.key];
      moveFocus(cellAt(table, Math.min(SIZE - 1, Math.max(0, r + dr)), Math.min(SIZE - 1, Math.max(0, c + dc))));
      ev.preventDefault();
    } else if (ev.key === "Enter" || ev.key === " ") {
      choose(td);
      ev.preventDefault();
    }
  });

  return {
    set(ref) {
      picked = ref ? { row: ref.row, col: ref.col, horizontal: ref.horizontal } : null;
      show();
    },
    get() {
      return picked;
    },
  };
}

// A slip word with its blanks (lowercase letters) circled, as on paper; the blank is also named for
// screen readers.
export function wordElement(word, { blankLabel = "blank" } = {}) {
  const span = document.createElement("span");
  span.className = "slip-word";
  span.dataset.word = word || "";
  Array.from(word || "").forEach((stored) => {
    const ch = tileLabel(stored);
    if (ch !== ch.toUpperCase()) {
      const letter = document.createElement("span");
      letter.className = "blank-letter";
      letter.textContent = ch.toUpperCase();
      letter.title = blankLabel;
      const hidden = document.createElement("span");
      hidden.className = "visually-hidden";
      hidden.textContent = ` (${blankLabel}) `;
      letter.appendChild(hidden);
      span.appendChild(letter);
    } else {
      span.append(ch);
    }
  });
  return span;
}
