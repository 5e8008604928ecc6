// What a phone keeps on the device (localStorage): the player's token for a game and for its tournament,
// the slip on its way to the server, the order of this device's slips. The token goes out as a bearer
// header.

const gameKey = (gameId) => `arbiter.game.${gameId}`;
const tournamentKey = (tournamentId) => `arbiter.tournament.${tournamentId}`;
const pendingKey = (gameId) => `arbiter.pending.${gameId}`;
const seqKey = (gameId) => `arbiter.seq.${gameId}`;

function load(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    return null;
  }
}

function keep(key, value) {
  localStorage.setItem(key, JSON.stringify(value));
}

// The headers of a request made as the player.
export function playerHeaders(player, headers = {}) {
  return { ...headers, Accept: "application/json", Authorization: `Bearer ${player.token}` };
}

// The player of this game on this device: {token, player, name}; a player of the tournament's earlier
// game plays this one with the same token. Null (or undefined) when this device never joined.
export function loadPlayer(gameId, tournamentId) {
  return load(gameKey(gameId)) || (tournamentId && load(tournamentKey(tournamentId)));
}

// After joining with the code: the token plays this game and the tournament's later ones.
export function keepJoined({ game, tournament, token, id, name }) {
  keep(gameKey(game), { token, player: id, name });
  if (tournament) keep(tournamentKey(tournament), { token, name });
  localStorage.setItem("arbiter.lastGame", String(game));
}

// A personal link made at the console: the token alone, for this game.
export function keepLinked(gameId, token) {
  keep(gameKey(gameId), { token });
  localStorage.setItem("arbiter.lastGame", String(gameId));
}

// The player as the server knows them (name, id), for this game and the tournament's later ones.
export function keepPlayer(gameId, tournamentId, player) {
  keep(gameKey(gameId), player);
  if (tournamentId) keep(tournamentKey(tournamentId), { token: player.token, name: player.name });
}

// The slip being sent survives a reload: the page sends it again under the same key.
export const pending = {
  load: (gameId) => load(pendingKey(gameId)),
  keep: (gameId, slip) => keep(pendingKey(gameId), slip),
  drop: (gameId) => localStorage.removeItem(pendingKey(gameId)),
};

// The `seq` of the last slip made on this device (0 before any).
export const lastSeq = {
  load: (gameId) => Number(localStorage.getItem(seqKey(gameId))) || 0,
  keep: (gameId, seq) => localStorage.setItem(seqKey(gameId), String(seq)),
};
