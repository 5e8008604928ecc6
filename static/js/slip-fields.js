// The slip's fields (templates/partials/slip_fields.html), the same on the player's phone (phone/form.js) and
// in training (training.js): the reference, typed or picked on the board, with its across/down toggle; the
// word in capitals, each letter a toggle to mark it played with a blank (circled, as on a paper slip; the
// slip's word gives it in lowercase); the score. The blank toggles are hidden while the rack holds no blank.
//
// createSlipFields({ T, labelling, onChange, onNeedRef }) ->
//   { slip, fill, clear, setRack, unpick, ref, word, score }
// slip(): {word, ref, score} as the server takes it; fill(slip) puts one in the fields; setRack(rack) says
// which rack the slip is for ("" or null: not known, the toggles stay); unpick() takes the square away.
// onChange() after any change of a field; onNeedRef() when across/down is tapped with no reference.
import { makePickable } from "./board.js";
import { $ } from "./common.js";
import { formatRef, parseRef } from "./notation.js";

const BLANK = "?"; // a blank on a rack

function capital(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

// `keys`: the labels of a tile set's tiles beyond one letter A-Z (Spanish CH, LL, RR, Ñ), each a key under
// the word that types its label where the cursor is; the word field keeps their letters (Ñ, Ç, ·).
export function createSlipFields({ T, labelling, keys = [], keysLabel = "", onChange = () => {}, onNeedRef = () => {} }) {
  const refInput = $("slip-ref");
  const dirButton = $("slip-dir");
  const wordInput = $("slip-word");
  const scoreInput = $("slip-score");
  const blankField = $("blank-field");
  const toggles = $("blank-toggles");
  const blanks = new Set(); // the places of the letters played with a blank
  let rackHasBlank = true; // until a rack says otherwise

  const picker = makePickable($("board"), {
    onPick(ref) {
      refInput.value = formatRef(ref.row, ref.col, ref.horizontal, labelling);
      showDirection(ref);
      refInput.setCustomValidity("");
      onChange();
    },
  });

  function showDirection(ref) {
    const down = ref && !ref.horizontal;
    dirButton.setAttribute("aria-pressed", down ? "true" : "false");
    dirButton.textContent = down ? `${capital(T.down)} ↓` : `${capital(T.across)} →`;
  }

  refInput.addEventListener("input", () => {
    const ref = parseRef(refInput.value, labelling);
    picker.set(ref);
    showDirection(ref);
    onChange();
  });
  refInput.addEventListener("blur", () => {
    const ref = parseRef(refInput.value, labelling);
    if (ref) refInput.value = formatRef(ref.row, ref.col, ref.horizontal, labelling);
  });
  dirButton.addEventListener("click", () => {
    const ref = parseRef(refInput.value, labelling);
    if (!ref) {
      onNeedRef();
      refInput.focus();
      return;
    }
    const flipped = { ...ref, horizontal: !ref.horizontal };
    refInput.value = formatRef(flipped.row, flipped.col, flipped.horizontal, labelling);
    picker.set(flipped);
    showDirection(flipped);
    onChange();
  });

  const extra = Array.from(new Set(keys.join("").toUpperCase() + keys.join("").toLowerCase()))
    .filter((ch) => !/[A-Za-z]/.test(ch))
    .join("");
  const notLetter = new RegExp(`[^A-Za-z${extra.replace(/[\\\]^-]/g, "\\$&")}]`, "gu");
  if (keys.length) {
    wordInput.maxLength = 60; // a word of 15 tiles written with labels of several letters
    const row = document.createElement("div");
    row.className = "tile-keys";
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", keysLabel);
    for (const label of keys) {
      const key = document.createElement("button");
      key.type = "button";
      key.className = "tile-key";
      key.dataset.label = label;
      key.textContent = label;
      key.addEventListener("click", () => {
        const at = wordInput.selectionStart ?? wordInput.value.length;
        const end = wordInput.selectionEnd ?? at;
        wordInput.value = wordInput.value.slice(0, at) + label + wordInput.value.slice(end);
        wordInput.setSelectionRange(at + label.length, at + label.length);
        wordInput.dispatchEvent(new Event("input", { bubbles: true }));
        wordInput.focus();
      });
      row.appendChild(key);
    }
    wordInput.insertAdjacentElement("afterend", row);
  }

  wordInput.addEventListener("input", () => {
    const clean = wordInput.value.replace(notLetter, "").toUpperCase();
    if (clean !== wordInput.value) wordInput.value = clean;
    for (const i of [...blanks]) if (i >= clean.length) blanks.delete(i);
    renderBlankToggles();
    onChange();
  });
  scoreInput.addEventListener("input", onChange);

  function renderBlankToggles() {
    toggles.textContent = "";
    Array.from(wordInput.value).forEach((ch, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "blank-toggle" + (blanks.has(i) ? " on" : "");
      b.textContent = ch;
      b.setAttribute("aria-pressed", blanks.has(i) ? "true" : "false");
      b.setAttribute("aria-label", `${ch} ${i + 1}: ${T.blank}`);
      b.addEventListener("click", () => {
        if (blanks.has(i)) blanks.delete(i);
        else blanks.add(i);
        renderBlankToggles();
        onChange();
        toggles.children[i].focus();
      });
      toggles.appendChild(b);
    });
    // No word yet, or a rack without a blank: nothing to mark (a letter marked already, from a slip put
    // back in the fields, stays in view so that it can be taken off).
    blankField.hidden = wordInput.value.length === 0 || (!rackHasBlank && blanks.size === 0);
  }

  function slipWord() {
    return Array.from(wordInput.value)
      .map((ch, i) => (blanks.has(i) ? ch.toLowerCase() : ch.toUpperCase()))
      .join("");
  }

  function slip() {
    const ref = parseRef(refInput.value, labelling);
    const scoreText = scoreInput.value.trim();
    return {
      word: slipWord(),
      ref: ref ? formatRef(ref.row, ref.col, ref.horizontal, labelling) : refInput.value.trim().toUpperCase(),
      score: scoreText === "" ? null : parseInt(scoreText, 10),
    };
  }

  function fill(given) {
    wordInput.value = (given.word || "").toUpperCase();
    blanks.clear();
    Array.from(given.word || "").forEach((ch, i) => {
      if (ch !== ch.toUpperCase()) blanks.add(i);
    });
    renderBlankToggles();
    refInput.value = given.ref || "";
    const ref = parseRef(refInput.value, labelling);
    picker.set(ref);
    showDirection(ref);
    scoreInput.value = given.score ?? given.claimed ?? "";
  }

  function setRack(rack) {
    const had = rackHasBlank;
    rackHasBlank = !rack || rack.includes(BLANK);
    if (had !== rackHasBlank) renderBlankToggles();
  }

  renderBlankToggles();
  return {
    slip,
    fill,
    clear: () => fill({ word: "", ref: "", score: null }),
    setRack,
    unpick: () => picker.set(null),
    ref: refInput,
    word: wordInput,
    score: scoreInput,
  };
}
