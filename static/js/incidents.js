// The arbitrator's incidents as every screen shows them (phone, projector, console): a paused clock stands
// still on the time it had left and follows the new deadline once resumed; a cancelled round is announced
// with its reason until it is drawn again.
import { fmt } from "./common.js";

export function isPaused(info) {
  return info.round_status === "open" && Boolean(info.paused);
}

// The deadline a countdown runs to: none while paused (the countdown shows the time left instead).
export function runningDeadline(info) {
  return info.round_status === "open" && !info.paused ? info.deadline : null;
}

// A line for the screen: the pause, or the round cancelled last; "" when there is none.
export function incidentNotice(info, T) {
  if (isPaused(info)) return T.paused;
  if (info.cancelled) return fmt(T.cancelled, { n: info.cancelled.number, reason: info.cancelled.reason });
  return "";
}

export function markPaused(el, info) {
  if (el) el.classList.toggle("paused", isPaused(info));
}
