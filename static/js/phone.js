// The player's phone: join (phone/join.js), then follow the round, hand in a slip that survives a lost
// network, see results (phone/play.js and the parts it wires: form.js, sending.js, results.js, store.js).
import { $ } from "./common.js";
import { setupJoin } from "./phone/join.js";
import { setupPlay } from "./phone/play.js";

if ($("join-form")) setupJoin($("join-form"));
if ($("slip-form")) setupPlay();
