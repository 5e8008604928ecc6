"""Training on a past game: slips judged as the close judged them, who may train, the result and its link."""

from __future__ import annotations

import pytest
from django.core import signing
from django.test import Client

from tournaments import selectors, services
from tournaments import training_selectors as training
from tournaments.models import Game, LogEntry, Result, Round

pytestmark = pytest.mark.django_db


def _open(game: Game, value: str = "everyone") -> Game:
    return services.training_set(game=game, value=value)


def _judge(client, game, number, word, ref="", score=None):
    return client.post(f"/games/{game.pk}/train/judge", {"round": number, "word": word, "ref": ref, "score": score},
                       content_type="application/json")


def test_each_slip_gets_the_verdict_and_paid_score_of_its_real_result(played_game):
    game = _open(played_game.game)
    client = Client()
    before = sorted(Result.objects.filter(round__game=game).values_list("pk", "paid", "outcome", "reason"))
    results = list(Result.objects.filter(round__game=game, slip__isnull=False).select_related("slip", "round"))
    assert len(results) >= 10
    outcomes = set()
    for result in results:
        slip = result.slip
        body = _judge(client, game, result.round.number, slip.word, slip.ref, slip.claimed).json()
        assert (body["paid"], body["outcome"], body["reason"]) == (result.paid, result.outcome, result.reason), slip
        assert body["top_score"] == result.round.top_score
        assert body["is_top"] == (result.paid == result.round.top_score)
        outcomes.add(result.outcome)
    assert {"ok", "warning"} <= outcomes  # the game holds right slips and slips paid with a warning
    # Nothing was written: the results are as they were, and the log has no entry of the training.
    assert sorted(Result.objects.filter(round__game=game).values_list("pk", "paid", "outcome", "reason")) == before
    assert not LogEntry.objects.filter(game=game, action__startswith="train").exclude(action="training_set").exists()


def test_the_master_and_tops_are_shown_with_the_verdict(played_game):
    game = _open(played_game.game)
    round = game.rounds.get(number=2)
    body = _judge(Client(), game, 2, "", "").json()
    assert (body["paid"], body["reason"]) == (0, "no_slip")
    assert body["master"]["word"] == round.master["word"] and body["master"]["ref"] == round.master["ref"]
    assert {(t["word"], t["ref"]) for t in body["tops"]} == {(t["word"], t["ref"]) for t in round.tops}


def test_bad_input_is_refused(played_game):
    game = _open(played_game.game)
    client = Client()
    assert _judge(client, game, 99, "WORD", "H8", 10).status_code == 404
    response = client.post(f"/games/{game.pk}/train/judge", {"round": "1", "word": 5},
                           content_type="application/json")
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"round", "word"}


def test_access_closed_members_everyone(played_game, django_user_model):
    game = played_game.game
    anonymous = Client()
    member = Client()
    member.force_login(django_user_model.objects.create_user(username="member", password="pw-member-1"))
    rack = game.rounds.get(number=1).rack

    assert game.training == "closed"  # the default
    for client in (anonymous, member):
        assert client.get(f"/games/{game.pk}/train").status_code == 404
        assert _judge(client, game, 1, "", "").status_code == 404

    _open(game, "members")
    # A visitor gets the page without the rounds, nothing to judge and no rounds.
    page = anonymous.get(f"/games/{game.pk}/train")
    assert page.status_code == 200 and rack not in page.content.decode()
    assert '"members_only": true' in page.content.decode()
    assert _judge(anonymous, game, 1, "", "").status_code == 404
    assert anonymous.get(f"/games/{game.pk}/train/rounds").status_code == 404
    # A signed-in user of the site gets it all.
    page = member.get(f"/games/{game.pk}/train")
    assert page.status_code == 200 and rack in page.content.decode()
    assert _judge(member, game, 1, "", "").status_code == 200

    _open(game, "everyone")
    assert anonymous.get(f"/games/{game.pk}/train").status_code == 200
    assert _judge(anonymous, game, 1, "", "").status_code == 200


