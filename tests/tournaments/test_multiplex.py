"""A multiplex, in one database (tournaments/multiplex.py, tournaments/relay.py; docs/multiplex.md): the organiser
opens its game to the event's centres (logged); the relay shows a round's rack only once the round is started and
its master once closed; a centre's token of another event, a forged one or none is refused with a clear error and
changes nothing; a bad query is refused. The centre's side applies what it receives: a relayed rack drawn (and the
clock started when the console says so), a rack typed by hand compared (equal noted, mismatch shown and logged,
never replaced), the organiser's master confirmed among the tied tops; the link's state (up, down since)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments import events, multiplex, relay, services
from tournaments.models import LogEntry, Round
from tournaments.relay_models import RelayLink, RelayRack

pytestmark = pytest.mark.django_db

EVENT = "Multiplex de Tours 2026"


@pytest.fixture
def opened(arbitrator, make_game, isolated_cache):
    """The organiser's event with two centres and a live game opened to them."""
    event = events.event_create(name=EVENT, language="fr", actor=arbitrator)
    tokens = {}
    for code in ("c1", "c2"):
        _, tokens[code] = events.centre_register(event=event, code=code, name=f"Club {code}")
    game = make_game(seed=7)
    client = APIClient()
    client.force_authenticate(arbitrator)
    answer = client.post(reverse("api-event-games", kwargs={"event_id": event.pk}), {"game": game.pk, "game_id": "M1"},
                         format="json")
    assert answer.status_code == 201, answer.content
    return {"event": event, "game": game, "tokens": tokens, "relay": answer.json()["relay"], "actor": arbitrator}


def _relay(event_id: int, token: str | None, **query):
    client = APIClient()
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client.get(reverse("api-event-relay", kwargs={"event_id": event_id}), {"wait": "0", **query})


def test_opening_is_logged_and_named_in_the_relay(opened):
    entry = LogEntry.objects.get(game=opened["game"], action="multiplex_open")
    assert entry.actor_id == opened["actor"].pk
    assert entry.after["game_id"] == "M1" and entry.after["relay"] == opened["relay"]
    answer = _relay(opened["event"].pk, opened["tokens"]["c1"])
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (body["event"], body["game_id"], body["relay"], body["items"], body["after"]) == (
        EVENT, "M1", opened["relay"], [], 0)
    assert body["settings"]["lexicon"] == opened["game"].tournament.lexicon


def test_a_rack_is_relayed_only_once_the_round_is_started_and_its_master_once_closed(opened):
    event, game, token = opened["event"], opened["game"], opened["tokens"]["c2"]
    drawn = services.round_draw(game=game, actor=opened["actor"])
    assert _relay(event.pk, token).json()["items"] == []  # drawn, not started: nothing
    assert _relay(event.pk, token, wait="0.3").json()["items"] == []  # waited, still nothing
    services.round_start(round=drawn, actor=opened["actor"])
    items = _relay(event.pk, token).json()["items"]
    assert [(i["kind"], i["round"], i["rack"]) for i in items] == [("rack", 1, drawn.rack)]
    seq = items[0]["seq"]
    assert _relay(event.pk, token, after=str(seq)).json()["items"] == []  # nothing after it: no master yet
    services.round_close(round=drawn, actor=opened["actor"])
    closed = Round.objects.get(pk=drawn.pk)
    items = _relay(event.pk, token, after=str(seq)).json()["items"]
    assert [(i["kind"], i["round"], i["master"]) for i in items] == [
        ("master", 1, {k: closed.master[k] for k in ("word", "ref", "score")})]
    # The next round drawn: still nothing new until it starts.
    services.round_draw(game=game, actor=opened["actor"])
    assert _relay(event.pk, token, after=str(items[-1]["seq"])).json()["items"] == []


@pytest.mark.parametrize("how", ["none", "forged", "other_event", "arbitrator"])
def test_a_relay_without_a_centre_token_of_the_event_is_refused(opened, how, arbitrator, make_game):
    services.round_start(round=services.round_draw(game=opened["game"], actor=arbitrator), actor=arbitrator)
    other = events.event_create(name="Another event", actor=arbitrator)
    _, other_token = events.centre_register(event=other, code="c1")
    token = {"none": None, "forged": opened["tokens"]["c1"][:-2] + "xx", "other_event": other_token,
             "arbitrator": None}[how]
    if how == "arbitrator":
        client = APIClient()
        client.force_authenticate(arbitrator)
        answer = client.get(reverse("api-event-relay", kwargs={"event_id": opened["event"].pk}), {"wait": "0"})
    else:
        answer = _relay(opened["event"].pk, token)
    assert answer.status_code in (401, 403), answer.content
    text = answer.content.decode()
    assert "centre" in text and '"rack"' not in text
    assert "token" in text


