"""A player's slip through the ASGI application as uvicorn serves it: the common case is answered before
Django's request machinery (tournaments/api/fast.py) with the API's own answers; anything unusual goes on
to Django and is answered exactly as before."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.api import fast
from tournaments.models import Result, Slip

from .api_support import asgi_post

pytestmark = pytest.mark.django_db(transaction=True)

RACK = "ACEILMN"
TOP = {"word": "MELANIC", "ref": "H4", "score": 78}


def post(path: str, body, token: str | None = None, host: bytes = b"localhost", raw: bytes | None = None):
    """POST a player's slip through arbiter.asgi.application: (status, headers, JSON body)."""
    return asgi_post(path, body, f"Bearer {token}" if token else None, host=host, raw=raw)


@pytest.fixture
def hall(make_game, make_player, settings, isolated_cache):
    settings.ALLOWED_HOSTS = ["localhost"]
    game = make_game(round_seconds=180)
    (ann, ann_token), (bob, bob_token) = make_player(game, "Ann"), make_player(game, "Bob")
    round_ = services.round_start(round=services.round_draw(game=game, rack=RACK))
    url = f"/api/games/{game.pk}/rounds/{round_.number}/slips"
    return {"game": game, "round": round_, "url": url, "ann": (ann, ann_token), "bob": (bob, bob_token)}


def served(action):
    before = fast.served["fast"]
    answer = action()
    return answer, fast.served["fast"] - before


def test_a_players_slip_is_served_before_django_with_the_apis_answers(hall):
    ann, token = hall["ann"]
    (status, headers, body), fast_count = served(lambda: post(hall["url"], {**TOP, "key": "a1", "seq": 5}, token))
    assert (status, fast_count) == (201, 1)
    assert headers["content-type"] == "application/json"
    slip = Slip.objects.get(round=hall["round"], player=ann, current=True)
    slip_fields = {"id": slip.pk, "round": 1, "player": ann.pk, "word": "MELANIC", "ref": "H4", "score": 78,
                   "key": "a1", "seq": 5, "received_at": slip.received_at.isoformat(), "entered_by": None}
    receipt = body.pop("receipt")
    assert body == {**slip_fields, "replayed": False, "replaced": None}
    assert receipt["slip"] == slip.pk and receipt["received_at"] == slip_fields["received_at"]
    # The same key again: the first slip, 200, marked replayed; with another content: 409 key_reused.
    assert post(hall["url"], {**TOP, "key": "a1", "seq": 5}, token)[:3:2] == (200, {**body, "replayed": True,
                                                                                "receipt": receipt})
    status, _, error = post(hall["url"], {**TOP, "score": 70, "key": "a1"}, token)
    assert (status, error["error"]["code"]) == (409, "key_reused")
    # An older slip than the one held: 409 stale_slip with the held slip, as the API says it.
    status, _, error = post(hall["url"], {**TOP, "score": 70, "key": "a0", "seq": 4}, token)
    assert (status, error["error"]["code"], error["error"]["fields"]["slip"]) == (409, "stale_slip", slip_fields)
    assert Slip.objects.filter(round=hall["round"]).count() == 1


def test_a_replayed_key_whose_slip_was_replaced_answers_the_slip_held_now(hall):
    """On the fast path as through Django (tests/tournaments/test_slip_order.py): the replayed key's slip
    under "replaced", the slip that counts in the body."""
    ann, token = hall["ann"]
    (_, _, first), _ = served(lambda: post(hall["url"], {**TOP, "key": "r1", "seq": 1}, token))
    (_, _, second), _ = served(lambda: post(hall["url"], {"word": "CLAIMED", "ref": "8D", "score": 20, "key": "r2",
                                                           "seq": 2}, token))
    (status, _, replay), fast_count = served(lambda: post(hall["url"], {**TOP, "key": "r1", "seq": 1}, token))
    assert (status, fast_count) == (200, 1)
    plain = {k: v for k, v in second.items() if k not in ("replayed", "replaced", "receipt")}
    assert replay == {**plain, "replayed": True, "receipt": second["receipt"],
                      "replaced": {k: v for k, v in first.items() if k not in ("replayed", "replaced", "receipt")}}
    assert Slip.objects.get(round=hall["round"], player=ann, current=True).pk == second["id"]
    assert Slip.objects.filter(round=hall["round"], player=ann).count() == 2


def test_what_the_api_refuses_in_a_body_is_refused_alike_before_django(hall):
    """JSON nested too deep and values of the wrong JSON type: never served here, never a 500; Django
    refuses them as it does on every endpoint (tests/tournaments/test_api_bodies.py)."""
    _, token = hall["ann"]
    deep = "[" * 20_000 + "]" * 20_000
    nested = ('{"word":' * 33) + '"MELANIC"' + "}" * 33
    for raw in (deep.encode(), nested.encode()):
        (status, _, error), fast_count = served(lambda raw=raw: post(hall["url"], None, token, raw=raw))
        assert (status, error["error"]["code"], fast_count) == (400, "too_deep", 0)
    for change, field in [({"score": 78.0}, "score"), ({"score": True}, "score"), ({"seq": "5"}, "seq"),
                          ({"word": 0}, "word"), ({"key": 7}, "key"), ({"ref": 48}, "ref"),
                          ({"score": 5001}, "score")]:
        body = {**TOP, "key": "t1", **change}
        (status, _, error), fast_count = served(lambda body=body: post(hall["url"], body, token))
        assert (status, error["error"]["code"], list(error["error"]["fields"]), fast_count) == (
            400, "invalid", [field], 0), body
    assert not Slip.objects.exists()


