"""Public results (tournaments/public.py, /results/<key>/, GET /api/public/<key>): off by default (404), turned on
and off by a head arbitrator only (logged), a 304 answered from one cache read without the database, the ETag
moved by a round's close and by paper slips completed but not by a round drawn or played, nothing of a round in
play in the page or the feed, filters by series and category (and centre for an event), provisional marks, an
event's page with its centres; the tournament's language."""

from __future__ import annotations

import json

import pytest
from django.conf import settings as django_settings
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tournaments import public, services
from tournaments.errors import ServiceError
from tournaments.models import Game, GameArbitrator, LogEntry, PublicLink, Round

from .test_event_results import _push, _results, drawn, event, organiser  # noqa: F401 - fixtures used below

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("isolated_cache")]

if connection.vendor != "postgresql" or not django_settings.BROKER.redis_url:
    pytest.skip("needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL): the feed's 304 is one Redis read, counted",
                allow_module_level=True)


@pytest.fixture
def hall(make_tournament, arbitrator):
    """A tournament of one game with three players (series and categories of the federation's lists), whose
    arbitrator is its head."""
    tournament = make_tournament(name="Open de Tours")
    game = services.game_create(tournament=tournament, seed=11, actor=arbitrator)
    people = [("Ann", "1", "Junior"), ("Bob", "2", "Cadet"), ("Cleo", "1", "Cadet")]
    players = [services.player_register(game=game, name=name, table=i + 1, series=series, category=category,
                                        actor=arbitrator)[0]
               for i, (name, series, category) in enumerate(people)]
    return {"tournament": tournament, "game": game, "players": players}


def _feed(client, key, etag=None, **params):
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    return client.get(reverse("api-public-feed", kwargs={"key": key}), params, **headers)


def _page(client, key, etag=None, number=None, **params):
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    if number is None:
        url = reverse("public-results", kwargs={"key": key})
    else:
        url = reverse("public-results-game", kwargs={"key": key, "number": number})
    return client.get(url, params, **headers)


def _play_round(game, arbitrator, *, slips: dict, close: bool = True) -> Round:
    """Draw, start and (unless told) close a round: ``slips`` maps a player to "top" (the top as written) or
    "none"; a played slip is entered as a paper slip by the arbitrator."""
    rnd = services.round_draw(game=game, actor=arbitrator)
    rnd = services.round_compute_tops(round=rnd)
    services.round_start(round=rnd, actor=arbitrator)
    rnd.refresh_from_db()
    top = rnd.tops[0]
    for player, what in slips.items():
        if what == "top":
            services.slip_submit(round=rnd, player=player, word=top["word"], ref=top["ref"], score=top["score"],
                                 key=f"k{rnd.number}-{player.pk}", entered_by=arbitrator)
    if close:
        assert services.round_close(round=rnd, actor=arbitrator)
    rnd.refresh_from_db()
    return rnd


def test_a_link_is_off_until_a_head_turns_it_on_and_404_once_off(client, hall, arbitrator):
    tournament = hall["tournament"]
    assert PublicLink.objects.filter(tournament=tournament).count() == 0
    link = public.link_set(tournament=tournament, on=False, actor=arbitrator)
    assert _feed(client, link.key).status_code == 404
    assert _page(client, link.key).status_code == 404
    assert _feed(client, "no-such-key").status_code == 404

    link = public.link_set(tournament=tournament, on=True, actor=arbitrator)
    assert len(link.key) >= 20
    first = _feed(client, link.key)
    assert first.status_code == 200 and first.json()["name"] == "Open de Tours"
    assert _page(client, link.key).status_code == 200
    assert _feed(client, link.key, etag=first["ETag"]).status_code == 304  # the stamp is in the cache now

    again = public.link_set(tournament=tournament, on=False, actor=arbitrator)
    assert again.key == link.key
    assert _feed(client, link.key).status_code == 404
    assert _feed(client, link.key, etag=first["ETag"]).status_code == 404
    assert _page(client, link.key).status_code == 404
    entries = list(LogEntry.objects.filter(game=hall["game"], action="public_results").order_by("seq"))
    assert [(e.before, e.after, e.actor_id) for e in entries] == [
        ({"public": False}, {"public": False}, arbitrator.pk), ({"public": False}, {"public": True}, arbitrator.pk),
        ({"public": True}, {"public": False}, arbitrator.pk)]


