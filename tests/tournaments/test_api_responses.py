"""A whole game played through the API, every answer checked against the API's own schema (/api/schema/):
the bodies the views build must be what the schema documents, field by field."""

from __future__ import annotations

import json

import pytest
import requests
import schemathesis
from rest_framework.test import APIClient
from schemathesis.core.transport import Response

from tournaments.models import Round

from .api_support import expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]


class Recorder:
    """Wraps API clients: every answer is kept with its method and path."""

    def __init__(self):
        self.answers: list[tuple[str, str, object]] = []

    def wrap(self, client: APIClient) -> APIClient:
        for method in ("get", "post"):
            call = getattr(client, method)

            def recorded(path, *args, _call=call, _method=method, **kwargs):
                answer = _call(path, *args, **kwargs)
                self.answers.append((_method.upper(), path.split("?")[0], answer))
                return answer

            setattr(client, method, recorded)
        return client


def _as_schemathesis(method: str, path: str, answer) -> Response:
    headers = {name.lower(): [value] for name, value in answer.items()}
    prepared = requests.Request(method, f"http://testserver{path}").prepare()
    return Response(status_code=answer.status_code, headers=headers, content=answer.content, request=prepared,
                    elapsed=0.0, verify=False)


def test_every_answer_of_a_whole_game_matches_the_schema(api_game, arbitrator_client):
    raw = APIClient().get("/api/schema/", {"format": "json"})
    assert raw.status_code == 200
    schema = schemathesis.openapi.from_dict(json.loads(raw.content))
    recorder = Recorder()
    game = api_game(players=2)
    arb = recorder.wrap(game.arbitrator)
    a, b = (recorder.wrap(seat.client) for seat in game.players)
    anyone = recorder.wrap(APIClient())

    anyone.post("/api/join", {"join_code": game.join_code, "name": "Zoé"}, format="json")
    arb.get(game.url())
    a.get(game.url())
    for number, (rack, word, ref) in enumerate([("EIRST?A", "aSTERIA", "H8"), (None, None, None)], start=1):
        arb.post(game.url("/rounds"), {"rack": rack} if rack else {}, format="json")
        arb.get(game.url(f"/rounds/{number}"))
        arb.post(game.round_url(number, "/start"), {}, format="json")
        anyone.get(game.url("/live"))
        a.get(game.url("/me"))
        round_ = Round.objects.get(game_id=game.id, number=number)
        top = (round_.tops or [{}])[0] if round_.tops_ready else {}
        a.post(game.round_url(number, "/slips"),
               {"word": word or top.get("word", "ZZZ"), "ref": ref or top.get("ref", "H8"), "key": f"a{number}"},
               format="json")
        a.post(game.round_url(number, "/slips"),
               {"word": word or top.get("word", "ZZZ"), "ref": ref or top.get("ref", "H8"), "key": f"a{number}"},
               format="json")  # the same key again: a replay
        arb.post(game.round_url(number, "/slips"), {"table": 2, "word": "ZZZ", "ref": "A1"}, format="json")
        arb.get(game.url("/progress"))
        a.get(game.url(f"/rounds/{number}"))  # before the close: refused or without the tops
        arb.post(game.round_url(number, "/close"), {}, format="json")
        arb.get(game.url(f"/rounds/{number}"))
        b.get(game.url(f"/rounds/{number}"))
        arb.get(game.url("/standings"))
        a.get(game.url("/standings"))
    arb.post(game.round_url(1, "/master"), {"word": "x", "ref": "H8"}, format="json")  # a refusal, documented
    arb.post(game.url("/end"), {}, format="json")
    arb.get(f"/api/tournaments/{game.tournament_id}/standings")
    arb.get(game.url())
    arb.get(game.url("/exports/record.json"))

    checked = 0
    failures = []
    for method, path, answer in recorder.answers:
        operation = schema.find_operation_by_path(method, path)
        assert operation is not None, (method, path)
        try:
            operation.validate_response(_as_schemathesis(method, path, answer))
        except Exception as error:  # a FailureGroup: every way the answer differs from the schema
            failures.append((method, path, answer.status_code, str(error)[:600]))
        checked += 1
    assert not failures, failures
    statuses = {answer.status_code for *_, answer in recorder.answers}
    assert checked >= 35 and {200, 201} <= statuses and statuses & {400, 403, 409}, (checked, statuses)
    assert expect(arbitrator_client.get(game.url()), 200)["status"] == "over"

    # The check can fail: the game's state with a field of the wrong type is not what the schema documents.
    state = arbitrator_client.get(game.url())
    state.content = json.dumps({**state.json(), "bag_count": "many"}).encode()
    with pytest.raises(Exception, match="bag_count|many"):
        schema.find_operation_by_path("GET", game.url()).validate_response(_as_schemathesis("GET", game.url(), state))


def test_the_answer_serializers_declare_every_key_the_selectors_give(api_game):
    """The output serializers produce the bodies: a key a selector adds and no serializer declares would
    never reach the API. Every body-building selector's keys are declared, on a game with a closed round."""
    from tournaments import selectors
    from tournaments.api import serializers as s
    from tournaments.live import snapshot as live_snapshot
    from tournaments.models import Game, Player

    game = api_game(players=2)
    expect(game.arbitrator.post(game.url("/rounds"), {"rack": "EIRST?A"}, format="json"), 201)
    expect(game.arbitrator.post(game.round_url(1, "/start"), {}, format="json"), 200)
    expect(game.players[0].client.post(game.round_url(1, "/slips"), {"word": "aSTERIA", "ref": "H8", "key": "k"},
                                       format="json"), 201)
    expect(game.arbitrator.post(game.round_url(1, "/close"), {}, format="json"), 200)
    model = Game.objects.get(pk=game.id)
    round_ = model.rounds.get(number=1)
    player = Player.objects.get(pk=game.players[0].id)
    bodies = [
        (s.GameStateSerializer, selectors.game_state(game=model)),
        (s.RoundDetailSerializer, selectors.round_detail(round=round_, arbitrator=True)),
        (s.RoundDetailSerializer, selectors.round_detail(round=round_, player=player)),
        (s.ProgressSerializer, selectors.game_progress(game=model)),
        (s.LiveSerializer, live_snapshot.live_body(model.pk)),
        *((s.StandingRowSerializer, row) for row in selectors.game_standings(game=model)),
        *((s.TournamentStandingRowSerializer, row)
          for row in selectors.tournament_standings(tournament=model.tournament)),
        *((s.ResultRowSerializer, row) for row in selectors.round_detail(round=round_)["results"]),
    ]
    undeclared = {serializer.__name__: sorted(set(body) - set(serializer().fields))
                  for serializer, body in bodies if set(body) - set(serializer().fields)}
    assert undeclared == {}
    # And what a serializer makes of a selector's body is that body (nothing dropped, nothing retyped).
    state = selectors.game_state(game=model)
    assert dict(s.GameStateSerializer(state).data) == state
