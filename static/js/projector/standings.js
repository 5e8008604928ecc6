// The projector's standings for a hall: as many lines as the screen's room holds, measured (a name on two
// lines or a smaller screen simply makes more pages), page after page every `seconds`, never a scrollbar.
//
// createStandings({section, body, pageLabel, provisionalLabel, seconds, T, url})
//   -> {show(info)}: info is the live snapshot; its first lines are shown at once, every line is then
//      fetched from `url` (the snapshot carries only the first few) when the standings change.
import { fmt } from "../common.js";

export function createStandings({ section, body, pageLabel, provisionalLabel, seconds, T, url }) {
  let rows = [];
  let pages = [[0, 0]]; // [first, end) of each page
  let page = 0;
  let round = null;
  let asked = null; // what the standings were when every line was last asked for
  let fetching = 0;

  function diffText(diff) {
    return diff ? `-${Math.abs(diff)}` : "0";
  }

  function line(row) {
    const tr = document.createElement("tr");
    // Topping: the total time, lowest first; no difference from the tops.
    const cells = row.seconds !== undefined && row.seconds !== null
      ? [row.rank, row.name, fmt(T.seconds_total, { n: row.seconds }), ""]
      : [row.rank, row.name, row.total, diffText(row.diff)];
    cells.forEach((value, i) => {
      const td = document.createElement("td");
      if (i === 1) {
        td.className = "name";
        const name = document.createElement("span");
        name.className = "pj-name";
        name.textContent = value;
        td.appendChild(name);
      } else {
        td.className = "num";
        td.textContent = value;
      }
      tr.appendChild(td);
    });
    return tr;
  }

  // Cut the lines into pages where the room ends: every line on the table first, measured, then only the
  // page's lines left in view.
  function paginate() {
    const trs = Array.from(body.children);
    for (const tr of trs) tr.hidden = false;
    const room = section.getBoundingClientRect().bottom;
    const found = [];
    let first = 0;
    while (first < trs.length) {
      const top = trs[first].getBoundingClientRect().top;
      const space = room - body.getBoundingClientRect().top;
      let end = first + 1; // at least one line a page, whatever the room
      while (end < trs.length && trs[end].getBoundingClientRect().bottom - top <= space) end += 1;
      found.push([first, end]);
      first = end;
    }
    pages = found.length ? found : [[0, 0]];
    if (page >= pages.length) page = 0;
    showPage();
  }

  function showPage() {
    const [first, end] = pages[page];
    Array.from(body.children).forEach((tr, i) => {
      tr.hidden = i < first || i >= end;
    });
    pageLabel.textContent = pages.length > 1 ? fmt(T.page, { n: page + 1, count: pages.length }) : "";
    section.dataset.page = String(page + 1);
    section.dataset.pages = String(pages.length);
  }

  function fill(list) {
    rows = list;
    body.textContent = "";
    for (const row of rows) body.appendChild(line(row));
    if (!section.hidden) paginate();
  }

  async function fetchAll(info) {
    const mark = ++fetching;
    try {
      const res = await fetch(url, { cache: "no-store" });
      if (!res.ok || mark !== fetching) return;
      const all = await res.json();
      if (mark !== fetching) return;
      if (all.round === (info.last && info.last.number)) fill(all.standings || []);
    } catch {
      // Offline: the first lines stay; the next change asks again.
    }
  }

  function show(info) {
    const last = info.last;
    const first = info.standings || [];
    section.hidden = !last || !first.length;
    provisionalLabel.hidden = !info.provisional;
    if (section.hidden) return;
    if (last.number !== round) {
      round = last.number;
      page = 0; // a new round's standings start from the top
    }
    const mark = JSON.stringify([last, first, info.provisional]);
    if (mark === asked) {
      paginate(); // the layout around may have changed (the rack, the join code)
      return;
    }
    asked = mark;
    // Until every line arrives, the first ones (unless more are already on screen for this round).
    if (rows.length <= first.length || rows[0].name !== first[0].name) fill(first);
    else paginate();
    fetchAll(info);
  }

  setInterval(() => {
    if (section.hidden || pages.length < 2) return;
    page = (page + 1) % pages.length;
    showPage();
  }, Math.max(1, seconds) * 1000);
  new ResizeObserver(() => {
    if (!section.hidden && rows.length) paginate();
  }).observe(section);

  return { show };
}