def test_only_a_head_turns_the_link_on_and_a_refusal_changes_nothing(client, hall, arbitrator, django_user_model):
    game, tournament = hall["game"], hall["tournament"]
    assistant = django_user_model.objects.create_user(username="assistant", password="x-secret-1", is_staff=True)
    stranger = django_user_model.objects.create_user(username="stranger", password="x-secret-2", is_staff=True)
    services.arbitrator_set(game=game, username=arbitrator.username, role="head", actor=arbitrator)
    services.arbitrator_set(game=game, username=assistant.username, role="assistant", actor=arbitrator)
    for user in (assistant, stranger):
        with pytest.raises(ServiceError) as refused:
            public.link_set(tournament=tournament, on=True, actor=user)
        assert refused.value.code == "head_only"
    assert not PublicLink.objects.filter(tournament=tournament, enabled=True).exists()
    assert not LogEntry.objects.filter(action="public_results").exists()
    # Through the console: the assistant's post is refused, the head's turns it on.
    client.force_login(assistant)
    client.post(reverse("console-tournament-public", kwargs={"tournament_id": tournament.pk}), {"public": "1"})
    assert not PublicLink.objects.filter(tournament=tournament, enabled=True).exists()
    client.force_login(arbitrator)
    answer = client.post(reverse("console-tournament-public", kwargs={"tournament_id": tournament.pk}),
                         {"public": "1"})
    assert answer.status_code == 302
    link = PublicLink.objects.get(tournament=tournament, enabled=True)
    page = client.get(reverse("console-tournament", kwargs={"tournament_id": tournament.pk}))
    assert reverse("public-results", kwargs={"key": link.key}) in page.content.decode()


class _CacheCalls:
    """Counts the calls made to the default cache (every method that reaches Redis)."""

    METHODS = ("get", "get_many", "set", "set_many", "add", "delete", "delete_many", "incr", "has_key", "touch")

    def __init__(self, monkeypatch):
        self.calls = []
        backend = caches["default"]
        for name in self.METHODS:
            original = getattr(backend, name)
            monkeypatch.setattr(backend, name, self._counted(name, original))

    def _counted(self, name, original):
        def call(*args, **kwargs):
            self.calls.append(name)
            return original(*args, **kwargs)

        return call


def test_a_304_is_one_cache_read_and_no_query_with_etag_and_cache_control(client, hall, arbitrator, settings,
                                                                           monkeypatch):
    settings.ARBITER_PUBLIC_MAX_AGE = 7
    link = public.link_set(tournament=hall["tournament"], on=True, actor=arbitrator)
    _play_round(hall["game"], arbitrator, slips={p: "top" for p in hall["players"]})
    first = _feed(client, link.key)
    assert first.status_code == 200
    tag = first["ETag"]
    assert tag.startswith('"') and not tag.startswith("W/")  # strong
    assert first["Cache-Control"] == "public, max-age=7"
    page = _page(client, link.key)
    assert page.status_code == 200 and page["Cache-Control"] == "public, max-age=7" and page["ETag"] != tag
    counter = _CacheCalls(monkeypatch)
    for url_etag, ask in ((tag, _feed), (page["ETag"], _page)):
        counter.calls.clear()
        with CaptureQueriesContext(connection) as queries:
            again = ask(client, link.key, etag=url_etag)
        assert again.status_code == 304
        assert again.content == b""
        assert again["ETag"] == url_etag and again["Cache-Control"] == "public, max-age=7"
        assert len(queries) == 0, [q["sql"] for q in queries]
        assert counter.calls == ["get_many"]
    # Another ETag (an older one, or none): the whole body.
    assert _feed(client, link.key, etag='"f0000"').status_code == 200