def test_members_are_the_players_of_the_club_by_their_token(played_game, make_game):
    game = _open(played_game.game, "members")
    player = Client()
    token = next(iter(played_game.tokens.values()))
    header = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    rack = game.rounds.get(number=1).rack
    # The page itself is the same shell (a navigation sends no token); the rounds come with the token.
    assert rack not in player.get(f"/games/{game.pk}/train").content.decode()
    body = player.get(f"/games/{game.pk}/train/rounds", **header).json()
    assert [r["number"] for r in body["rounds"]] == [r.number for r in training.training_rounds(game)]
    assert body["rounds"][0]["rack"] == rack and "master" not in body["rounds"][0]
    verdict = player.post(f"/games/{game.pk}/train/judge", {"round": 1, "word": "", "ref": ""},
                          content_type="application/json", **header)
    assert verdict.status_code == 200 and verdict.json()["reason"] == "no_slip"

    # A player of another club's tournament, a forged token, another scheme: not members.
    other = make_game()
    _, stranger = services.player_register(game=other, name="Zed", table=1)
    assert other.tournament_id != game.tournament_id
    for authorization in (f"Bearer {stranger}", "Bearer forged-token", f"Token {token}", "Bearer "):
        answer = player.get(f"/games/{game.pk}/train/rounds", HTTP_AUTHORIZATION=authorization)
        assert answer.status_code == 404, authorization
        answer = player.post(f"/games/{game.pk}/train/judge", {"round": 1, "word": "", "ref": ""},
                             content_type="application/json", HTTP_AUTHORIZATION=authorization)
        assert answer.status_code == 404, authorization

    # A game closed again: nothing, token or not.
    _open(game, "closed")
    assert player.get(f"/games/{game.pk}/train").status_code == 404
    assert player.get(f"/games/{game.pk}/train/rounds", **header).status_code == 404


def test_a_game_not_over_is_never_shown(make_game, arbitrator):
    game = make_game()
    _open(game)
    services.player_register(game=game, name="Ann", table=1)
    round = services.round_draw(game=game, rack=None, actor=arbitrator)
    services.round_start(round=round, actor=arbitrator)
    client = Client()
    response = client.get(f"/games/{game.pk}/train")
    assert response.status_code == 404 and round.rack not in response.content.decode()
    assert _judge(client, game, 1, "", "").status_code == 404
    assert client.post(f"/games/{game.pk}/train/result", {"name": "x", "proofs": []},
                       content_type="application/json").status_code == 404


def _train_all(client, game, top_round: int | None = 1):
    """Play every round: the master in ``top_round``, nothing elsewhere; return the verdicts."""
    verdicts = []
    for round in game.rounds.filter(status=Round.Status.CLOSED).order_by("number"):
        master = round.master
        if round.number == top_round:
            verdicts.append(_judge(client, game, round.number, master["word"], master["ref"], master["score"]).json())
        else:
            verdicts.append(_judge(client, game, round.number, "", "").json())
    return verdicts


def test_result_rank_and_share_link(played_game):
    game = _open(played_game.game)
    client = Client()
    verdicts = _train_all(client, game)
    proofs = [v["proof"] for v in verdicts]
    body = client.post(f"/games/{game.pk}/train/result", {"name": "Zoé", "proofs": proofs},
                       content_type="application/json").json()
    total = verdicts[0]["paid"]
    tops = sum(r.top_score for r in game.rounds.filter(status=Round.Status.CLOSED))
    standings = selectors.game_standings(game=game)
    assert (body["total"], body["top_total"]) == (total, tops)
    assert body["percent"] == round(100 * total / tops, 2)
    assert body["rank"] == 1 + sum(1 for row in standings if row["total"] > total)
    # The trainee is ranked among the real players: one more than the game's, and never ranked past the last.
    assert body["players"] == len(standings) + 1
    assert body["rank"] <= body["players"]

    page = client.get(body["url"])
    text = page.content.decode()
    assert page.status_code == 200 and "Zoé" in text and f"{total} of {tops} points" in text

    # A link whose content was changed (a better total) is refused.
    forged_body = {"g": game.pk, "n": "Zoé", "t": tops, "tt": tops, "rk": 1, "np": len(standings)}
    forged = signing.dumps(forged_body, salt=training.RESULT_SALT, key="not-the-server-key", compress=True)
    assert client.get(f"/games/{game.pk}/train/result/{forged}").status_code == 404
    payload, signature = body["token"].rsplit(":", 1)
    assert client.get(f"/games/{game.pk}/train/result/{payload}x:{signature}").status_code == 404
    # A genuine link shown under another game's number is refused too.
    other = Game.objects.exclude(pk=game.pk).first()
    if other is not None:
        assert client.get(f"/games/{other.pk}/train/result/{body['token']}").status_code == 404


