"""A player keeps the language they joined in: a French phone joining an English tournament plays in French
(the player's language kept with them and in the phone's language cookie), on the play page, the review and
the player's feeds; the projector keeps the tournament's language."""

from __future__ import annotations

import pytest
from django.conf import settings

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import Player

from .api_support import assert_error, expect

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]


def test_a_french_phone_joins_an_english_tournament_and_plays_in_french(make_game, client):
    game = make_game(language="en")
    join = client.get(f"/join/{game.join_code}", HTTP_ACCEPT_LANGUAGE="fr")
    assert '<html lang="fr">' in join.content.decode()
    answer = client.post("/api/join", {"join_code": game.join_code, "name": "Hélène"}, content_type="application/json",
                         HTTP_ACCEPT_LANGUAGE="fr")
    body = expect(answer, 201)
    assert body["language"] == "fr" and Player.objects.get(pk=body["id"]).language == "fr"
    assert answer.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"  # the phone session keeps it
    # The play page after joining: French, though the tournament is English (the browser's next request
    # carries the cookie; the test client keeps it, as a phone does).
    page = client.get(f"/games/{game.pk}/play", HTTP_ACCEPT_LANGUAGE="fr")
    html = page.content.decode()
    assert page["Content-Language"] == "fr" and '<html lang="fr">' in html and "Votre bulletin" in html
    # The projector and the sheets keep the tournament's language, whatever the browser.
    projector = client.get(f"/projector/{game.screen_key}").content.decode()
    assert '<html lang="en">' in projector


def test_the_language_chosen_on_the_join_page_is_kept_over_the_browsers(make_game, api_client):
    game = make_game(language="fr")
    body = expect(api_client.post("/api/join", {"join_code": game.join_code, "name": "Ann", "language": "en"},
                                  format="json", HTTP_ACCEPT_LANGUAGE="fr"), 201)
    assert Player.objects.get(pk=body["id"]).language == "en"
    # An unknown language is refused, and nobody joins.
    count = Player.objects.count()
    error = assert_error(api_client.post("/api/join", {"join_code": game.join_code, "name": "Bo", "language": "de"},
                                         format="json"), 400)
    assert "language" in error["fields"] and Player.objects.count() == count
    # Nothing said (no field, no cookie, no Accept-Language): the tournament's language, no cookie.
    api_client.cookies.clear()  # the first join left its cookie, as on a phone
    answer = api_client.post("/api/join", {"join_code": game.join_code, "name": "Cy"}, format="json")
    assert Player.objects.get(pk=expect(answer, 201)["id"]).language == ""
    assert settings.LANGUAGE_COOKIE_NAME not in answer.cookies


def test_the_join_page_tells_its_script_the_language_it_joins_in(make_game, client):
    game = make_game(language="en")
    html = client.get(f"/join/{game.join_code}", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert '"language": "fr"' in html


def test_the_players_feeds_follow_the_player_without_the_cookie(make_game, client):
    """The review asked with the player's token alone (no cookie: another browser of the phone, a cleared
    cookie) still speaks the player's language."""
    game = make_game(language="en")
    player, token = services.player_join(join_code=game.join_code, name="Hugo", language="fr")
    for number, rack in ((1, "AEINRST"), (2, None)):
        round = services.round_draw(game=game, rack=rack)
        if number == 1:
            services.round_close(round=services.round_start(round=round))
    answer = client.get(f"/games/{game.pk}/review.json", {"round": 1}, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert answer.status_code == 200 and answer["Content-Language"] == "fr"
    page = client.get(f"/games/{game.pk}/play")  # no token, no cookie: the tournament's
    assert page["Content-Language"] == "en"


def test_the_service_refuses_an_unknown_language_with_a_code(game):
    with pytest.raises(ServiceError) as refused:
        services.player_join(join_code=game.join_code, name="Zed", language="xx")
    assert refused.value.code == "bad_language"