def test_the_close_moves_the_etag_and_a_round_in_play_shows_nothing(client, hall, arbitrator):
    game, (ann, bob, cleo) = hall["game"], hall["players"]
    link = public.link_set(tournament=hall["tournament"], on=True, actor=arbitrator)
    empty = _feed(client, link.key)
    assert empty.json()["games"][0]["rounds"] == [] and empty.json()["games"][0]["standings"][0]["total"] == 0

    one = _play_round(game, arbitrator, slips={ann: "top", bob: "top"})
    after_one = _feed(client, link.key, etag=empty["ETag"])
    assert after_one.status_code == 200 and after_one["ETag"] != empty["ETag"]
    body = after_one.json()
    played = body["games"][0]
    assert played["rounds_closed"] == 1
    assert played["rounds"][0]["number"] == 1
    assert played["rounds"][0]["master"] == {k: one.master[k] for k in ("word", "ref", "score")}
    assert played["rounds"][0]["top"] == one.top_score
    totals = {row["name"]: row["total"] for row in played["standings"]}
    assert totals == {"Ann": one.top_score, "Bob": one.top_score, "Cleo": 0}

    # Round 2 drawn, started, slips handed in: nothing of it anywhere, the ETag the same.
    two = _play_round(game, arbitrator, slips={ann: "top", cleo: "top"}, close=False)
    assert two.status == Round.Status.OPEN
    still = _feed(client, link.key, etag=after_one["ETag"])
    assert still.status_code == 304
    whole = _feed(client, link.key)
    assert whole["ETag"] == after_one["ETag"] and whole.json() == body
    text = json.dumps(whole.json())
    assert two.rack not in text and two.tops[0]["word"] not in {r["master"]["word"] for r in played["rounds"]} | {""}
    page = _page(client, link.key).content.decode()
    assert two.rack not in page and "public-round-2" not in page
    assert "public-round-1" in page and one.master["word"] in page

    assert services.round_close(round=two, actor=arbitrator)
    two.refresh_from_db()
    closed = _feed(client, link.key, etag=after_one["ETag"])
    assert closed.status_code == 200
    assert [r["number"] for r in closed.json()["games"][0]["rounds"]] == [1, 2]
    assert "public-round-2" in _page(client, link.key).content.decode()


def test_provisional_marks_until_the_paper_slips_are_in(client, hall, arbitrator):
    game, ann = hall["game"], hall["players"][0]
    link = public.link_set(tournament=hall["tournament"], on=True, actor=arbitrator)
    rnd = _play_round(game, arbitrator, slips={ann: "top"})  # paper players: Bob's and Cleo's slips not entered
    assert not rnd.slips_complete
    body = _feed(client, link.key)
    data = body.json()
    assert data["provisional"] is True
    assert data["games"][0]["provisional"] is True and data["games"][0]["rounds"][0]["provisional"] is True
    page = _page(client, link.key).content.decode()
    assert 'id="public-provisional"' in page and "provisional-mark" in page

    services.round_slips_complete(round=rnd, actor=arbitrator)
    final = _feed(client, link.key, etag=body["ETag"])
    assert final.status_code == 200
    assert final.json()["provisional"] is False and final.json()["games"][0]["rounds"][0]["provisional"] is False
    assert 'id="public-provisional"' not in _page(client, link.key).content.decode()


def test_filters_by_series_and_category(client, hall, arbitrator):
    game, (bob, cleo) = hall["game"], hall["players"][1:]
    link = public.link_set(tournament=hall["tournament"], on=True, actor=arbitrator)
    rnd = _play_round(game, arbitrator, slips={bob: "top", cleo: "top"})
    everyone = _feed(client, link.key).json()
    assert everyone["filters"] == {"series": ["1", "2"], "category": ["Cadet", "Junior"]}
    series_one = _feed(client, link.key, series="1").json()
    rows = series_one["games"][0]["standings"]
    assert [(r["name"], r["rank"], r["group_rank"]) for r in rows] == [("Cleo", 1, 1), ("Ann", 3, 2)]
    assert series_one["filtered"] == {"series": "1"}
    cadets_two = _feed(client, link.key, series="2", category="Cadet").json()["games"][0]["standings"]
    assert [(r["name"], r["total"]) for r in cadets_two] == [("Bob", rnd.top_score)]
    assert _feed(client, link.key, category="Senior").json()["games"][0]["standings"] == []
    page = _page(client, link.key, category="Cadet").content.decode()
    assert "Bob" in page and "Cleo" in page and "Ann" not in page
    nobody = _page(client, link.key, category="Senior").content.decode()
    assert 'id="public-empty"' in nobody and "Bob" not in nobody
    # A game's own page: the same rows, its rounds.
    game_page = _page(client, link.key, number=1, series="2").content.decode()
    assert "Bob" in game_page and "Cleo" not in game_page and "public-round-1" in game_page
    assert _page(client, link.key, number=9).status_code == 404


def test_the_page_speaks_the_tournaments_language(client, make_tournament, arbitrator):
    tournament = make_tournament(name="Festival de Vichy", language="fr")
    game = services.game_create(tournament=tournament, seed=5, actor=arbitrator)
    services.player_register(game=game, name="Zoé", table=1, actor=arbitrator)
    link = public.link_set(tournament=tournament, on=True, actor=arbitrator)
    page = _page(client, link.key, HTTP_ACCEPT_LANGUAGE="en")
    text = page.content.decode()
    assert page["Content-Language"] == "fr"
    assert '<html lang="fr">' in text and "Classement" in text and "Aucun coup fermé" in text
    assert _feed(client, link.key).json()["language"] == "fr"