def test_a_forged_or_missing_verdict_is_refused(played_game):
    game = _open(played_game.game)
    client = Client()
    verdicts = _train_all(client, game)
    proofs = [v["proof"] for v in verdicts]
    forged = signing.dumps({"g": game.pk, "r": 1, "p": 999, "o": "ok"}, salt=training.VERDICT_SALT, key="guess",
                           compress=True)
    response = client.post(f"/games/{game.pk}/train/result", {"name": "x", "proofs": [forged, *proofs[1:]]},
                           content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "training_bad_proof"
    response = client.post(f"/games/{game.pk}/train/result", {"name": "x", "proofs": proofs[1:]},
                           content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "training_unfinished"


def test_judging_is_throttled_per_address(played_game, settings):
    game = _open(played_game.game)
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                                          "training": "3/min"}}
    client = Client()
    codes = [_judge(client, game, 1, "", "").status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]


def test_api_opens_training_head_arbitrator_only(played_game, arbitrator_client, api_client, django_user_model):
    game = played_game.game
    url = f"/api/games/{game.pk}/training"
    body = arbitrator_client.post(url, {"open": "members"}, format="json").json()
    assert body == {"game": game.pk, "training": "members", "url": f"/games/{game.pk}/train"}
    game.refresh_from_db()
    assert game.training == "members"
    assert LogEntry.objects.filter(game=game, action="training_set").last().after == {"training": "members"}
    response = arbitrator_client.post(url, {"open": "anyone"}, format="json")
    assert response.status_code == 400 and "open" in response.json()["error"]["fields"]
    game.refresh_from_db()
    assert game.training == "members"
    assert api_client.post(url, {"open": "everyone"}, format="json").status_code in (401, 403)
    other = django_user_model.objects.create_user(username="assistant1", password="pw-assist-1", is_staff=True)
    services.arbitrator_set(game=game, username=other.username, role="assistant", actor=arbitrator_client.user)
    from rest_framework.test import APIClient

    assistant = APIClient()
    assistant.force_authenticate(other)
    response = assistant.post(url, {"open": "everyone"}, format="json")
    assert response.status_code == 403 and response.json()["error"]["code"] == "head_only"


def test_console_control_on_the_game_page(played_game, arbitrator):
    game = played_game.game
    client = Client()
    client.force_login(arbitrator)
    page = client.get(f"/console/games/{game.pk}/").content.decode()
    assert 'id="training-control"' in page and 'value="closed" checked' in page
    response = client.post(f"/console/games/{game.pk}/training/", {"open": "everyone"})
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.training == "everyone"
    assert f'href="/games/{game.pk}/train"' in client.get(f"/console/games/{game.pk}/").content.decode()
    client.post(f"/console/games/{game.pk}/training/", {"open": "nonsense"})
    game.refresh_from_db()
    assert game.training == "everyone"  # refused, unchanged



def _result(client, game, proofs, name="x"):
    return client.post(f"/games/{game.pk}/train/result", {"name": name, "proofs": proofs},
                       content_type="application/json")


def test_the_first_verdict_of_a_round_counts_and_a_retry_is_practice(played_game):
    """A weak first try, then the top as a retry (the browser known by its cookie): the retry is practice,
    signed so, and the result counts the weak try; a retry's proof passed off as a counted verdict, or
    altered, is refused and changes nothing."""
    game = _open(played_game.game)
    client = Client()
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    master = rounds[0].master
    first = _judge(client, game, 1, "", "").json()  # no slip: paid 0
    assert first["counted"] is True and first["paid"] == 0
    retry = _judge(client, game, 1, master["word"], master["ref"], master["score"]).json()
    assert retry["is_top"] and retry["counted"] is False  # the top, as practice
    assert signing.loads(retry["proof"], salt=training.VERDICT_SALT)["c"] == 0
    others = [_judge(client, game, r.number, "", "").json() for r in rounds[1:]]
    assert all(v["counted"] for v in others)
    rest = [v["proof"] for v in others]

    # The retry alone for round 1: refused, it counts for nothing.
    answer = _result(client, game, [retry["proof"], *rest])
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "training_not_counted"
    assert "first verdict of a round counts" in answer.json()["error"]["message"]
    # The retry's proof altered into a counted one: its signature no longer holds.
    data = signing.loads(retry["proof"], salt=training.VERDICT_SALT)
    forged = signing.dumps({**data, "c": 1}, salt=training.VERDICT_SALT, key="not-the-server-key", compress=True)
    payload, signature = retry["proof"].rsplit(":", 1)
    for bad in (forged, f"{payload}x:{signature}"):
        answer = _result(client, game, [bad, *rest])
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "training_bad_proof"
    # Nothing changed: round 1 judged again is still practice, and the result counts the weak first try.
    again = _judge(client, game, 1, master["word"], master["ref"], master["score"]).json()
    assert again["counted"] is False
    body = _result(client, game, [retry["proof"], first["proof"], again["proof"], *rest], name="Zoé").json()
    assert (body["total"], body["percent"]) == (0, 0)
    tops = sum(r.top_score for r in rounds)
    assert f"0 of {tops} points" in client.get(body["url"]).content.decode()