def test_bad_queries_and_no_game_opened_are_refused(opened, arbitrator):
    token = opened["tokens"]["c1"]
    for query in ({"after": "abc"}, {"after": "-1"}, {"wait": "soon"}):
        answer = _relay(opened["event"].pk, token, **query)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_relay_query", answer.content
    quiet = events.event_create(name="Quiet", actor=arbitrator)
    _, quiet_token = events.centre_register(event=quiet, code="c1")
    answer = _relay(quiet.pk, quiet_token)
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "multiplex_none", answer.content


def test_opening_needs_an_organiser_and_a_game_not_over(opened, django_user_model, make_game):
    stranger = django_user_model.objects.create_user(username="stranger", password="x-pass-12345", is_staff=True)
    client = APIClient()
    client.force_authenticate(stranger)
    url = reverse("api-event-games", kwargs={"event_id": opened["event"].pk})
    answer = client.post(url, {"game": make_game().pk, "game_id": "M2"}, format="json")
    assert answer.status_code == 403, answer.content
    client.force_authenticate(opened["actor"])
    answer = client.post(url, {"game": make_game().pk, "game_id": "M1"}, format="json")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "event_game_twice"
    assert opened["event"].games.count() == 1


# ---- the centre's side ------------------------------------------------------------------------------------------


@pytest.fixture
def centre_game(make_game, isolated_cache):
    """A centre's game following the organiser's (its link made directly: the relay's HTTP is the live test's)."""
    game = make_game(seed=11)
    link = RelayLink.objects.create(game=game, organiser_event="1", event=EVENT, event_game="M1", relay_id="r" * 64,
                                    last_contact_at=timezone.now())
    return game, link


def _rack_item(seq: int, number: int, rack: str) -> dict:
    return {"seq": seq, "kind": "rack", "round": number, "rack": rack, "rejected": []}


def _organiser_round(make_game, seed: int = 7):
    """A round as the organiser plays it: its rack and, once closed, its master."""
    game = make_game(seed=seed)
    drawn = services.round_draw(game=game)
    services.round_start(round=drawn)
    services.round_close(round=drawn)
    return Round.objects.get(pk=drawn.pk)


def test_a_relayed_rack_is_drawn_and_started_when_the_console_says_so(centre_game, make_game):
    game, link = centre_game
    organiser = _organiser_round(make_game)
    relay.set_auto_start(game=game, auto_start=True)
    relay.store(link, [_rack_item(10, 1, organiser.rack)])
    relay.advance(link)
    played = game.rounds.get(number=1)
    assert played.rack == organiser.rack and played.status == Round.Status.OPEN and played.started_at is not None
    assert played.deadline - played.started_at == timedelta(seconds=game.tournament.round_seconds)  # its own clock
    assert RelayRack.objects.get(link=link, seq=10).compared == RelayRack.Check.RELAYED
    # The master confirmed here once the centre's round is closed: the organiser's, among the tied tops.
    relay.store(link, [{"seq": 11, "kind": "master", "round": 1, "master": organiser.master}])
    relay.advance(link)
    assert RelayRack.objects.get(link=link, seq=10).master_applied is False  # not closed here yet
    services.round_close(round=played)
    relay.advance(link)
    closed = Round.objects.get(pk=played.pk)
    assert (closed.master["word"], closed.master["ref"]) == (organiser.master["word"], organiser.master["ref"])
    assert LogEntry.objects.filter(game=game, action="relay_master").count() == 1


def test_without_auto_start_the_arbitrator_starts_the_clock(centre_game, make_game):
    game, link = centre_game
    organiser = _organiser_round(make_game)
    relay.store(link, [_rack_item(10, 1, organiser.rack)])
    relay.advance(link)
    assert game.rounds.get(number=1).status == Round.Status.DRAWN


@pytest.mark.parametrize("same", [True, False])
def test_a_rack_typed_while_the_link_was_down_is_compared_and_never_replaced(centre_game, make_game, same):
    game, link = centre_game
    organiser = _organiser_round(make_game)
    typed_letters = organiser.rack if same else "EEIRSTU"
    typed = services.round_draw(game=game, rack=typed_letters)
    assert typed.typed
    relay.store(link, [_rack_item(10, 1, organiser.rack)])
    relay.advance(link)
    kept = Round.objects.get(pk=typed.pk)
    assert kept.rack == typed.rack  # never replaced
    assert game.rounds.count() == 1
    relayed = RelayRack.objects.get(link=link, seq=10)
    assert relayed.compared == (RelayRack.Check.EQUAL if same else RelayRack.Check.MISMATCH)
    action = "relay_rack_equal" if same else "relay_rack_mismatch"
    entry = LogEntry.objects.get(game=game, action=action)
    assert entry.after["organiser"] == organiser.rack and entry.after["played"] == typed.rack
    shown = relay.console_state(game)
    assert [r.number for r in shown["mismatches"]] == ([] if same else [1])