def test_an_events_page_with_its_centres(client, drawn, event, organiser):  # noqa: F811 - the fixtures
    link = public.link_set(event=event, on=True, actor=organiser)
    before = _feed(client, link.key)
    assert before.status_code == 200 and before.json()["kind"] == "event" and before.json()["standings"] == []
    for code in ("A", "B"):
        assert _push(event, event.tokens[code], _results(drawn, code)).status_code == 201
    two = _feed(client, link.key, etag=before["ETag"])
    assert two.status_code == 200
    data = two.json()
    assert data["provisional"] is True
    assert {c["code"]: c["missing"] for c in data["centres"]} == {"A": False, "B": False, "C": True}
    assert {row["centre"] for row in data["standings"]} == {"A", "B"}
    # C has not reported: no master is shown (a centre may still be playing).
    assert data["games"][0]["rounds"] == [] and data["games"][0]["rounds_shown"] == 0
    only_a = _feed(client, link.key, centre="A").json()["standings"]
    assert only_a and {row["centre"] for row in only_a} == {"A"}
    assert [row["group_rank"] for row in only_a] == sorted(row["group_rank"] for row in only_a)
    assert only_a[0]["group_rank"] == 1
    page = _page(client, link.key).content.decode()
    assert 'id="public-centres"' in page and "Club C" in page and "pas encore" in page  # the event speaks French

    assert _push(event, event.tokens["C"], _results(drawn, "C")).status_code == 201
    three = _feed(client, link.key, etag=two["ETag"])
    assert three.status_code == 200
    data = three.json()
    assert data["provisional"] is False
    game_file = drawn["game"]["file"]
    rounds = data["games"][0]["rounds"]
    assert [r["number"] for r in rounds] == [r.number for r in game_file.game.rounds]
    assert [r["master"]["word"] for r in rounds] == [r.master.word for r in game_file.game.rounds]
    assert [r["top"] for r in rounds] == [r.master.score for r in game_file.game.rounds]
    public.link_set(event=event, on=False, actor=organiser)
    assert _feed(client, link.key, etag=three["ETag"]).status_code == 404


def test_an_event_link_is_the_organisers_to_turn(event, django_user_model):  # noqa: F811
    other = django_user_model.objects.create_user(username="other-head", password="x-secret-3", is_staff=True)
    with pytest.raises(ServiceError) as refused:
        public.link_set(event=event, on=True, actor=other)
    assert refused.value.code == "head_only"
    assert not PublicLink.objects.filter(event=event).exists()


def test_game_status_is_not_a_round_in_play(hall, arbitrator):
    """The data never names the round in play: a drawn round leaves the game's public data as it was."""
    game = hall["game"]
    before = public.tournament_data(hall["tournament"])
    services.round_draw(game=game, actor=arbitrator)
    assert Game.objects.get(pk=game.pk).status == Game.Status.PLAYING
    assert public.tournament_data(hall["tournament"]) == before
    assert [(row.user, row.role) for row in GameArbitrator.objects.all()] == [(arbitrator, "head")]  # its creator


