// Time as the server sees it, and countdowns to the server's deadline.
//
// A device's clock may be minutes wrong. Every response that carries the server's time is a sample:
// offset = server_time - (sent + received) / 2, as NTP does, with an error of at most half the round
// trip. The sample with the shortest round trip among the recent ones wins.

const KEEP = 8;

export class ServerClock {
  constructor() {
    this.offset = 0;
    this.rtt = null;
    this.samples = [];
  }

  // serverMs: the server's time (ms since the epoch); sentAt / receivedAt: Date.now() around the request.
  addSample(serverMs, sentAt, receivedAt) {
    if (!Number.isFinite(serverMs) || !Number.isFinite(sentAt) || !Number.isFinite(receivedAt)) return;
    const rtt = Math.max(0, receivedAt - sentAt);
    this.samples.push({ rtt, offset: serverMs - (sentAt + receivedAt) / 2 });
    if (this.samples.length > KEEP) this.samples.shift();
    const best = this.samples.reduce((a, b) => (b.rtt < a.rtt ? b : a));
    this.offset = best.offset;
    this.rtt = best.rtt;
  }

  get synced() {
    return this.samples.length > 0;
  }

  now() {
    return Date.now() + this.offset;
  }

  // Ask `url` (JSON with server_ms or server_time) a few times; keep the best sample.
  async sync(url, { count = 3 } = {}) {
    for (let i = 0; i < count; i++) {
      try {
        const sentAt = Date.now();
        const res = await fetch(url, { cache: "no-store", headers: { Accept: "application/json" } });
        const receivedAt = Date.now();
        if (!res.ok) continue;
        const body = await res.json();
        this.addSample(serverMsOf(body), sentAt, receivedAt);
      } catch {
        // Offline for now: the next sync or live message will do.
      }
    }
    return this.offset;
  }
}

export function serverMsOf(body) {
  if (body && Number.isFinite(body.server_ms)) return body.server_ms;
  if (body && body.server_time) return Date.parse(body.server_time);
  return NaN;
}

export const serverClock = new ServerClock();

export function formatSeconds(total) {
  const s = Math.max(0, Math.floor(total));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

// Show the time left before `deadline` in `el`, corrected by the clock's offset.
// onCall30 runs once when 30 s are left, onEnd once at the deadline (the end call).
export function startCountdown(el, { clock = serverClock, deadline = null, idleText = "", onCall30, onEnd } = {}) {
  let deadlineMs = null;
  let called30 = false;
  let ended = false;
  let timer = null;

  function render() {
    if (deadlineMs === null) {
      el.textContent = idleText;
      el.classList.remove("call-30", "over");
      el.removeAttribute("data-seconds-left");
      return;
    }
    const leftMs = deadlineMs - clock.now();
    const seconds = Math.max(0, Math.ceil(leftMs / 1000));
    el.textContent = formatSeconds(seconds);
    el.dataset.secondsLeft = String(seconds);
    el.classList.toggle("call-30", seconds <= 30 && seconds > 0);
    el.classList.toggle("over", seconds === 0);
    if (!called30 && leftMs <= 30000 && leftMs > 0) {
      called30 = true;
      if (onCall30) onCall30();
    }
    if (!ended && leftMs <= 0) {
      ended = true;
      if (onEnd) onEnd();
    }
  }

  function setDeadline(value, text) {
    const ms = value ? Date.parse(value) : null;
    if (text !== undefined) idleText = text;
    if (ms !== deadlineMs) {
      deadlineMs = Number.isFinite(ms) ? ms : null;
      const leftMs = deadlineMs === null ? 0 : deadlineMs - clock.now();
      // A page opened late in the round makes no 30-second call it has already missed by far.
      called30 = deadlineMs !== null && leftMs <= 25000;
      ended = deadlineMs !== null && leftMs <= 0;
    }
    render();
  }

  setDeadline(deadline);
  timer = setInterval(render, 200);
  return {
    setDeadline,
    render,
    stop() {
      clearInterval(timer);
    },
  };
}
