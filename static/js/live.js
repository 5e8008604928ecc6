// Live updates of a game: subscribe(gameId, onChange) calls onChange(info) whenever the game changes
// (a new rack, a start, a close, a new master, a correction, the end), within a second.
//
// The page holds one server-sent events stream (/games/<id>/events). A phone on venue Wi-Fi then sends
// nothing while it waits: no request per second per phone filling the air, and the server pushes the
// change the moment it happens. When the stream cannot be held (old browser, a proxy that buffers),
// the page falls back to polling /games/<id>/live, which answers the same JSON. A server that stops says
// `reconnect` last on the stream: the page opens it again at once.
//
// A frozen or sleeping server keeps the stream open and sends nothing: with `silentSeconds`, a page that has
// heard nothing (no state, no beat of the stream, no answer to a poll) for that long is told
// onStatus("silent", {seconds}) every half second until the server is heard again, then its last status.
//
// info: {version, status, round, round_status, deadline, server_time, server_ms,
//        game: {...GET /api/games/<id> public part...}, last: {...last closed round...} | null,
//        standings: [...top of the standings...]}

import { serverClock, serverMsOf } from "./clock.js";

// What a state stands for, as pages compare states: its version, and with `progress` its progress mark
// too (which moves with every slip handed in). The server writes a page's own mark the same way
// (tournaments/versions.py drawn_mark).
export function stateMark(info, progress) {
  return progress ? `${info.version}/${info.progress_mark ?? ""}` : String(info.version);
}

const POLL_MS = 1000;
const RESYNC_MS = 60000;
const STREAM_RETRY_MS = 30000;
const SILENCE_TICK_MS = 500;

export function subscribe(gameId, onChange, { clock = serverClock, base = "", onStatus, progress = false, silentSeconds = 0 } = {}) {
  // progress: also wake up when only the count of slips received changes (console, projector).
  const streamUrl = `${base}/games/${gameId}/events${progress ? "?progress=1" : ""}`;
  const pollUrl = `${base}/games/${gameId}/live`;
  let lastSeen = null;
  let stopped = false;
  let source = null;
  let pollTimer = null;
  let failures = 0;
  let said = null; // the last status; while silent it waits until the server is heard again
  let heardAt = performance.now();
  let silent = false;
  let probing = false;

  function status(text) {
    said = text;
    if (onStatus && !silent) onStatus(text);
  }

  // Anything from the server: a state, a beat of the stream, an answer to a poll.
  function heard() {
    heardAt = performance.now();
    if (silent) {
      silent = false;
      if (onStatus) onStatus(said || "live");
    }
  }

  function watchSilence() {
    const quiet = (performance.now() - heardAt) / 1000;
    if (stopped || quiet < silentSeconds) return;
    silent = true;
    if (onStatus) onStatus("silent", { seconds: Math.floor(quiet) });
    // The stream may be dead while the server is up (a connection dropped without a word): ask by a plain
    // request; an answer while the stream stays mute opens the stream again.
    if (source && !probing) {
      probing = true;
      pollOnce()
        .then(() => {
          if (source && !stopped) {
            source.close();
            source = null;
            openStream();
          }
        })
        .catch(() => {})
        .finally(() => {
          probing = false;
        });
    }
  }

  // When each state delivered was asked for (performance.now()): a poll's when its request left, a stream's
  // event when it arrived. A poll sent before the stream's last event may answer with an older state (the
  // request was served before the change the stream then told): it is not shown, or the page would go back
  // to that state and stay there, the stream having nothing new to send.
  let deliveredAt = -Infinity;

  function deliver(info, askedAt) {
    if (!info || stopped) return;
    if (askedAt < deliveredAt) return;
    deliveredAt = askedAt;
    // The version moves with every change; the progress mark with every slip handed in, which wakes only
    // the pages that asked for progress.
    const seen = stateMark(info, progress);
    if (seen === lastSeen) return;
    lastSeen = seen;
    // Without the server's cache the state comes from its database alone, a little slower: say so.
    if (info.degraded) status("degraded");
    try {
      onChange(info);
    } catch (err) {
      console.error(err);
    }
  }

  async function pollOnce() {
    const askedAt = performance.now();
    const sentAt = Date.now();
    const res = await fetch(pollUrl, { cache: "no-store", headers: { Accept: "application/json" } });
    const receivedAt = Date.now();
    if (!res.ok) throw new Error(`live: ${res.status}`);
    const info = await res.json();
    heard();
    clock.addSample(serverMsOf(info), sentAt, receivedAt);
    deliver(info, askedAt);
    return info;
  }

  function schedulePoll(delay) {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(async () => {
      if (stopped || source) return;
      try {
        await pollOnce();
        status("polling");
      } catch {
        status("offline");
      }
      schedulePoll(POLL_MS);
    }, delay);
  }

  function openStream() {
    if (stopped) return;
    if (typeof EventSource === "undefined") {
      schedulePoll(0);
      return;
    }
    const openedAt = Date.now();
    let first = true;
    source = new EventSource(streamUrl);
    source.addEventListener("state", (ev) => {
      let info;
      try {
        info = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (first) {
        // Opening the stream is a round trip too: a first, rough clock sample.
        clock.addSample(serverMsOf(info), openedAt, Date.now());
        first = false;
      }
      failures = 0;
      heard();
      status(info.degraded ? "degraded" : "live");
      deliver(info, performance.now());
    });
    source.addEventListener("beat", heard);
    // The server is stopping (a restart, a host taken out of the proxy): open the stream again at once, on
    // whichever host answers, a random moment within the delay it gives so a hall does not come back at once.
    source.addEventListener("reconnect", (ev) => {
      let within = 1000;
      try {
        within = JSON.parse(ev.data).within_ms ?? within;
      } catch {
        // the default delay
      }
      heard();
      if (source) source.close();
      source = null;
      failures = 0;
      status("reconnecting");
      setTimeout(() => {
        if (!stopped && !source) {
          clearTimeout(pollTimer);
          openStream();
        }
      }, Math.random() * within);
    });
    source.onerror = () => {
      failures += 1;
      status("reconnecting");
      // Catch up at once by a plain request; the stream reconnects by itself meanwhile.
      pollOnce().catch(() => status("offline"));
      if (source && (source.readyState === EventSource.CLOSED || failures >= 2)) {
        source.close();
        source = null;
        schedulePoll(0);
        setTimeout(() => {
          if (!stopped && !source) {
            clearTimeout(pollTimer);
            failures = 0;
            openStream();
          }
        }, STREAM_RETRY_MS);
      }
    };
  }

  function onVisible() {
    // A phone waking up may have missed changes while its connection slept: ask once, now.
    if (document.visibilityState === "visible" && !stopped) {
      heardAt = performance.now(); // the page slept, not necessarily the server: it gets its full time again
      pollOnce().catch(() => status("offline"));
    }
  }

  clock.sync(`${pollUrl}?clock=1`).then(() => {
    if (!stopped) pollOnce().catch(() => {});
  });
  const resync = setInterval(() => clock.sync(`${pollUrl}?clock=1`, { count: 2 }), RESYNC_MS);
  document.addEventListener("visibilitychange", onVisible);
  const silence = silentSeconds > 0 ? setInterval(watchSilence, SILENCE_TICK_MS) : null;
  openStream();

  return function unsubscribe() {
    stopped = true;
    clearInterval(resync);
    clearInterval(silence);
    clearTimeout(pollTimer);
    document.removeEventListener("visibilitychange", onVisible);
    if (source) source.close();
  };
}
