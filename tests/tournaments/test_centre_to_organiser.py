"""A centre's results file pushed to the real organiser's endpoint (POST /api/events/{id}/results, tournaments/events.py)
served live by uvicorn on 127.0.0.1: the file of a game played through the services from a pack is accepted, the
same file again is "already received" (acknowledged, one record), and the organiser's merged standings are the
centre's game standings."""

from __future__ import annotations

import pytest

from tournaments import centre_results, events, packs, seal
from tournaments.event_models import ResultsFile
from tournaments.models import CentreResults
from tournaments.selectors import game_standings

from .test_centre_results import EVENT, play_round, unlocked_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def organiser_key():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate()


def test_the_file_pushed_to_the_organisers_endpoint_lands_once_and_merges_to_the_games_standings(
        uvicorn_server, settings, organiser_key, arbitrator, make_tournament, make_player):
    host, port = uvicorn_server
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(organiser_key)]
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
    settings.ARBITER_CENTRE_ID, settings.ARBITER_CENTRE_NAME = "centre-vichy", "Club de Vichy"
    game_file = packs.draw_game_file(seed=20261127, max_rounds=2, labelling="rows-numbers")
    sealed = packs.seal_pack(game_file, event=EVENT, game_id="G2", signer=organiser_key)

    # The organiser: the event, its game unlocked, this centre registered with its key and a push token.
    event = events.event_create(name=EVENT, actor=arbitrator)
    event_game = events.event_game_add(event=event, raw=packs.pack_bytes(sealed[0]))
    events.event_game_unlock(game=event_game, key=packs.key_text(sealed[1]), actor=arbitrator)
    _, token = events.centre_register(event=event, code="centre-vichy", name="Club de Vichy",
                                      public_key=packs.public_text(seal.server_key()[0]))
    settings.ARBITER_ORGANISER_URL = f"http://{host}:{port}"
    settings.ARBITER_ORGANISER_EVENT = str(event.pk)
    settings.ARBITER_ORGANISER_TOKEN = token

    # The centre plays the pack.
    game = unlocked_game(make_tournament, arbitrator, sealed)
    ada, _ = make_player(game, "Ada", table=1)
    bea, _ = make_player(game, "Bea", table=2)
    for number, recorded in enumerate(game_file.game.rounds, start=1):
        master = packs.play_to_dict(recorded.master, "rows-numbers")
        slips = {ada: (master["word"], master["ref"], master["score"])}
        if number == 1:
            slips[bea] = (master["word"], master["ref"], master["score"] + 2)
        play_round(game, arbitrator, recorded, slips)

    version = centre_results.keep_results(game)
    assert version.final
    pushed = centre_results.push_results(version.pk)
    assert pushed.outcome == "sent" and pushed.answer["status"] == 201, pushed
    # Sent again (a retry after a lost answer): "already received", acknowledged, one record.
    CentreResults.objects.filter(pk=version.pk).update(push_state=CentreResults.Push.PENDING)
    again = centre_results.push_results(version.pk)
    assert again.outcome == "sent" and again.answer["status"] == 200, again
    assert ResultsFile.objects.filter(event=event).count() == 1
    assert ResultsFile.objects.get(event=event).sha256 == version.sha256

    merged = {row["name"]: row["total"] for row in events.standings(event)["rows"]}
    assert merged == {row["name"]: row["total"] for row in game_standings(game=game)}
    assert events.differences(event) == []

    # A wrong token is the organiser's refusal: kept, not tried again.
    settings.ARBITER_ORGANISER_TOKEN = "not-the-token"
    CentreResults.objects.filter(pk=version.pk).update(push_state=CentreResults.Push.PENDING)
    refused = centre_results.push_results(version.pk)
    assert refused.outcome == "refused" and refused.answer["status"] == 401, refused
    assert CentreResults.objects.get(pk=version.pk).push_state == CentreResults.Push.REFUSED
