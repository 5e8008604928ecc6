// A result's reason in words, as every page says it (phone, review, training): the page's text for its
// code, with the play it names filled in (round 1's best placement: "paid as BRAIN H4..."), else the
// server's own message.
import { fmt, typeset } from "./common.js";

// reasons: {code: text} from the page's config; result: {reason, message, placement}; word: the word
// written on the slip.
export function reasonText(reasons, result, word) {
  const text = reasons[result.reason];
  if (!text) return typeset(result.message || result.reason || "");
  return fmt(text, { word: word || "", placement: result.placement || "" });
}
