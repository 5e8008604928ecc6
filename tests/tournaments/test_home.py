"""The home page (a phone's landing page), and the address phones are given by the console and projector."""

from __future__ import annotations

import re

import pytest
import segno
from django.urls import reverse

from tournaments.models import Game
from tournaments.services import round_draw

# ---- the home page ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_home_answers_in_english_with_the_join_form_and_the_console_link(client):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    html = page.content.decode()
    assert '<html lang="en">' in html
    assert "Join a game" in html and "Game code" in html
    assert re.search(r'<form id="home-join"[^>]*method="get" action="/"', html)
    assert 'name="code"' in html
    assert f'href="{reverse("console-home")}"' in html
    assert "No game is in play right now." in html


@pytest.mark.django_db
def test_home_answers_in_french_to_a_french_browser(client, make_game):
    game = make_game(name="Soirée du club")
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9,en;q=0.5")
    assert page.status_code == 200
    html = page.content.decode()
    assert '<html lang="fr">' in html
    for french in ("Bienvenue", "Rejoindre une partie", "Code de la partie", "Parties en cours",
                   "En attente du premier tirage", "Console de l'arbitre", "Partie 1"):
        assert french in html.replace("&#x27;", "'"), french
    assert "Games in play" not in html
    assert game.join_code not in html


@pytest.mark.django_db
def test_home_lists_the_games_in_play_without_a_projector_link_or_a_join_code(client, make_game, arbitrator):
    waiting = make_game(name="Club night")
    playing = make_game(name="Cup final")
    round_draw(game=playing, rack="AEINRS?")
    over = make_game(name="Last week")
    Game.objects.filter(pk=over.pk).update(status=Game.Status.OVER)

    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Club night" in html and "Cup final" in html
    assert "Round 1" in html and "Waiting for the first rack" in html
    assert "Last week" not in html
    for game in (waiting, playing, over):
        game.refresh_from_db()
        assert game.join_code not in html
        assert game.join_code not in html.upper()
        assert game.screen_key not in html  # the projector shows the code: its link is the console's to give
    assert "/projector/" not in html

    # The arbitrator, signed in, finds the projectors of the games in play there too.
    client.force_login(arbitrator)
    staff = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'href="{reverse("projector", args=[waiting.screen_key])}"' in staff
    assert f'href="{reverse("projector", args=[playing.screen_key])}"' in staff
    assert reverse("projector", args=[over.screen_key]) not in staff


@pytest.mark.django_db
def test_the_code_typed_on_the_home_page_leads_to_the_join_page(client):
    answer = client.get("/", {"code": " ab c-23 "})
    assert answer.status_code == 302
    assert answer["Location"] == reverse("join-code", args=["ABC23"])
    assert client.get(answer["Location"]).status_code == 200

    empty = client.get("/", {"code": " / "}, HTTP_ACCEPT_LANGUAGE="en")
    assert empty.status_code == 400
    assert "Type the game code." in empty.content.decode()


# ---- the address phones are given ---------------------------------------------------------------------


@pytest.mark.django_db
def test_without_public_url_the_join_link_is_the_address_the_page_was_opened_with(console, make_game, settings):
    settings.ARBITER_PUBLIC_URL = ""
    game = make_game()
    players = console.get(reverse("console-players", args=[game.pk]))
    assert players.context["join_url"] == f"http://testserver/join/{game.join_code}"
    assert not players.context["join_url_local"]
    projector = console.get(reverse("projector", args=[game.screen_key]))
    assert projector.context["join_url"] == f"http://testserver/join/{game.join_code}"


@pytest.mark.django_db
def test_public_url_is_the_address_of_the_join_links_and_qr_codes(console, make_game, make_player, settings):
    settings.ARBITER_PUBLIC_URL = "http://192.168.1.20:8080"
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "192.168.1.20"]
    game = make_game()
    player, _ = make_player(game, name="Ada", table=1)
    expected = f"http://192.168.1.20:8080/join/{game.join_code}"

    # The arbitrator opened the console on this machine: the phones still get the club's address.
    players = console.get(reverse("console-players", args=[game.pk]), HTTP_HOST="127.0.0.1:8080")
    html = players.content.decode()
    assert players.context["join_url"] == expected
    assert f'href="{expected}"' in html
    assert _qr_path(expected, scale=5) in html
    assert not players.context["join_url_local"]

    projector = console.get(reverse("projector", args=[game.screen_key]), HTTP_HOST="localhost:8080")
    assert projector.context["join_url"] == expected
    assert _qr_path(expected, scale=6) in projector.content.decode()

    link = console.post(reverse("console-player-phone-link", args=[game.pk, player.pk]), HTTP_HOST="127.0.0.1:8080")
    assert link.context["phone_url"].startswith(f"http://192.168.1.20:8080/games/{game.pk}/play#token=")


@pytest.mark.django_db
def test_the_console_warns_when_the_join_link_names_this_computer(console, make_game, settings):
    settings.ARBITER_PUBLIC_URL = ""
    game = make_game()
    page = console.get(reverse("console-players", args=[game.pk]), HTTP_HOST="127.0.0.1:8000",
                       HTTP_ACCEPT_LANGUAGE="en")
    assert page.context["join_url"] == f"http://127.0.0.1:8000/join/{game.join_code}"
    assert page.context["join_url_local"]
    # A checkout's command; an installed arbiter names its own (arbiter.places.lan_command).
    assert "start the server with make run HOST=0.0.0.0 (or set PUBLIC_URL)" in page.content.decode()


@pytest.mark.django_db
def test_the_installed_arbiter_names_its_own_command_for_the_clubs_phones(console, make_game, settings, monkeypatch):
    """Installed (no checkout beside the package), the console says `arbiter run --lan`, in either language."""
    from arbiter import places

    settings.ARBITER_PUBLIC_URL = ""
    monkeypatch.setattr(places, "in_checkout", lambda: False)
    game = make_game()
    for language, text in (("en", "start the server with arbiter run --lan (or set PUBLIC_URL)"),
                           ("fr", "lancez le serveur avec arbiter run --lan (ou réglez PUBLIC_URL)")):
        page = console.get(reverse("console-players", args=[game.pk]), HTTP_HOST="127.0.0.1:8000",
                           HTTP_ACCEPT_LANGUAGE=language)
        assert text in page.content.decode(), language
        assert "make run" not in page.content.decode()


def _qr_path(url: str, scale: int) -> str:
    """The drawing of the QR code of ``url`` as the pages render it (segno's SVG path)."""
    svg = segno.make(url, error="m").svg_inline(scale=scale, omitsize=True)
    return re.search(r'd="([^"]+)"', svg).group(1)
