"""Topping's quick start (docs/rules.md 7.5): the arbitrator draws and starts at once, before the worker has
computed the round's tops, and a player hands in the top straight away. The try computes the tops itself
(services/topping.py with_tops) and its answer is the judgement's: found, in its real seconds; the next try
is refused 409 ``top_found``; the standings count the top found in those seconds.

Everything goes through real HTTP to uvicorn (the arbitrator's draw, start and close, the phones' slips, the
standings), on both paths a phone's slip can take: the fast path (tournaments/api/fast.py) and Django's
(a slip the fast path leaves to Django: here, spaces around the word). No worker runs: the draw's tops task
stays queued, as it is while a busy worker has not reached it yet."""

from __future__ import annotations

import http.client
import json
import math

import pytest

from engine.board import Board
from engine.notation import format_ref
from engine.search import find_tops
from tournaments.api import fast
from tournaments.lexicons import get_lexicon
from tournaments.models import Round, Slip, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("isolated_cache")]

RACK = "ACEILMN"


def call(address, method: str, path: str, body: dict | None = None, *, auth: str) -> tuple[int, dict]:
    """One request over HTTP/1.1 to the server at ``address``: (status, JSON body)."""
    conn = http.client.HTTPConnection(*address, timeout=30)
    try:
        content = json.dumps(body if body is not None else {}).encode()
        headers = {"Content-Type": "application/json", "Authorization": auth, "Host": address[0]}
        conn.request(method, path, body=content if method == "POST" else None, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["fast", "django"])
def test_a_top_handed_in_right_after_a_quick_start_is_found(uvicorn_server, api_game, settings, path):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the setting up, by the test client
    game = api_game(players=2, seed=5, variant="topping", lexicon="TWL06")
    tournament = Tournament.objects.get(pk=game.tournament_id)
    arbitrator = game.arbitrator._credentials["HTTP_AUTHORIZATION"]
    (ann, bob), server = game.players, uvicorn_server

    # The top of the rack the arbitrator types, known before the draw: the try goes in at once after the start.
    tops = find_tops(Board.from_rows(["." * 15] * 15), RACK, get_lexicon("TWL06"), tournament.tiles,
                     tournament.rules)
    play = tops.plays[0]
    top = {"word": play.word, "ref": format_ref(play.row, play.col, play.horizontal, tournament.coordinates),
           "score": play.score, "key": "a1"}
    if path == "django":
        top["word"] = f" {play.word} "  # the fast path leaves it to Django, which trims it

    # Drawn and started at once: no worker has computed the tops.
    status, drawn = call(server, "POST", game.url("/rounds"), {"rack": RACK}, auth=arbitrator)
    assert (status, drawn["rack"]) == (201, RACK), drawn
    status, started = call(server, "POST", game.round_url(1, "/start"), auth=arbitrator)
    assert status == 200, started
    assert Round.objects.get(game_id=game.id, number=1).tops_ready is False

    before = fast.served["fast"]
    status, tried = call(server, "POST", game.round_url(1, "/slips"), top, auth=f"Bearer {ann.token}")
    assert status == 201, tried
    assert fast.served["fast"] - before == (1 if path == "fast" else 0)
    slip = Slip.objects.get(round__game_id=game.id, player_id=ann.id)
    round_ = Round.objects.get(game_id=game.id, number=1)
    assert round_.tops_ready and round_.top_score == play.score
    seconds = math.floor((slip.received_at - round_.started_at).total_seconds())
    assert tried["topping"] == {"found": True, "found_after": seconds}

    # The next try: refused, its seconds those of the found top; nothing written.
    wrong = {"word": "QZXJV", "ref": top["ref"], "score": 10, "key": "a2"}
    status, refused = call(server, "POST", game.round_url(1, "/slips"), wrong, auth=f"Bearer {ann.token}")
    assert (status, refused["error"]["code"], refused["error"]["fields"]) == (409, "top_found",
                                                                             {"found_after": seconds})
    assert Slip.objects.filter(round__game_id=game.id, player_id=ann.id).count() == 1

    # The standings: Ann found the top in those seconds; Bob, who handed in nothing, did not.
    status, closed = call(server, "POST", game.round_url(1, "/close"), auth=arbitrator)
    assert status == 200, closed
    status, standings = call(server, "GET", game.url("/standings"), auth=arbitrator)
    assert status == 200, standings
    rows = {row["player"]: row for row in standings}
    rules = tournament.rules
    assert (rows[ann.id]["seconds"], rows[ann.id]["tops"]) == (seconds, 1)
    assert (rows[bob.id]["seconds"], rows[bob.id]["tops"]) == (rules.round_seconds + rules.topping_penalty, 0)