def test_the_feed_is_in_the_openapi_schema(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/public/{key}"]["get"]
    assert {"200", "304", "404"} <= set(operation["responses"])
    assert {p["name"] for p in operation["parameters"]} >= {"key", "centre", "series", "category", "If-None-Match"}
    body = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    fields = schema["components"]["schemas"][body]["properties"]
    assert {"version", "kind", "name", "language", "provisional", "games", "standings", "filters"} <= set(fields)


def test_a_correction_after_the_close_moves_the_etag(client, hall, arbitrator):
    from tournaments.models import Result

    game, ann = hall["game"], hall["players"][0]
    link = public.link_set(tournament=hall["tournament"], on=True, actor=arbitrator)
    rnd = _play_round(game, arbitrator, slips={ann: "top"})
    before = _feed(client, link.key)
    result = Result.objects.get(round=rnd, player=ann)
    services.result_override(result=result, paid=rnd.top_score - 5, outcome="penalty", reason="misplaced tile seen",
                             actor=arbitrator)
    after = _feed(client, link.key, etag=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    row = next(r for r in after.json()["games"][0]["standings"] if r["name"] == "Ann")
    assert row["total"] == rnd.top_score - 5


def test_the_page_sets_no_cookie_and_answers_head(client, hall, arbitrator):
    link = public.link_set(tournament=hall["tournament"], on=True, actor=arbitrator)
    page = _page(client, link.key)
    assert page.status_code == 200 and not page.cookies
    assert "Cookie" not in page.get("Vary", "")
    head = client.head(reverse("public-results", kwargs={"key": link.key}))
    assert head.status_code == 200 and head["ETag"] == page["ETag"]


def test_a_followers_304_is_answered_before_django_and_anything_else_goes_on(client, hall, arbitrator):
    """tournaments/public_fast.py in front of the ASGI application: the current ETag of a current stamp is a 304
    with the headers Django gives it; the unfiltered feed without it (or with another ETag) is the body Django
    gave, once this process has it encoded; a page without If-None-Match, an unknown host or a link turned off
    go on to the application."""
    import asyncio

    from asgiref.testing import ApplicationCommunicator

    from tournaments import public_fast

    link = public.link_set(tournament=hall["tournament"], on=True, actor=arbitrator)
    feed, page = _feed(client, link.key), _page(client, link.key)
    passed = []

    async def django_app(scope, receive, send):
        passed.append(scope["path"])
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b"django"})

    fast = public_fast.fast_public(django_app)

    def ask(path, etag=None, host=b"testserver"):
        headers = [(b"host", host)] + ([(b"if-none-match", etag.encode())] if etag else [])
        scope = {"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": headers}

        async def run():
            talk = ApplicationCommunicator(fast, scope)
            await talk.send_input({"type": "http.request", "body": b""})
            start = await talk.receive_output(5)
            body = await talk.receive_output(5)
            return start["status"], dict(start["headers"]), body["body"]

        return asyncio.run(run())

    feed_path = reverse("api-public-feed", kwargs={"key": link.key})
    page_path = reverse("public-results", kwargs={"key": link.key})
    before = public_fast.served["fast"]
    with CaptureQueriesContext(connection) as queries:
        status, headers, body = ask(feed_path, feed["ETag"])
        assert (status, body) == (304, b"")
        assert headers[b"etag"].decode() == feed["ETag"]
        assert headers[b"cache-control"].decode() == feed["Cache-Control"]
        assert ask(page_path, page["ETag"])[0] == 304
        assert ask(reverse("public-results-game", kwargs={"key": link.key, "number": 1}), page["ETag"])[0] == 304
        # The whole unfiltered feed, encoded by this process when Django answered it above: the same body.
        wholes = public_fast.served["fast_200"]
        for etag in (None, page["ETag"]):  # no If-None-Match; the page's ETag, which is not the feed's
            status, headers, body = ask(feed_path, etag)
            assert (status, body) == (200, feed.content)
            assert headers[b"etag"].decode() == feed["ETag"] and headers[b"content-type"] == b"application/json"
    assert len(queries) == 0 and passed == [] and public_fast.served["fast"] == before + 3
    assert public_fast.served["fast_200"] == wholes + 2
    assert ask(page_path)[0] == 299  # a page without If-None-Match: Django renders it
    assert ask(feed_path, feed["ETag"], host=b"evil.example")[0] == 299
    public.link_set(tournament=hall["tournament"], on=False, actor=arbitrator)
    assert ask(feed_path, feed["ETag"])[0] == 299  # the stamp is gone: Django answers (404)
    assert ask(feed_path)[0] == 299
    assert len(passed) == 4


def test_while_one_request_checks_the_link_the_others_answer_from_the_stamp(client, hall, arbitrator):
    from django.core.cache import cache

    link = public.link_set(tournament=hall["tournament"], on=True, actor=arbitrator)
    first = _feed(client, link.key)
    _play_round(hall["game"], arbitrator, slips={hall["players"][0]: "top"})  # the clock and the data move
    assert cache.add(public._build_key(link.key), 1, timeout=10)  # another request is checking the link
    with CaptureQueriesContext(connection) as queries:
        meanwhile = _feed(client, link.key, etag=first["ETag"])
    assert meanwhile.status_code == 304 and len(queries) == 0
    cache.delete(public._build_key(link.key))
    checked = _feed(client, link.key, etag=first["ETag"])
    assert checked.status_code == 200 and checked["ETag"] != first["ETag"]
    assert checked.json()["games"][0]["rounds_closed"] == 1