def test_a_slip_after_the_close_is_refused_and_one_that_arrived_in_time_is_judged(hall):
    bob, token = hall["bob"]
    services.round_close(round=hall["round"])
    (status, _, error), fast_count = served(lambda: post(hall["url"], {**TOP, "key": "b1"}, token))
    assert (status, error["error"]["code"], fast_count) == (409, "round_closed", 1)
    assert not Slip.objects.filter(player=bob).exists()


def test_anything_unusual_goes_to_django_and_is_answered_as_before(hall):
    _, token = hall["ann"]
    cases = [
        ({**TOP, "ref": "Z99", "key": "x1"}, token, 400, "bad_ref"),
        ({**TOP, "key": "x2"}, "not-a-token", 401, "authentication_failed"),
        ({k: v for k, v in TOP.items()}, token, 400, "invalid"),  # no key
        ({**TOP, "key": "x3", "player": hall["bob"][0].pk}, token, 403, "not_your_slip"),
        ({**TOP, "key": "x4", "score": "78"}, token, 400, "invalid"),  # a number as text: refused
        ({**TOP, "word": " MELANIC ", "key": "x5"}, token, 201, None),  # spaces: Django trims them
    ]
    for body, who, status, code in cases:
        (answer, _, error), fast_count = served(lambda body=body, who=who: post(hall["url"], body, who))
        assert (answer, fast_count) == (status, 0), (body, error)
        if code is not None:
            assert error["error"]["code"] == code, (body, error)
    # Malformed JSON and an unknown host are Django's to refuse too.
    (answer, _, error), fast_count = served(lambda: post(hall["url"], None, token, raw=b"{not json"))
    assert (answer, error["error"]["code"], fast_count) == (400, "malformed", 0)
    (answer, _, _), fast_count = served(lambda: post(hall["url"], {**TOP, "key": "x6"}, token, host=b"evil.example"))
    assert (answer, fast_count) == (400, 0)


def test_a_slip_stamped_before_the_deadline_but_served_after_the_close_counts(hall, monkeypatch):
    """The arrival stamp reaches the service through the fast path: a slip stamped in time is accepted
    after the close and judged at once."""
    from arbiter import arrival

    ann, token = hall["ann"]
    round_ = hall["round"]
    deadline = timezone.now() + timedelta(seconds=1)
    round_.__class__.objects.filter(pk=round_.pk).update(deadline=deadline)
    stamp = deadline.timestamp() - 0.2
    # The request arrives 0.2 s before the deadline (the stamp's clock, only).
    monkeypatch.setattr(arrival, "time", SimpleNamespace(time=lambda: stamp))
    services.round_close_if_due(round_id=round_.pk, now=deadline + timedelta(milliseconds=5))
    (status, _, body), fast_count = served(lambda: post(hall["url"], {**TOP, "key": "late-but-in-time"}, token))
    assert (status, fast_count) == (201, 1)
    result = Result.objects.get(round=round_, player=ann)
    assert (result.slip_id, result.paid) == (body["id"], 78)


def test_the_fast_answer_is_the_serializers_for_a_new_and_a_replayed_slip(hall):
    """The fast path writes a slip's answer out by hand (no DRF): the same body as SlipAnswerSerializer's,
    new (201) and replayed (200), receipt included (its seal is over the same content)."""
    from tournaments.api import serializers as s

    _, token = hall["bob"]
    for expected_status, replayed in ((201, False), (200, True)):
        status, _, body = post(hall["url"], {**TOP, "score": 70, "key": "b1", "seq": 3}, token)
        slip = Slip.objects.select_related("round").get(round=hall["round"], key="b1")
        assert (status, body) == (expected_status, s.SlipAnswerSerializer(s.SlipAnswer(slip, replayed=replayed)).data)
        assert list(body) == list(s.SlipAnswerSerializer(s.SlipAnswer(slip, replayed=replayed)).data)


def test_the_player_and_the_round_are_read_in_one_query_as_each_alone(hall, make_player, django_assert_num_queries):
    """selectors.player_and_round: the token's player and the round with its game and tournament, as
    player_for_token and round_with_game find them, in one query; None when either is missing."""
    from tournaments import selectors

    game, (ann, token) = hall["game"], hall["ann"]
    with django_assert_num_queries(1):
        player, round_ = selectors.player_and_round(game_id=game.pk, number=1, token=token)
    assert player == selectors.player_for_token(game_id=game.pk, token=token) == ann
    alone = selectors.round_with_game(game_id=game.pk, number=1)
    assert (round_, round_.game, round_.game.tournament) == (alone, alone.game, alone.game.tournament)
    assert round_.status == alone.status and round_.game.tournament.coordinates == alone.game.tournament.coordinates
    assert selectors.player_and_round(game_id=game.pk, number=1, token=token + "x") is None
    assert selectors.player_and_round(game_id=game.pk, number=2, token=token) is None
    assert selectors.player_and_round(game_id=2**70, number=1, token=token) is None
    later = services.game_create(tournament=game.tournament)
    _, later_token = make_player(later, "Cy")  # joined in game 2: not a player of game 1
    assert selectors.player_for_token(game_id=game.pk, token=later_token) is None
    assert selectors.player_and_round(game_id=game.pk, number=1, token=later_token) is None