def test_starting_again_keeps_the_first_verdicts(played_game):
    """The browser's key is a cookie of the game's training, kept when the page starts the training again:
    every round judged again is practice; another browser is another training, whose verdicts do not mix."""
    game = _open(played_game.game)
    rounds = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
    client = Client()
    firsts = [_judge(client, game, r.number, "", "").json() for r in rounds]
    cookie = f"training-trainee-{game.pk}"
    assert client.cookies[cookie]["path"] == f"/games/{game.pk}/train" and client.cookies[cookie]["httponly"]
    tops = [_judge(client, game, r.number, r.master["word"], r.master["ref"], r.master["score"]).json()
            for r in rounds]
    assert [v["counted"] for v in firsts] == [True] * len(rounds)
    assert [v["counted"] for v in tops] == [False] * len(rounds)
    # A browser without the cookie (or with one not signed here) trains afresh: its first verdicts count for it.
    stranger, forger = Client(), Client()
    forger.cookies[cookie] = "a0123456789abcdef01234567:forged"
    for other in (stranger, forger):
        fresh = _judge(other, game, 1, rounds[0].master["word"], rounds[0].master["ref"],
                       rounds[0].master["score"]).json()
        assert fresh["counted"] is True
        answer = _result(client, game, [fresh["proof"], *[v["proof"] for v in firsts[1:]]])
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "training_other_trainee"


def test_a_member_is_known_without_the_cookie(played_game, django_user_model):
    """A signed-in user, or a player of the club by their token, is known by who they are: a retry from a
    browser without the cookie stays practice."""
    game = _open(played_game.game, "members")
    user = django_user_model.objects.create_user(username="member2", password="pw-member-2")
    counted = []
    for _ in range(2):
        member = Client()
        member.force_login(user)
        counted.append(_judge(member, game, 1, "", "").json()["counted"])
    assert counted == [True, False]
    header = {"HTTP_AUTHORIZATION": f"Bearer {next(iter(played_game.tokens.values()))}"}
    judged = [Client().post(f"/games/{game.pk}/train/judge", {"round": 1, "word": "", "ref": ""},
                            content_type="application/json", **header).json()["counted"] for _ in range(2)]
    assert judged == [True, False]


def test_a_trainee_below_every_player_is_last_not_past_the_last(played_game):
    """A trainee who hands in nothing ranks after every player who scored: "N+1 of N+1", not "N+1 of N"."""
    game = _open(played_game.game)
    client = Client()
    verdicts = _train_all(client, game, top_round=None)
    body = client.post(f"/games/{game.pk}/train/result", {"name": "Zoé", "proofs": [v["proof"] for v in verdicts]},
                       content_type="application/json").json()
    standings = selectors.game_standings(game=game)
    scored = sum(1 for row in standings if row["total"] > 0)
    assert body["total"] == 0 and scored == len(standings) > 0
    assert (body["rank"], body["players"]) == (len(standings) + 1, len(standings) + 1)


def test_the_page_gives_a_sets_labels_and_digraph_keys_as_the_phone(played_game):
    # English: no labels, no keys (the page as it was). A tournament on the Spanish set: the rack, board and
    # verdict words are shown with its labels (CH for Θ), and the slip form has the phone's keys.
    game = _open(played_game.game)
    config = Client().get(f"/games/{game.pk}/train").context["config"]
    assert "labels" not in config and "keys" not in config
    tournament = game.tournament
    tournament.tileset = "spanish"
    tournament.save(update_fields=["tileset"])
    config = Client().get(f"/games/{game.pk}/train").context["config"]
    assert config["labels"]["Θ"] == "CH" and config["labels"]["Δ"] == "Ñ"
    assert sorted(config["keys"]) == ["CH", "LL", "RR", "Ñ"] and config["keys_label"]
