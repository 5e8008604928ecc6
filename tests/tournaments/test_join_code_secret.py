"""The join code is a secret of the room: only the projector and the console show it.

Game numbers are sequential, so every address built from one can be guessed. Walking through them all,
anonymously, must never reveal a code; the projector is reached only through the key the console gives out.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tournaments.models import Game, LogEntry
from tournaments.services import round_close, round_draw, round_start, slip_submit


def _guessable_addresses(game_id: int, tournament_id: int) -> list[str]:
    """Every page, feed and API address that a game's number (or its tournament's) opens, anonymously."""
    return [
        "/",
        "/join",
        f"/games/{game_id}/play",
        f"/games/{game_id}/projector",
        f"/games/{game_id}/live",
        f"/games/{game_id}/live?clock=1",
        f"/games/{game_id}/mine",
        f"/api/games/{game_id}",
        f"/api/games/{game_id}/live",
        f"/api/games/{game_id}/progress",
        f"/api/games/{game_id}/standings",
        f"/api/games/{game_id}/players",
        f"/api/games/{game_id}/rounds",
        f"/api/games/{game_id}/rounds/1",
        f"/api/games/{game_id}/me",
        f"/api/games/{game_id}/sheets/standings.pdf",
        f"/api/games/{game_id}/sheets/record.pdf",
        f"/api/games/{game_id}/exports/standings.csv",
        f"/api/games/{game_id}/exports/record.json",
        f"/api/tournaments/{tournament_id}/games",
        f"/api/tournaments/{tournament_id}/standings",
        f"/console/games/{game_id}/players/",
    ]


@pytest.mark.django_db(transaction=True)
def test_no_guessable_address_reveals_a_join_code(client, make_game, make_player):
    games = [make_game(name=f"Club {n}") for n in range(3)]
    # One game in play with a closed round, one with an open round, one waiting.
    player, token = make_player(games[0], name="Ada", table=1)
    first = round_draw(game=games[0], rack="AEINRST")
    round_start(round=first)
    slip_submit(round=first, player=player, word="RETAINS", ref="H4", score=66, key="k1")
    round_close(round=first)
    round_start(round=round_draw(game=games[1], rack="EEILNST"))
    codes = {game.join_code for game in Game.objects.all()}
    top = max(game.pk for game in games)

    seen = 0
    for game_id in range(1, top + 3):  # every number up to the last, and two beyond
        for address in _guessable_addresses(game_id, games[0].tournament_id):
            answer = client.get(address, HTTP_ACCEPT_LANGUAGE="en")
            body = b"".join(answer.streaming_content) if answer.streaming else answer.content
            text = body.decode("latin-1")
            for code in codes:
                assert code not in text, (address, answer.status_code)
            seen += 1
            if "/projector" in address:
                assert answer.status_code == 404, address
    assert seen >= 3 * len(_guessable_addresses(1, 1))

    # The player's own phone page shows no code either: its "join" link leads to the empty join page.
    phone = client.get(reverse("phone", args=[games[0].pk])).content.decode()
    assert f'href="{reverse("join")}"' in phone
    assert not any(code in phone for code in codes)


@pytest.mark.django_db
def test_the_projector_is_reached_through_the_key_the_console_gives(client, arbitrator, make_game):
    game = make_game()
    old_key = game.screen_key
    assert len(old_key) >= 22 and re.fullmatch(r"[A-Za-z0-9_-]+", old_key)  # 128 random bits, URL-safe
    assert old_key != make_game().screen_key

    # Anonymous: the number does not open it; the key does, with the code and its QR link for the room.
    assert client.get(f"/games/{game.pk}/projector").status_code == 404
    projector = client.get(reverse("projector", args=[old_key]))
    assert projector.status_code == 200
    assert game.join_code in projector.content.decode()
    wrong = client.get(reverse("projector", args=[old_key[:-1] + ("A" if old_key[-1] != "A" else "B")]))
    assert wrong.status_code == 404 and game.join_code not in wrong.content.decode()

    # The console gives the link; a new link makes the old one answer 404, and the change is logged.
    client.force_login(arbitrator)
    players = client.get(reverse("console-players", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert players.context["projector_url"] == f"http://testserver/projector/{old_key}"
    assert f'href="/projector/{old_key}"' in client.get(reverse("console-game", args=[game.pk])).content.decode()
    renewed = client.post(reverse("console-projector-link-renew", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert renewed.status_code == 302
    game.refresh_from_db()
    assert game.screen_key != old_key
    client.logout()
    assert client.get(reverse("projector", args=[old_key])).status_code == 404
    assert client.get(reverse("projector", args=[game.screen_key])).status_code == 200
    entry = LogEntry.objects.get(game=game, action="screen_key_renew")
    assert entry.actor == arbitrator and game.screen_key not in str(entry.after)


@pytest.mark.django_db
def test_only_staff_may_renew_the_projector_link(client, make_game, django_user_model):
    game = make_game()
    key = game.screen_key
    assert client.post(reverse("console-projector-link-renew", args=[game.pk])).status_code == 302  # to login
    visitor = django_user_model.objects.create_user(username="visitor", password="x-password-1")
    client.force_login(visitor)
    assert client.post(reverse("console-projector-link-renew", args=[game.pk])).status_code == 403
    assert client.get(reverse("console-projector-link-renew", args=[game.pk])).status_code in (403, 405)
    game.refresh_from_db()
    assert game.screen_key == key


@pytest.mark.django_db
def test_the_code_shown_by_the_projector_still_lets_a_phone_join(api_client, client, make_game):
    game = make_game()
    html = client.get(reverse("projector", args=[game.screen_key])).content.decode()
    (code,) = re.findall(r'class="pj-code">[^<]*<strong>([A-Z0-9]+)</strong>', html)
    answer = api_client.post("/api/join", {"join_code": code, "name": "Bea"}, format="json")
    assert answer.status_code == 201 and answer.json()["game"] == game.pk
