// The public results page (templates/public/results.html) follows the closed rounds without a reload.
//
// It polls the JSON feed (GET /api/public/<key>) every few seconds (ARBITER_PUBLIC_POLL_SECONDS) with
// If-None-Match rather than holding the live event stream open: a follower's poll that finds nothing new is
// a 304 with no body, answered from one cache read without the database (tournaments/public.py), and it
// holds no connection or server task between polls. Thousands of followers at home would otherwise each
// keep a stream open on the hall's server for hours, to learn of a change a few times an hour.
// When the feed's ETag changes, the page itself (with its filters) is fetched again and its results part
// swapped in place. Polls stop after data-max-polls (ARBITER_PUBLIC_POLL_HOURS); a reload starts again.

const root = document.getElementById("public-results");

function swap(html) {
  const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("public-results");
  if (!fresh) return false;
  root.innerHTML = fresh.innerHTML;
  root.dataset.etag = fresh.dataset.etag;
  bindFilters();
  return true;
}

function bindFilters() {
  const form = document.getElementById("public-filters");
  if (!form) return;
  for (const select of form.querySelectorAll("select")) {
    select.addEventListener("change", () => form.requestSubmit());
  }
}

async function poll() {
  const answer = await fetch(root.dataset.feed + window.location.search, {
    headers: { "If-None-Match": root.dataset.etag, Accept: "application/json" },
    cache: "no-store",
  });
  if (answer.status === 304 || !answer.ok) return;
  const tag = answer.headers.get("ETag");
  if (!tag || tag === root.dataset.etag) return;
  const page = await fetch(window.location.href, { cache: "no-store" });
  if (page.ok && swap(await page.text())) {
    root.dataset.etag = tag;
    const note = document.getElementById("public-updated");
    if (note) {
      const time = new Date().toLocaleTimeString(document.documentElement.lang || undefined);
      note.textContent = `${note.dataset.label || ""} ${time}`.trim();
    }
  }
}

function start() {
  if (!root) return;
  bindFilters();
  const every = Math.max(1, Number(root.dataset.every) || 10) * 1000;
  const maxPolls = Math.max(1, Number(root.dataset.maxPolls) || 1);
  let polls = 0;
  const next = () => {
    polls += 1;
    if (polls > maxPolls) return;
    window.setTimeout(() => {
      poll().catch(() => {}).finally(next);
    }, every);
  };
  next();
}

start();