def test_the_link_is_down_once_silent_and_up_at_the_next_answer(centre_game, settings):
    game, link = centre_game
    settings.ARBITER_RELAY_SILENT_SECONDS = 5
    relay.no_contact(link, "refused")
    assert RelayLink.objects.get(pk=link.pk).down_since is None  # not silent long enough
    link.last_contact_at = timezone.now() - timedelta(seconds=6)
    relay.no_contact(link, "refused")
    held = RelayLink.objects.get(pk=link.pk)
    assert held.down_since == link.last_contact_at and held.last_error == "refused"
    assert relay.console_state(game)["up"] is False
    relay.contact(held)
    assert RelayLink.objects.get(pk=link.pk).down_since is None and relay.console_state(game)["up"]


def test_standings_say_which_rounds_each_centre_reported(opened):
    merged = events.standings(opened["event"])
    assert merged["rounds"] == {"M1": 0} and merged["reported"] == {"M1": {"c1": 0, "c2": 0}}
    assert merged["behind"] == []
    services.round_close(round=services.round_start(round=services.round_draw(game=opened["game"])))
    merged = events.standings(opened["event"])
    assert merged["rounds"] == {"M1": 1} and merged["behind"] == ["c1", "c2"]
    assert multiplex.live_of(opened["event"]).live_game_id == opened["game"].pk


def test_the_merged_standings_page_lists_the_rounds_each_centre_reported_and_reads_itself_again(opened, client,
                                                                                                 settings):
    settings.ARBITER_EVENT_STANDINGS_REFRESH_SECONDS = 7
    services.round_close(round=services.round_start(round=services.round_draw(game=opened["game"])))
    client.force_login(opened["actor"])
    page = client.get(reverse("console-event-standings", kwargs={"event_id": opened["event"].pk})).content.decode()
    progress = page[page.index('id="event-progress"'):page.index("</section>", page.index('id="event-progress"'))]
    assert progress.count('class="behind"') == 2 and "0 of 1" in progress
    assert '<meta http-equiv="refresh" content="7">' in page
    # The event's page lists the game as played live here, linked to its console.
    event_page = client.get(reverse("console-event", kwargs={"event_id": opened["event"].pk})).content.decode()
    assert reverse("console-game", kwargs={"game_id": opened["game"].pk}) in event_page


@pytest.mark.django_db(transaction=True)
def test_a_waiting_centre_is_answered_when_the_round_starts_not_at_the_end_of_its_wait(opened):
    import threading
    import time

    from django.db import connections

    event, game, token = opened["event"], opened["game"], opened["tokens"]["c1"]
    drawn = services.round_draw(game=game, actor=opened["actor"])
    answered = {}

    def wait():
        started = time.monotonic()
        try:
            answered["items"] = _relay(event.pk, token, wait="30").json()["items"]
            answered["seconds"] = time.monotonic() - started
        finally:
            connections.close_all()

    waiting = threading.Thread(target=wait)
    waiting.start()
    time.sleep(0.5)
    assert waiting.is_alive()  # nothing to say yet: it waits
    services.round_start(round=drawn, actor=opened["actor"])
    waiting.join(timeout=30)
    assert [(i["kind"], i["round"]) for i in answered["items"]] == [("rack", 1)]
    assert answered["seconds"] < 30  # told of the start, not at the end of its wait


def test_the_organisers_master_is_confirmed_where_the_centre_proposed_another_tied_top(centre_game):
    game, link = centre_game
    relay.store(link, [_rack_item(10, 1, "AEINRST")])
    relay.advance(link)
    played = game.rounds.get(number=1)
    services.round_start(round=played)
    services.round_close(round=played)
    closed = Round.objects.get(pk=played.pk)
    others = [top for top in closed.tops if (top["word"], top["ref"]) != (closed.master["word"], closed.master["ref"])]
    assert others, closed.tops  # an empty board: the same word ties at several places
    organiser = others[-1]
    relay.store(link, [{"seq": 11, "kind": "master", "round": 1,
                        "master": {k: organiser[k] for k in ("word", "ref", "score")}}])
    relay.advance(link)
    confirmed = Round.objects.get(pk=played.pk)
    assert (confirmed.master["word"], confirmed.master["ref"]) == (organiser["word"], organiser["ref"])
    entry = LogEntry.objects.get(game=game, action="relay_master")
    assert entry.after["outcome"] == "confirmed" and entry.after["proposed"]["ref"] == closed.master["ref"]
    assert LogEntry.objects.filter(game=game, action="master_change").count() == 1
    # The board carries the organiser's master: the next rack is played on it.
    from engine.board import Board
    from tournaments.setting import play_from_dict

    game.refresh_from_db()
    assert list(game.board) == list(Board.from_rows(played.board).place(play_from_dict(organiser)).rows())


