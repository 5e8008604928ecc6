"""The arbitrator's console through Django's test client: every page and action, its result or its error."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tournaments import selectors, services
from tournaments.errors import ServiceError
from tournaments.models import Game, Lexicon, LogEntry, Player, Result, Round, Slip, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

FIRST_RACK = "AEINRST"


@pytest.fixture
def seated(make_game, make_player):
    """A game with two players at tables 1 and 2."""
    game = make_game(round_seconds=600)
    ada, _ = make_player(game, name="Ada", table=1)
    ben, _ = make_player(game, name="Ben", table=2)
    return game, ada, ben


def open_round(game, rack=FIRST_RACK):
    return services.round_start(round=services.round_draw(game=game, rack=rack))


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def first_top(round) -> dict:
    services.round_compute_tops(round=round)
    round.refresh_from_db()
    return round.tops[0]


# --------------------------------------------------------------------------------------------------
# Who may enter


def test_login_page_and_login_lead_to_the_console(client, arbitrator):
    page = client.get(reverse("console-login"))
    assert page.status_code == 200
    assert b'name="username"' in page.content and b'name="password"' in page.content
    assert b'<label for="id_username"' in page.content
    answer = client.post(reverse("console-login"), {"username": arbitrator.username, "password": "secret-password"})
    assert answer.status_code == 302 and answer.url == "/console/"
    assert client.get("/console/").status_code == 200


def test_wrong_password_is_refused_on_the_login_page(client, arbitrator):
    answer = client.post(reverse("console-login"), {"username": arbitrator.username, "password": "nope"})
    assert answer.status_code == 200
    assert answer.context["form"].errors
    assert client.get("/console/").status_code == 302


def console_urls(game, player, slip_id=1):
    t = game.tournament_id
    return [
        ("get", reverse("console-home")),
        ("post", reverse("console-tournament-create")),
        ("get", reverse("console-tournament", args=[t])),
        ("post", reverse("console-game-create", args=[t])),
        ("get", reverse("console-lexicon-import")),
        ("get", reverse("console-game", args=[game.pk])),
        ("get", reverse("console-game-live", args=[game.pk])),
        ("post", reverse("console-draw", args=[game.pk])),
        ("post", reverse("console-game-end", args=[game.pk])),
        ("post", reverse("console-round-start", args=[game.pk, 1])),
        ("post", reverse("console-round-close", args=[game.pk, 1])),
        ("post", reverse("console-round-master", args=[game.pk, 1])),
        ("get", reverse("console-rounds", args=[game.pk])),
        ("get", reverse("console-round", args=[game.pk, 1])),
        ("get", reverse("console-standings", args=[game.pk])),
        ("get", reverse("console-players", args=[game.pk])),
        ("post", reverse("console-player-register", args=[game.pk])),
        ("post", reverse("console-player-register-list", args=[game.pk])),
        ("get", reverse("console-player", args=[game.pk, player.pk])),
        ("get", reverse("console-slips", args=[game.pk])),
        ("post", reverse("console-slip-enter", args=[game.pk])),
        ("post", reverse("console-slip-correct", args=[game.pk, slip_id])),
    ]


def test_every_console_page_sends_anonymous_visitors_to_the_login(client, seated):
    game, ada, _ = seated
    for method, url in console_urls(game, ada):
        answer = getattr(client, method)(url)
        assert answer.status_code == 302, url
        assert answer.url.startswith(reverse("console-login") + "?next="), url


def test_every_console_page_refuses_users_without_staff_rights(client, django_user_model, seated):
    game, ada, _ = seated
    open_round(game)
    client.force_login(django_user_model.objects.create_user(username="spectator", password="x"))
    for method, url in console_urls(game, ada):
        assert getattr(client, method)(url).status_code == 403, url
    assert Round.objects.get(game=game).status == Round.Status.OPEN
    assert Player.objects.filter(first_game=game).count() == 2


def test_an_account_without_staff_rights_is_refused_at_the_login(client, django_user_model):
    django_user_model.objects.create_user(username="player", password="pw-player-1")
    answer = client.post(reverse("console-login"), {"username": "player", "password": "pw-player-1"})
    assert answer.status_code == 200
    assert "This account has no arbitrator rights" in answer.content.decode()
    assert client.get("/console/").status_code == 302


def test_log_out_ends_the_session(console):
    answer = console.post(reverse("console-logout"))
    assert answer.status_code == 302
    assert console.get("/console/").status_code == 302


# --------------------------------------------------------------------------------------------------
# Tournaments, games, players


def test_creating_a_tournament_goes_through_the_service(console):
    answer = console.post(reverse("console-tournament-create"), {
        "name": "Club night", "lexicon": "SOWPODS", "tileset": "english", "ruleset": "classic",
        "round_seconds": 120, "coordinates": "rows-numbers",
    })
    tournament = Tournament.objects.get()
    assert answer.status_code == 302 and answer.url == reverse("console-tournament", args=[tournament.pk])
    assert (tournament.name, tournament.lexicon, tournament.ruleset, tournament.round_seconds,
            tournament.coordinates, tournament.created_by) == (
        "Club night", "SOWPODS", "classic", 120, "rows-numbers", console.user)
    home = console.get("/console/")
    assert "Club night" in home.content.decode()


def test_a_refused_tournament_shows_the_errors_and_creates_nothing(console):
    answer = console.post(reverse("console-tournament-create"), {
        "name": "  ", "lexicon": "TWL06", "tileset": "english", "ruleset": "fisf",
        "round_seconds": 5, "coordinates": "rows-letters",
    })
    assert answer.status_code == 400
    assert set(answer.context["form"].errors) == {"name", "round_seconds"}
    assert not Tournament.objects.exists()


def test_tournament_page_lists_games_and_creates_one(console, make_tournament):
    tournament = make_tournament(name="Open de Paris")
    answer = console.post(reverse("console-game-create", args=[tournament.pk]), {"seed": "42"})
    game = Game.objects.get(tournament=tournament)
    assert game.seed == 42
    assert answer.url == reverse("console-players", args=[game.pk])
    page = console.get(reverse("console-tournament", args=[tournament.pk]))
    assert game.join_code in page.content.decode()
    assert page.context["games"][0].pk == game.pk


def test_tournament_page_shows_the_standings_over_several_games(console, make_tournament, make_player):
    tournament = make_tournament()
    first = services.game_create(tournament=tournament, seed=1)
    services.game_create(tournament=tournament, seed=2)
    make_player(first, name="Chloé", table=3)
    page = console.get(reverse("console-tournament", args=[tournament.pk]))
    assert [row["name"] for row in page.context["standings"]] == ["Chloé"]
    assert "Chloé" in page.content.decode()


def test_players_page_shows_the_join_code_and_a_qr_code_of_the_join_link(console, seated):
    game, _, _ = seated
    page = console.get(reverse("console-players", args=[game.pk]))
    html = page.content.decode()
    join_url = f"http://testserver/join/{game.join_code}"
    assert page.context["join_url"] == join_url
    assert "<svg" in html and game.join_code in html and join_url in html
    # The QR code really encodes the join link: segno's rendering of that URL is what the page shows.
    import segno

    expected = segno.make(join_url, error="m").svg_inline(scale=5, omitsize=True)
    path = re.search(r'd="([^"]+)"', expected).group(1)
    assert path in html
    assert "Ada" in html and "Ben" in html


def test_registering_a_player_with_a_table(console, seated):
    game, _, _ = seated
    answer = console.post(reverse("console-player-register", args=[game.pk]), {"name": "Chloé", "table": "3"})
    assert answer.status_code == 302
    chloe = Player.objects.get(name="Chloé")
    assert chloe.table == 3 and chloe.first_game == game
    assert answer.url == reverse("console-players", args=[game.pk]) + "?added=1"
    page = console.get(answer.url)
    assert "Chloé registered at table 3." in messages_of(page)
    name_input = re.search(r'<input[^>]*id="id_name"[^>]*>', page.content.decode()).group(0)
    assert "autofocus" in name_input


def test_registering_a_player_without_a_name_is_refused(console, seated):
    game, _, _ = seated
    answer = console.post(reverse("console-player-register", args=[game.pk]), {"name": "", "table": "3"})
    assert answer.status_code == 400
    assert "name" in answer.context["form"].errors
    assert Player.objects.filter(first_game=game).count() == 2


def test_registering_after_the_end_shows_the_services_refusal(console, seated):
    game, _, _ = seated
    services.game_end(game=game)
    answer = console.post(reverse("console-player-register", args=[game.pk]), {"name": "Late", "table": "9"})
    assert answer.status_code == 409
    assert "the game is over" in answer.content.decode()
    assert not Player.objects.filter(name="Late").exists()


def test_registering_a_list_of_players(console, seated):
    game, _, _ = seated
    lines = "3 Chloé Durand\n4, Dan\n\nEve\n" + "5 " + "x" * 150
    answer = console.post(reverse("console-player-register-list", args=[game.pk]), {"lines": lines}, follow=True)
    tables = dict(Player.objects.filter(first_game=game).values_list("name", "table"))
    assert tables == {"Ada": 1, "Ben": 2, "Chloé Durand": 3, "Dan": 4, "Eve": None}
    shown = messages_of(answer)
    assert "3 players registered." in shown
    assert any(m.startswith("Not registered: 5 xxx") for m in shown)


# --------------------------------------------------------------------------------------------------
# Rounds


def test_random_draw_shows_the_rack_and_any_rejected_draws(console, seated):
    game, _, _ = seated
    answer = console.post(reverse("console-draw", args=[game.pk]), follow=True)
    round = Round.objects.get(game=game)
    assert round.status == Round.Status.DRAWN and not round.typed
    shown = messages_of(answer)
    assert f"Round 1: rack {round.rack}." in shown
    if round.rejected:
        assert any(" ".join(round.rejected) in m for m in shown)
    html = answer.content.decode()
    assert 'id="start-button"' in html
    assert all(letter in html for letter in round.rack)


def test_typed_rack_is_used_as_typed(console, seated):
    game, _, _ = seated
    console.post(reverse("console-draw", args=[game.pk]), {"rack": "aeinrst"})
    round = Round.objects.get(game=game)
    assert round.typed and sorted(round.rack) == sorted(FIRST_RACK)


@pytest.mark.parametrize("rack", ["BCDFGHJ", "ZZZEEAI", "AEI"])
def test_a_refused_typed_rack_shows_the_precise_reason(console, seated, rack):
    game, _, _ = seated
    with pytest.raises(ServiceError) as refused:
        services.round_draw(game=Game.objects.get(pk=game.pk), rack=rack)
    reason = refused.value.message
    answer = console.post(reverse("console-draw", args=[game.pk]), {"rack": rack}, follow=True)
    assert not Round.objects.filter(game=game).exists()
    assert f"Rack {rack} refused: {reason}" in messages_of(answer)
    assert f'value="{rack}" autofocus' in answer.content.decode()


@pytest.mark.parametrize(
    ("rack", "french"),
    [
        ("BCDFGHJ", "BCDFGHJ\u00a0: il faut au moins 2 voyelles"),
        ("ZZZEEAI", "ZZZEEAI\u00a0: ZZ absentes du sac"),
        ("AEI", "AEI\u00a0: le tirage doit avoir 7 lettres, pas 3"),
        ("AEIOUAB", "AEIOUAB\u00a0: il faut au moins 2 consonnes"),
    ],
)
def test_a_refused_typed_rack_is_explained_in_french(console, seated, rack, french):
    game, _, _ = seated
    console.cookies["django_language"] = "fr"
    answer = console.post(reverse("console-draw", args=[game.pk]), {"rack": rack}, follow=True)
    # French typography: a no-break space before the colon.
    assert f"Tirage {rack} refusé\u00a0: {french}" in messages_of(answer)


def test_a_rack_with_other_characters_is_refused_by_the_form(console, seated):
    game, _, _ = seated
    answer = console.post(reverse("console-draw", args=[game.pk]), {"rack": "AB1DEF*"}, follow=True)
    assert not Round.objects.filter(game=game).exists()
    assert any("Only letters A–Z and ?" in m for m in messages_of(answer))


def test_drawing_while_a_round_is_in_play_is_refused(console, seated):
    game, _, _ = seated
    open_round(game)
    answer = console.post(reverse("console-draw", args=[game.pk]), follow=True)
    assert "a round is still in play: close it first" in messages_of(answer)
    assert Round.objects.filter(game=game).count() == 1


def test_start_opens_the_round_with_a_clock(console, seated):
    game, _, _ = seated
    services.round_draw(game=game, rack=FIRST_RACK)
    answer = console.post(reverse("console-round-start", args=[game.pk, 1]), follow=True)
    round = Round.objects.get(game=game)
    assert round.status == Round.Status.OPEN and round.deadline is not None
    assert "Round 1 started." in messages_of(answer)
    html = answer.content.decode()
    assert f'data-deadline="{round.deadline.isoformat()}"' in html
    assert 'id="close-button"' in html
    again = console.post(reverse("console-round-start", args=[game.pk, 1]), follow=True)
    assert "the round is already open" in messages_of(again)


def test_progress_shows_who_is_missing_never_the_slips_content(console, seated):
    game, ada, ben = seated
    round = open_round(game)
    top = first_top(round)
    services.slip_submit(round=round, player=ada, word=top["word"], ref=top["ref"], score=top["score"], key="k1")
    for url in (reverse("console-game", args=[game.pk]), reverse("console-game-live", args=[game.pk]),
                reverse("console-round", args=[game.pk, 1])):
        html = console.get(url).content.decode()
        assert "1 / 2" in html, url
        assert top["word"] not in html, url
    panel = console.get(reverse("console-game-live", args=[game.pk]))
    assert [p["name"] for p in panel.context["progress"]["missing"]] == ["Ben"]
    assert "Ben" in panel.content.decode()


def test_closing_early_shows_the_top_the_master_and_the_results(console, seated):
    game, ada, _ = seated
    round = open_round(game)
    top = first_top(round)
    services.slip_submit(round=round, player=ada, word=top["word"], ref=top["ref"], score=top["score"], key="k1")
    answer = console.post(reverse("console-round-close", args=[game.pk, 1]), follow=True)
    round.refresh_from_db()
    assert round.status == Round.Status.CLOSED
    assert "Round 1 closed." in messages_of(answer)
    html = answer.content.decode()
    assert f"Top: {round.top_score} points" in html
    assert round.master["word"] in html
    assert 'id="draw-random"' in html
    again = console.post(reverse("console-round-close", args=[game.pk, 1]), follow=True)
    assert "Round 1 was already closed." in messages_of(again)
    page = console.get(reverse("console-round", args=[game.pk, 1]))
    results = {row["name"]: row for row in page.context["results"]}
    assert results["Ada"]["paid"] == round.top_score and results["Ada"]["word"] == top["word"]
    assert results["Ben"]["outcome"] == "zero" and results["Ben"]["slip_id"] is None


def test_master_can_be_picked_among_the_tops_and_a_non_top_is_refused(console, seated):
    game, _, _ = seated
    round = open_round(game)
    services.round_close(round=round)
    round.refresh_from_db()
    other = round.tops[-1]
    answer = console.post(reverse("console-round-master", args=[game.pk, 1]),
                          {"word": other["word"], "ref": other["ref"], "next": "round"}, follow=True)
    assert answer.redirect_chain[-1][0] == reverse("console-round", args=[game.pk, 1])
    round.refresh_from_db()
    assert (round.master["word"], round.master["ref"]) == (other["word"], other["ref"])
    assert LogEntry.objects.filter(round=round, action="master_change").exists()
    refused = console.post(reverse("console-round-master", args=[game.pk, 1]), {"word": "ZZZ", "ref": "H8"},
                           follow=True)
    assert any("is not one of the tied tops" in m for m in messages_of(refused))
    first = round.tops[0]
    page = console.get(reverse("console-game", args=[game.pk])).content.decode()
    assert f'<option value="{first["word"]} {first["ref"]}"' in page
    console.post(reverse("console-round-master", args=[game.pk, 1]), {"choice": f'{first["word"]} {first["ref"]}'})
    round.refresh_from_db()
    assert (round.master["word"], round.master["ref"]) == (first["word"], first["ref"])
    assert LogEntry.objects.filter(round=round, action="master_change").count() == 2


def test_end_of_the_game_is_refused_while_a_round_is_open_then_done(console, seated):
    game, _, _ = seated
    round = open_round(game)
    refused = console.post(reverse("console-game-end", args=[game.pk]), follow=True)
    assert "a round is still open: close it first" in messages_of(refused)
    services.round_close(round=round)
    done = console.post(reverse("console-game-end", args=[game.pk]), follow=True)
    game.refresh_from_db()
    assert game.status == Game.Status.OVER
    assert "The game is over: the standings are final." in messages_of(done)
    assert 'id="draw-random"' not in done.content.decode()


# --------------------------------------------------------------------------------------------------
# Paper slips


def enter(console, game, round_number=1, accept_json=True, **fields):
    headers = {"HTTP_ACCEPT": "application/json"} if accept_json else {}
    data = {"round": str(round_number), **{k: str(v) for k, v in fields.items()}}
    return console.post(reverse("console-slip-enter", args=[game.pk]), data, **headers)


def test_slips_page_has_labelled_fields_in_typing_order(console, seated):
    game, _, _ = seated
    open_round(game)
    html = console.get(reverse("console-slips", args=[game.pk])).content.decode()
    order = [html.index(f'id="id_{name}"') for name in ("table", "word", "ref", "score")]
    assert order == sorted(order)
    for name in ("table", "word", "ref", "score"):
        assert f'<label for="id_{name}">' in html
    assert 'autofocus' in html


def test_a_paper_slip_is_recorded_for_the_player_at_that_table(console, seated):
    game, ada, ben = seated
    round = open_round(game)
    answer = enter(console, game, table=2, word="retains", ref="h8", score=66, key="paper-1")
    assert answer.status_code == 201
    body = answer.json()
    slip = Slip.objects.get(round=round, current=True)
    assert (slip.player, slip.word, slip.ref, slip.claimed, slip.entered_by) == (
        ben, body["slip"]["word"], "h8", 66, console.user)
    assert body["player"] == {"id": ben.pk, "name": "Ben", "table": 2}
    assert body["slip"]["ref"] == "H8"  # shown in its canonical form, kept as written
    assert body["progress"]["received"] == 1 and [p["name"] for p in body["progress"]["missing"]] == ["Ada"]
    again = enter(console, game, table=2, word="retains", ref="h8", score=66, key="paper-1")
    assert again.status_code == 200 and again.json()["created"] is False
    assert Slip.objects.filter(round=round).count() == 1
    assert LogEntry.objects.filter(round=round, action="slip_enter", actor=console.user).count() == 1


def test_a_paper_slip_without_score_or_reference(console, seated):
    game, ada, _ = seated
    round = open_round(game)
    assert enter(console, game, table=1, word="RETAINS").status_code == 201
    slip = Slip.objects.get(round=round)
    assert (slip.player, slip.ref, slip.claimed) == (ada, "", None)


@pytest.mark.parametrize(
    ("fields", "status", "code", "field"),
    [
        ({"table": 7, "word": "RETAINS"}, 404, "unknown_table", "table"),
        ({"table": 1, "word": "RETAINS", "ref": "Z99"}, 400, "off_board", "ref"),
        ({"table": 1, "word": "RETAINS", "ref": "HH"}, 400, "bad_ref", "ref"),
        ({"table": 1, "word": "RE7AINS"}, 400, "bad_word", "word"),
        ({"table": "", "word": "RETAINS"}, 400, "invalid", "table"),
        ({"table": 1, "word": "RETAINS", "score": "-3"}, 400, "invalid", "score"),
    ],
)
def test_a_refused_paper_slip_says_why_and_which_field(console, seated, fields, status, code, field):
    game, _, _ = seated
    open_round(game)
    answer = enter(console, game, **fields)
    assert answer.status_code == status
    error = answer.json()["error"]
    assert error["code"] == code and field in error["fields"] and error["message"]
    assert not Slip.objects.exists()


def test_paper_slips_are_refused_before_the_start(console, seated):
    game, _, _ = seated
    services.round_draw(game=game, rack=FIRST_RACK)
    early = enter(console, game, table=1, word="RETAINS")
    assert early.status_code == 409 and early.json()["error"]["code"] == "round_not_open"
    assert not Slip.objects.exists()


def test_a_paper_slip_typed_after_the_close_is_judged_at_once_and_logged(console, seated):
    game, ada, ben = seated
    round = open_round(game)
    top = first_top(round)
    services.slip_submit(round=round, player=ben, word=top["word"], ref=top["ref"], score=top["score"], key="b")
    services.round_close(round=round)
    assert Result.objects.get(round=round, player=ada).reason == "no_slip"

    page = console.get(reverse("console-slips", args=[game.pk])).content.decode()
    assert 'id="slip-form"' in page and "judged at once and logged" in page

    answer = enter(console, game, table=1, word=top["word"], ref=top["ref"], score=top["score"])
    assert answer.status_code == 201
    result = Result.objects.get(round=round, player=ada)
    assert (result.paid, result.outcome, result.corrected) == (top["score"], "ok", True)
    entry = LogEntry.objects.get(round=round, action="slip_add")
    assert entry.actor == console.user and "after the close" in entry.reason

    # A player who already has a slip is corrected from the results, not entered again.
    again = enter(console, game, table=2, word="RETAINS")
    assert again.status_code == 409 and again.json()["error"]["code"] == "slip_exists"
    assert Slip.objects.filter(round=round).count() == 2


def test_a_slip_for_a_round_no_longer_shown_is_refused(console, seated):
    game, _, _ = seated
    open_round(game)
    answer = enter(console, game, round_number=2, table=1, word="RETAINS")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "round_changed"


def test_two_players_at_one_table_are_reported(console, seated, make_player):
    game, _, _ = seated
    make_player(game, name="Twin", table=1)
    open_round(game)
    answer = enter(console, game, table=1, word="RETAINS")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "shared_table"


def test_a_plain_form_post_redirects_back_with_a_message(console, seated):
    game, _, _ = seated
    open_round(game)
    answer = console.post(reverse("console-slip-enter", args=[game.pk]),
                          {"round": "1", "table": "1", "word": "RETAINS", "ref": "H8", "score": "66"}, follow=True)
    assert answer.redirect_chain[-1][0] == reverse("console-slips", args=[game.pk])
    assert "Table 1 (Ada): RETAINS H8 66 recorded." in messages_of(answer)
    refused = console.post(reverse("console-slip-enter", args=[game.pk]),
                           {"round": "1", "table": "8", "word": "RETAINS"}, follow=True)
    assert "no player at table 8 in this game" in messages_of(refused)


def test_slips_page_without_an_open_round_says_so(console, seated):
    game, _, _ = seated
    page = console.get(reverse("console-slips", args=[game.pk]))
    assert 'id="slip-form"' not in page.content.decode()
    assert not page.context["accepting"]


# --------------------------------------------------------------------------------------------------
# Corrections, results, standings


def closed_round_with_slips(game, ada, ben):
    round = open_round(game)
    top = first_top(round)
    services.slip_submit(round=round, player=ada, word=top["word"], ref=top["ref"], score=top["score"], key="a")
    services.slip_submit(round=round, player=ben, word="ZZZZ", ref="H8", score=10, key="b")
    services.round_close(round=round)
    round.refresh_from_db()
    return round, top


def test_correcting_a_slip_pays_again_and_shows_the_log(console, seated):
    game, ada, ben = seated
    round, top = closed_round_with_slips(game, ada, ben)
    slip = Slip.objects.get(round=round, player=ben, current=True)
    answer = console.post(reverse("console-slip-correct", args=[game.pk, slip.pk]), {
        "word": top["word"], "ref": top["ref"], "score": str(top["score"]), "reason": "misread handwriting",
    }, follow=True)
    assert answer.redirect_chain[-1][0] == reverse("console-round", args=[game.pk, 1])
    results = {row["name"]: row for row in answer.context["results"]}
    assert results["Ben"]["paid"] == round.top_score and results["Ben"]["corrected"]
    html = answer.content.decode()
    assert "misread handwriting" in html and "ZZZZ" in html
    entry = LogEntry.objects.get(round=round, action="slip_correct")
    assert entry.actor == console.user and entry.reason == "misread handwriting"


def test_a_correction_without_a_reason_is_refused(console, seated):
    game, ada, ben = seated
    round, _ = closed_round_with_slips(game, ada, ben)
    slip = Slip.objects.get(round=round, player=ben, current=True)
    answer = console.post(reverse("console-slip-correct", args=[game.pk, slip.pk]), {"word": "RETAINS"},
                          follow=True)
    assert any("Reason" in m for m in messages_of(answer))
    assert Slip.objects.get(pk=slip.pk).current
    assert not LogEntry.objects.filter(action="slip_correct").exists()


def test_a_slip_found_late_is_added_from_the_results_with_a_reason(console, seated):
    game, ada, ben = seated
    round = open_round(game)
    top = first_top(round)
    services.slip_submit(round=round, player=ada, word=top["word"], ref=top["ref"], score=top["score"], key="a")
    services.round_close(round=round)
    url = reverse("console-slip-add", args=[game.pk, round.number, ben.pk])
    assert url in console.get(reverse("console-round", args=[game.pk, 1])).content.decode()

    answer = console.post(url, {"word": top["word"], "ref": top["ref"], "score": str(top["score"]),
                                "reason": "slip found under the table"}, follow=True)
    results = {row["name"]: row for row in answer.context["results"]}
    assert (results["Ben"]["paid"], results["Ben"]["outcome"], results["Ben"]["corrected"]) == (
        top["score"], "ok", True)
    assert "slip found under the table" in answer.content.decode()
    assert LogEntry.objects.get(round=round, action="slip_add").actor == console.user

    again = console.post(url, {"word": "RETAINS", "reason": "twice"}, follow=True)
    assert Slip.objects.filter(round=round, player=ben).count() == 1
    assert messages_of(again)
    no_reason = console.post(reverse("console-slip-add", args=[game.pk, round.number, ada.pk]),
                             {"word": "RETAINS"}, follow=True)
    assert any("Reason" in m for m in messages_of(no_reason))
    assert Slip.objects.filter(round=round, player=ada).count() == 1


def test_correcting_a_replaced_slip_shows_the_services_refusal(console, seated):
    game, ada, ben = seated
    round, top = closed_round_with_slips(game, ada, ben)
    slip = Slip.objects.get(round=round, player=ben, current=True)
    services.slip_correct(slip=slip, reason="first", actor=console.user, word=top["word"])
    answer = console.post(reverse("console-slip-correct", args=[game.pk, slip.pk]),
                          {"reason": "second"}, follow=True)
    assert "this slip was replaced: correct the one that counts" in messages_of(answer)


def test_rounds_page_lists_racks_rejections_and_masters(console, seated):
    game, ada, ben = seated
    round, _ = closed_round_with_slips(game, ada, ben)
    page = console.get(reverse("console-rounds", args=[game.pk]))
    html = page.content.decode()
    assert round.rack in html and round.master["word"] in html
    assert page.context["record"]["rounds"][0]["top_score"] == round.top_score


def test_standings_page_matches_the_selector_and_links_sheets_and_exports(console, seated):
    game, ada, ben = seated
    closed_round_with_slips(game, ada, ben)
    page = console.get(reverse("console-standings", args=[game.pk]))
    assert page.context["rows"] == selectors.game_standings(game=game)
    html = page.content.decode()
    for tail in ("sheets/standings.pdf", "sheets/record.pdf", "exports/standings.csv", "exports/results.txt",
                 "exports/record.json", f"players/{ada.pk}/scoresheet.pdf", "sheets/scoresheets.pdf"):
        assert f"/api/games/{game.pk}/{tail}" in html
    # The console's session opens them (no API token needed).
    pdf = console.get(f"/api/games/{game.pk}/sheets/standings.pdf")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    csv = console.get(f"/api/games/{game.pk}/exports/standings.csv")
    assert csv.status_code == 200 and "Ada" in csv.content.decode("utf-8", "replace")


def test_player_page_shows_each_round(console, seated):
    game, ada, ben = seated
    round, top = closed_round_with_slips(game, ada, ben)
    page = console.get(reverse("console-player", args=[game.pk, ada.pk]))
    expected = selectors.player_rounds(game=game, player=ada)
    assert [(r["number"], r["paid"], r["total"], r["word"]) for r in page.context["rows"]] == [
        (r["number"], r["paid"], r["total"], r["word"]) for r in expected]
    assert top["word"] in page.content.decode()


def test_references_are_shown_in_their_canonical_form(console, seated):
    game, ada, ben = seated
    round = open_round(game)
    services.slip_submit(round=round, player=ada, word="RETAINS", ref=" h 2 ", score=66, key="a")
    services.slip_submit(round=round, player=ben, word="RETAINS", ref="8 h", score=66, key="b")
    services.round_close(round=round)
    results = {row["name"]: row for row in console.get(reverse("console-round", args=[game.pk, 1])).context["results"]}
    assert results["Ada"]["ref"] == "H2"
    assert results["Ben"]["ref"] == "8H"


def test_unknown_game_round_or_player_is_404(console, seated):
    game, _, _ = seated
    assert console.get(reverse("console-game", args=[game.pk + 1000])).status_code == 404
    assert console.get(reverse("console-round", args=[game.pk, 5])).status_code == 404
    assert console.get(reverse("console-player", args=[game.pk, 99999])).status_code == 404
    assert console.get(reverse("console-tournament", args=[99999])).status_code == 404


# --------------------------------------------------------------------------------------------------
# Lexicons and languages


def test_importing_a_word_list_shows_the_rejected_entries(console):
    data = b"cat\nDOGS\nx-ray\nab1\n\nzebra\n"
    answer = console.post(reverse("console-lexicon-import"), {
        "name": "CLUB1", "tileset": "english", "file": SimpleUploadedFile("club.txt", data, "text/plain"),
    })
    assert answer.status_code == 200
    lexicon = Lexicon.objects.get(name="CLUB1")
    result = answer.context["result"]
    assert lexicon.imported and result["lexicon"] == lexicon
    assert set(result["rejected"]) == {"x-ray", "ab1"}
    assert lexicon.word_count == 3
    html = answer.content.decode()
    assert "x-ray" in html and "ab1" in html
    form = console.get("/console/").context["form"]
    assert ("CLUB1", "CLUB1") in form.fields["lexicon"].choices


def test_importing_under_a_built_in_name_is_refused(console):
    answer = console.post(reverse("console-lexicon-import"), {
        "name": "TWL06", "tileset": "english", "file": SimpleUploadedFile("x.txt", b"cat\n", "text/plain"),
    })
    assert answer.status_code == 409
    assert "is a built-in lexicon" in answer.content.decode()


def test_console_speaks_french(console, seated):
    game, _, _ = seated
    console.cookies["django_language"] = "fr"
    home = console.get("/console/").content.decode()
    assert "Nouveau tournoi" in home and "New tournament" not in home
    page = console.get(reverse("console-players", args=[game.pk])).content.decode()
    assert "Inscrire un joueur" in page


def test_a_phone_link_moves_a_registered_player_to_a_phone(console, seated):
    from rest_framework.test import APIClient

    game, ada, _ = seated
    _player, old_token = services.player_register(game=game, name="Chloé", table=3)
    chloe = Player.objects.get(name="Chloé")
    page = console.get(reverse("console-player", args=[game.pk, chloe.pk])).content.decode()
    assert reverse("console-player-phone-link", args=[game.pk, chloe.pk]) in page
    assert page.count('id="phone-title"') == 1 and "<title>Chloé · Game 1</title>" in " ".join(page.split())

    answer = console.post(reverse("console-player-phone-link", args=[game.pk, chloe.pk]))
    assert answer.status_code == 200
    url = answer.context["phone_url"]
    assert url.startswith(f"http://testserver/games/{game.pk}/play#token=")
    assert "<svg" in answer.context["phone_qr"] and url in answer.content.decode()
    token = url.split("#token=", 1)[1]

    phone = APIClient()
    phone.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    me = phone.get(f"/api/games/{game.pk}/me")
    assert me.status_code == 200 and me.json()["name"] == "Chloé"
    phone.credentials(HTTP_AUTHORIZATION=f"Bearer {old_token}")
    assert phone.get(f"/api/games/{game.pk}/me").status_code == 401
    assert LogEntry.objects.filter(game=game, action="player_token_reissue", player=chloe,
                                   actor=console.user).count() == 1
    assert console.get(reverse("console-player-phone-link", args=[game.pk, chloe.pk])).status_code == 405


def test_a_second_different_paper_slip_for_a_table_asks_which_it_is(console, seated):
    """On paper two different slips of one player pay 0 (§4): the console asks whether the second one
    is a typing correction (it replaces the first) or a second slip (paid 0), and logs the choice."""
    game, ada, ben = seated
    round = open_round(game)
    assert enter(console, game, table=2, word="RETAINS", ref="H8", score=66, key="p1").status_code == 201
    # The same slip typed again is no second slip.
    assert enter(console, game, table=2, word="RETAINS", ref="h 8", score=66, key="p1b").status_code == 201
    asked = enter(console, game, table=2, word="NASTIER", ref="H2", score=66, key="p2")
    assert asked.status_code == 409
    error = asked.json()["error"]
    assert error["code"] == "second_slip" and "RETAINS" in error["message"]
    assert Slip.objects.get(round=round, player=ben, current=True).key == "p1b"  # nothing changed
    # A typing correction: it replaces the first, logged with the choice.
    assert enter(console, game, table=2, word="NASTIER", ref="H2", score=66, key="p2",
                 choice="replace").status_code == 201
    entry = LogEntry.objects.filter(round=round, action="slip_replace").latest("id")
    assert entry.reason == "typing correction" and entry.after["word"] == "NASTIER"
    # A second slip: it counts, and pays 0 at the close.
    assert enter(console, game, table=2, word="STAINER", ref="H2", score=66, key="p3",
                 choice="second").status_code == 201
    held = Slip.objects.get(round=round, player=ben, current=True)
    assert held.several and held.word == "STAINER"
    assert LogEntry.objects.get(round=round, action="slip_several").reason == "second slip: paid 0"
    services.round_close(round=round)
    result = Result.objects.get(round=round, player=ben)
    assert (result.paid, result.reason) == (0, "several_slips")


def test_corrections_and_added_slips_mark_blanks_with_a_question_mark(console, make_game, make_player):
    """On the round page as on the paper-slip page, a ? before a letter makes it a blank and case alone never
    does: lowercase "aeinrst" is AEINRST with no blank. The correction form shows a held blank as ?L."""
    game = make_game(round_seconds=600)
    ada, _ = make_player(game, name="Ada", table=1)
    ben, _ = make_player(game, name="Ben", table=2)
    round = services.round_start(round=services.round_draw(game=game, rack="AEINRS?"))
    services.slip_submit(round=round, player=ada, word="RETAINS", ref="H8", score=0, key="a")
    services.round_close(round=round)
    slip = Slip.objects.get(round=round, player=ada, current=True)
    console.post(reverse("console-slip-correct", args=[game.pk, slip.pk]),
                 {"word": "re?tains", "ref": "H8", "reason": "the T was a blank on the paper slip"})
    held = Slip.objects.get(round=round, player=ada, current=True)
    assert held.word == "REtAINS"
    page = console.get(reverse("console-round", args=[game.pk, 1])).content.decode()
    assert 'value="RE?TAINS"' in page
    console.post(reverse("console-slip-add", args=[game.pk, 1, ben.pk]),
                 {"word": "santera", "ref": "H8", "reason": "paper slip found under the table"})
    added = Slip.objects.get(round=round, player=ben, current=True)
    assert added.word == "SANTERA"  # no blank: the rack's blank is not the T, so this pays 0 (not in rack)
    assert Result.objects.get(round=round, player=ben).reason == "not_in_rack"
    refused = console.post(reverse("console-slip-correct", args=[game.pk, held.pk]),
                           {"word": "RE??TAINS", "ref": "H8", "reason": "x"}, follow=True)
    assert any("?" in m for m in messages_of(refused))
    assert Slip.objects.get(round=round, player=ada, current=True).pk == held.pk
