"""Every bound of a slip is the same in the API and in the services (tournaments/limits.py; the fast path reads
the same bounds, see test_fast_slips.py): what one layer accepts, the other accepts; one more, both refuse."""

from __future__ import annotations

import pytest

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.limits import REF_MAX, SCORE_MAX, SLIP_KEY_MAX
from tournaments.models import Slip

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_round(make_game, make_player, player_client):
    game = make_game()
    player, token = make_player(game, name="Ada", table=1)
    round_ = services.round_start(round=services.round_draw(game=game, rack="AEINRST"))
    return game, round_, player, player_client(token)


def _api(client, game, round_, **slip):
    return client.post(f"/api/games/{game.pk}/rounds/{round_.number}/slips",
                       {"word": "RETAINS", "ref": "H4", **slip}, format="json")


def _service(round_, player, **slip):
    fields = {"word": "RETAINS", "ref": "H4", "score": None, "key": "k", **slip}
    try:
        services.slip_submit(round=round_, player=player, **fields)
    except ServiceError as error:
        return error.code
    return "ok"


def test_the_longest_key_is_taken_by_every_layer_and_one_more_character_by_none(open_round):
    game, round_, player, client = open_round
    assert _api(client, game, round_, key="a" * SLIP_KEY_MAX).status_code == 201
    assert _service(round_, player, key="b" * SLIP_KEY_MAX) == "ok"
    assert _api(client, game, round_, key="c" * (SLIP_KEY_MAX + 1)).status_code == 400
    assert _service(round_, player, key="d" * (SLIP_KEY_MAX + 1)) == "bad_key"
    assert set(Slip.objects.filter(round=round_).values_list("key", flat=True)) == {"a" * SLIP_KEY_MAX,
                                                                                     "b" * SLIP_KEY_MAX}


def test_the_highest_score_is_taken_by_every_layer_and_one_point_more_by_none(open_round):
    game, round_, player, client = open_round
    assert _api(client, game, round_, key="k1", score=SCORE_MAX).status_code == 201
    assert _service(round_, player, key="k2", score=SCORE_MAX) == "ok"
    assert _api(client, game, round_, key="k3", score=SCORE_MAX + 1).status_code == 400
    assert _service(round_, player, key="k4", score=SCORE_MAX + 1) == "bad_score"


def test_a_reference_longer_than_the_bound_is_refused_by_every_layer(open_round):
    game, round_, player, client = open_round
    long_ref = "H" + "0" * REF_MAX + "4"
    assert _api(client, game, round_, key="k1", ref=long_ref).status_code == 400
    assert _service(round_, player, key="k2", ref=long_ref) == "bad_ref"
    assert not Slip.objects.filter(round=round_).exists()