def test_a_rack_typed_after_the_organisers_rejected_draw_is_taken_once_the_rejection_is_recorded(
        centre_game, make_game):
    """The organiser's draw failed the vowel/consonant rule: its kept letters went back into the bag with the
    rejected draw, and its rack is a whole new one. Centre 2's arbitrator, cut off, is told both over the phone:
    the rack typed alone is refused (the kept letters are missing from it) and changes nothing; recorded as
    rejected first (POST rejections, as the physical bag's), it is taken, and found equal when the link comes
    back."""
    from engine.tiles import load_tileset
    from tournaments.errors import ServiceError

    game, link = centre_game
    tileset = load_tileset(game.tournament.tileset)
    for seed in range(1, 60):  # the first seeded organiser's game whose kept letters can be made to fail the rule
        organiser = make_game(seed=seed)
        first = services.round_draw(game=organiser)
        services.round_start(round=first)
        services.round_close(round=first)
        organiser.refresh_from_db()
        kept = organiser.kept
        vowels = sum(1 for ch in kept if tileset.is_vowel(ch) and not tileset.is_consonant(ch))
        if kept and "?" not in kept and vowels <= 1:
            break
    else:
        pytest.fail("no seed in 1..59 keeps letters with at most one vowel")
    first = Round.objects.get(pk=first.pk)
    # The centre played round 1 with the link up: the same rack and the same master, so the same kept letters.
    relay.store(link, [_rack_item(10, 1, first.rack)])
    relay.advance(link)
    centre_first = game.rounds.get(number=1)
    services.round_start(round=centre_first)
    services.round_close(round=centre_first)
    relay.store(link, [{"seq": 11, "kind": "master", "round": 1,
                        "master": {k: first.master[k] for k in ("word", "ref", "score")}}])
    relay.advance(link)
    game.refresh_from_db()
    assert game.kept == kept

    # Round 2 at the organiser: kept letters plus consonants only, rejected; then a whole new rack.
    consonants = [ch for ch in organiser.bag if tileset.is_consonant(ch) and not tileset.is_vowel(ch)]
    failing = kept + "".join(consonants[: 7 - len(kept)])
    records = services.rack_reject(game=organiser, rack=failing)
    second = services.round_draw(game=organiser)
    services.round_start(round=second)
    second = Round.objects.get(pk=second.pk)
    assert second.rejected == records and second.kept == ""

    # Cut off, centre 2 types the rack alone: refused, nothing changed.
    with pytest.raises(ServiceError) as refused:
        services.round_draw(game=game, rack=second.rack)
    assert refused.value.code == "missing_kept"
    assert game.rounds.count() == 1
    # The rejection read out over the phone, recorded first: the rack is taken.
    for record in second.rejected:
        services.rack_reject(game=game, rack=record.lstrip("-").replace("+", ""))
    typed = services.round_draw(game=game, rack=second.rack)
    assert typed.typed and typed.rejected == second.rejected
    relay.store(link, [{"seq": 20, "kind": "rack", "round": 2, "rack": second.rack, "rejected": second.rejected}])
    relay.advance(link)
    assert RelayRack.objects.get(link=link, seq=20).compared == RelayRack.Check.EQUAL
    assert Round.objects.get(pk=typed.pk).rack == typed.rack


@pytest.mark.parametrize("how", ["relayed", "typed"])
def test_an_explosive_game_s_rack_is_taken_as_the_organiser_played_it(make_game, isolated_cache, how):
    """In an explosive game the organiser's rack holds the letter its new blank became (no blank): a centre
    takes it as drawn from its bag as it is, relayed or typed from the phone, and its bag follows the
    organiser's (the letter out, the blank still in)."""
    organiser = make_game(seed=5, variant="explosive")
    drawn = services.round_draw(game=organiser)
    assert "?" not in drawn.rack and drawn.replaced, drawn.rack  # the new blank became a letter
    centre = make_game(seed=9, variant="explosive")
    link = RelayLink.objects.create(game=centre, organiser_event="1", event=EVENT, event_game="M1",
                                    relay_id="r" * 64, last_contact_at=timezone.now())
    if how == "typed":
        services.round_draw(game=centre, rack=drawn.rack)
    relay.store(link, [_rack_item(10, 1, drawn.rack)])
    relay.advance(link)
    played = centre.rounds.get(number=1)
    assert played.rack == drawn.rack
    assert RelayRack.objects.get(link=link, seq=10).compared == (
        RelayRack.Check.RELAYED if how == "relayed" else RelayRack.Check.EQUAL)
    organiser.refresh_from_db()
    centre.refresh_from_db()
    assert sorted(centre.bag) == sorted(organiser.bag) and "?" in centre.bag
