"""The phone, join and projector pages and the live feed, through Django's test client."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from django.conf import settings
from django.urls import reverse

from tournaments import versions as version_counter
from tournaments.live import snapshot as live
from tournaments.live import stream as live_stream
from tournaments.services import round_close, round_draw, round_start, slip_submit
from tournaments.web.views import board_context

RACK = "AEINRS?"


def _played_round(game, player, word="RAINES", ref="H4", score=16):
    """Round 1 of ``game`` drawn with RACK, opened, one slip from ``player``, closed: the master is placed."""
    round_ = round_draw(game=game, rack=RACK)
    round_start(round=round_)
    slip_submit(round=round_, player=player, word=word, ref=ref, score=score, key="k1")
    round_close(round=round_)
    round_.refresh_from_db()
    game.refresh_from_db()
    return round_


# ---- the board partial ------------------------------------------------------------------------------


def test_board_context_follows_the_labelling_and_the_premium_layout():
    rows = ["." * 15] * 7 + ["...HOUsE......."] + ["." * 15] * 7
    letters = board_context(rows, "rows-letters")
    assert [row["label"] for row in letters["rows"]] == list("ABCDEFGHIJKLMNO")
    assert letters["columns"] == [str(n) for n in range(1, 16)]
    numbers = board_context(rows, "rows-numbers")
    assert [row["label"] for row in numbers["rows"]] == [str(n) for n in range(1, 16)]
    assert numbers["columns"] == list("ABCDEFGHIJKLMNO")

    h = letters["rows"][7]["cells"]
    assert [c["letter"] for c in h[3:8]] == list("HOUSE")
    assert [c["blank"] for c in h[3:8]] == [False, False, False, True, False]
    assert h[7]["centre"] and h[7]["premium"] == "dw"
    corner = letters["rows"][0]["cells"][0]
    assert corner["premium"] == "tw" and corner["letter"] == ""
    assert letters["rows"][1]["cells"][5]["premium"] == "tl"
    assert letters["rows"][0]["cells"][3]["premium"] == "dl"
    counts = {}
    for row in letters["rows"]:
        for cell in row["cells"]:
            counts[cell["premium"]] = counts.get(cell["premium"], 0) + 1
    assert counts == {"tw": 8, "dw": 17, "tl": 12, "dl": 24, "": 164}


def test_phone_page_shows_the_board_with_the_tournaments_labels(client, make_game):
    game = make_game(coordinates="rows-numbers")
    html = client.get(reverse("phone", args=[game.pk])).content.decode()
    assert html.count('class="sq') == 225
    row_labels = re.findall(r'<th scope="row">([^<]+)</th>', html)
    col_labels = re.findall(r'<th scope="col">([^<]+)</th>', html)
    assert row_labels[:15] == [str(n) for n in range(1, 16)]
    assert col_labels[:15] == list("ABCDEFGHIJKLMNO")
    assert 'data-labelling="rows-numbers"' in html


@pytest.mark.django_db(transaction=True)
def test_the_master_is_drawn_on_the_board_with_its_blank_marked(client, make_game, make_player):
    game = make_game()
    player, _ = make_player(game, name="Alice")
    round_ = _played_round(game, player)
    master = round_.master
    assert master is not None
    html = client.get(reverse("phone", args=[game.pk])).content.decode()
    tiles = re.findall(r'<span class="tile( blank)?">([A-Z])', html)
    assert "".join(letter for _, letter in tiles) == master["word"].upper()
    blanks = [letter for blank, letter in tiles if blank]
    assert blanks == [ch.upper() for ch in master["word"] if ch.islower()]
    assert html.count("(blank)") >= len(blanks)


# ---- pages, languages and access --------------------------------------------------------------------


def test_every_control_of_the_phone_page_has_a_label(client, game):
    html = client.get(reverse("phone", args=[game.pk])).content.decode()
    inputs = re.findall(r"<input[^>]*>", html)
    ids = [re.search(r'id="([^"]+)"', tag).group(1) for tag in inputs if 'type="hidden"' not in tag]
    assert {"slip-ref", "slip-word", "slip-score"} <= set(ids)
    for input_id in ids:
        assert f'<label for="{input_id}"' in html, input_id
    assert 'class="skip-link" href="#main"' in html and '<main id="main"' in html
    assert 'role="timer"' in html


def test_pages_switch_to_french(client, game):
    english = client.get(reverse("phone", args=[game.pk])).content.decode()
    assert '<html lang="en">' in english and ">Word</label>" in english
    answer = client.post("/i18n/setlang/", {"language": "fr", "next": reverse("phone", args=[game.pk])})
    assert answer.status_code == 302 and answer["Location"] == reverse("phone", args=[game.pk])
    french = client.get(reverse("phone", args=[game.pk])).content.decode()
    assert '<html lang="fr">' in french
    assert ">Mot</label>" in french and ">Référence</label>" in french
    assert ">MT<" in french and ">TW<" not in french  # premium squares in French
    config = json.loads(re.search(r'<script id="page-config" type="application/json">(.*?)</script>', french,
                                  re.S).group(1))
    assert config["outcomes"]["warning"] == "Avertissement"
    assert config["text"]["round_n"] == "Coup %(n)s"


def test_join_page_takes_the_code_from_the_qr_link(client):
    html = client.get(reverse("join-code", args=["ab12cd"])).content.decode()
    assert 'id="join-code"' in html and 'value="AB12CD"' in html
    assert client.get(reverse("join")).status_code == 200


def test_projector_shows_the_join_code_and_its_qr_link(client, game):
    html = client.get(reverse("projector", args=[game.screen_key])).content.decode()
    assert game.join_code in html
    assert f"http://testserver/join/{game.join_code}" in html
    assert "<svg" in html and 'class="segno"' in html


def test_unknown_game_pages_are_404(client, db):
    for name in ("phone", "game-live", "game-events"):
        assert client.get(reverse(name, args=[999999])).status_code == 404
    assert client.get(reverse("projector", args=["no-such-key"])).status_code == 404


# ---- the live feed ----------------------------------------------------------------------------------


def _live(client, game, **params):
    answer = client.get(reverse("game-live", args=[game.pk]), params)
    assert answer.status_code == 200
    assert "no-cache" in answer["Cache-Control"]
    return answer.json()


@pytest.mark.django_db(transaction=True)
def test_live_feed_follows_the_round_and_hides_what_the_rules_hide(client, make_game, make_player):
    game = make_game()
    player, _ = make_player(game, name="Alice")
    before = _live(client, game)
    assert before["round"] is None and before["last"] is None and before["standings"] == []
    make_player(game, name="Late")  # an arrival changes the count for the projector, not the phones' state
    arrived = _live(client, game)
    assert arrived["progress"]["players"] == 2
    unsent = ("server_time", "server_ms")
    assert ({k: v for k, v in live.without_progress(arrived).items() if k not in unsent}
            == {k: v for k, v in live.without_progress(before).items() if k not in unsent})

    round_ = round_draw(game=game, rack=RACK)
    drawn = _live(client, game)
    assert drawn["version"] > before["version"]
    assert drawn["round"] == 1 and drawn["round_status"] == "drawn" and drawn["deadline"] is None
    assert sorted(drawn["game"]["rack"]) == sorted(RACK)

    round_start(round=round_)
    slip_submit(round=round_, player=player, word="SIRENAs", ref="H8", score=70, key="k1")
    opened = _live(client, game)
    assert opened["round_status"] == "open" and opened["deadline"]
    assert opened["progress"] == {"round": 1, "received": 1, "players": 2}
    text = json.dumps(opened)
    # During the round: no slip content, no top, no score of anything.
    assert "SIRENA" not in text.upper() and "top_score" not in text and opened["last"] is None
    assert "seed" not in opened["game"] and "bag" not in opened["game"]
    assert game.join_code not in text  # the feed is public; joining takes the code shown in the hall

    round_close(round=round_)
    round_.refresh_from_db()
    closed = _live(client, game)
    assert closed["round_status"] == "closed"
    assert closed["last"]["number"] == 1
    assert closed["last"]["top_score"] == round_.top_score
    assert closed["last"]["master"]["word"] == round_.master["word"]
    assert closed["standings"][0]["name"] == "Alice"
    assert closed["progress"] == {"round": None, "received": None, "players": 2}


def test_live_clock_answer_is_small(client, game):
    body = _live(client, game, clock="1")
    assert set(body) == {"server_time", "server_ms", "version", "progress"}
    assert body["version"] == live.game_version(game.pk)
    assert body["progress"] == live.progress_mark(game.pk)


def _sse_events(chunks) -> list[dict]:
    text = "".join(c.decode() if isinstance(c, bytes) else c for c in chunks)
    return [json.loads(m) for m in re.findall(r"^event: state\ndata: (.*)$", text, re.M)]


@pytest.mark.django_db(transaction=True)
def test_event_stream_sends_the_state_at_once(client, game):
    answer = client.get(reverse("game-events", args=[game.pk]))
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/event-stream")
    stream = iter(answer.streaming_content)
    chunks = [next(stream), next(stream)]
    answer.close()
    assert chunks[0].startswith(b"retry:")
    (event,) = _sse_events(chunks)
    assert event["game_id"] == game.pk and event["status"] == game.status
    assert isinstance(event["server_ms"], int) and event["server_time"]


def test_sync_stream_sends_a_change_and_skips_slip_counts_unless_asked(monkeypatch):
    snapshots = iter([
        {"version": 1, "round": 1, "round_status": "open", "progress": {"received": 0}},
        {"version": 2, "round": 1, "round_status": "open", "progress": {"received": 1}},
        {"version": 3, "round": 1, "round_status": "closed", "progress": None},
    ])
    versions = iter([1, 2, 3] + [3] * 100)
    # Streams of earlier tests may still poll in the background: only game 7 is faked.
    real_version, real_snapshot = live_stream.game_version, live_stream.game_snapshot
    monkeypatch.setattr(live_stream, "game_version", lambda gid: next(versions) if gid == 7 else real_version(gid))
    monkeypatch.setattr(live_stream, "game_snapshot", lambda gid: next(snapshots) if gid == 7 else real_snapshot(gid))
    chunks = list(live_stream.sync_stream(7, duration=0.2, poll=0.01, heartbeat=60))
    assert [e["round_status"] for e in _sse_events(chunks)] == ["open", "closed"]

    snapshots = iter([
        {"version": 1, "round": 1, "round_status": "open", "progress": {"received": 0}},
        {"version": 2, "round": 1, "round_status": "open", "progress": {"received": 1}},
    ])
    versions = iter([1, 2] + [2] * 100)
    chunks = list(live_stream.sync_stream(7, progress=True, duration=0.2, poll=0.01, heartbeat=60))
    assert [e["progress"]["received"] for e in _sse_events(chunks)] == [0, 1]


def test_a_sync_stream_whose_database_fails_ends_with_one_line_and_no_traceback(monkeypatch, caplog):
    """The page reconnects to a stream that ended; a traceback printed from a server thread is noise (and,
    on Python 3.11, formatting one parses source while other threads may be parsing too)."""
    from django.db import OperationalError

    def failing(gid):
        if gid == 8:
            raise OperationalError("the database is gone")
        return real_snapshot(gid)

    real_version, real_snapshot = live_stream.game_version, live_stream.game_snapshot
    monkeypatch.setattr(live_stream, "game_version", lambda gid: 1 if gid == 8 else real_version(gid))
    monkeypatch.setattr(live_stream, "game_snapshot", failing)
    with caplog.at_level("WARNING", logger="tournaments.live.stream"):
        chunks = list(live_stream.sync_stream(8, duration=5, poll=0.01, heartbeat=60))
    assert chunks == ["retry: 1000\n\n"]
    (record,) = [r for r in caplog.records if r.name == "tournaments.live.stream"]
    assert record.getMessage() == "live stream of game 8 ended: OperationalError: the database is gone"
    assert record.exc_info is None


def test_version_watcher_wakes_every_stream_once_per_change(monkeypatch):
    """One watcher per process: one version read per tick for all listeners, one snapshot per change."""
    state = {"version": 1, "reads": 0, "builds": 0}

    def versions(ids):
        state["reads"] += 1
        return {game_id: state["version"] for game_id in ids}

    def snapshot(game_id):
        if game_id == 404:
            return None
        state["builds"] += 1
        return {"version": state["version"], "round": state["version"], "round_status": "open"}

    monkeypatch.setattr(version_counter, "game_versions", versions)
    monkeypatch.setattr(live_stream, "snapshot_closing_connections", snapshot)

    async def scenario():
        watcher = live_stream.VersionWatcher(tick=0.01)
        assert await watcher.open(404) is None  # no such game
        listeners = await asyncio.gather(*(watcher.open(5) for _ in range(50)))
        streams = [watcher.stream(listener) for listener in listeners]
        for stream in streams:
            assert (await stream.__anext__()).startswith("retry:")
        first = await asyncio.gather(*(stream.__anext__() for stream in streams))
        state["version"] = 2
        second = await asyncio.wait_for(asyncio.gather(*(stream.__anext__() for stream in streams)), 2)
        for stream in streams:
            await stream.aclose()
        await asyncio.sleep(0.05)
        return first, second, watcher

    first, second, watcher = asyncio.run(scenario())
    assert {_sse_events([e])[0]["round"] for e in first} == {1}
    assert {_sse_events([e])[0]["round"] for e in second} == {2}
    assert state["builds"] == 2  # not one per listener
    assert watcher.games == {}  # the last listener gone, the game is no longer watched


@pytest.mark.skipif(
    not settings.CACHES["default"]["BACKEND"].endswith("RedisCache"),
    reason="the build lock is an atomic cache.add, which Redis gives; the embedded file cache does not",
)
def test_a_thousand_polls_after_a_change_build_the_snapshot_once(monkeypatch):
    """The first poll after a change builds the snapshot; the others wait for it in the shared cache."""
    import threading
    import time

    from django.core.cache import cache

    game_id = 900_000 + int(time.time() * 1000) % 100_000
    version = {"now": 10**9 + int(time.time() * 1000)}  # never a version a real game has
    # Streams of earlier tests may still poll in the background: only this game is faked.
    real_version, real_build = live.game_version, live.build_snapshot
    monkeypatch.setattr(live, "game_version", lambda gid: version["now"] if gid == game_id else real_version(gid))
    builds = []

    def slow_build(gid):
        if gid != game_id:
            return real_build(gid)
        builds.append(gid)
        time.sleep(0.3)
        return {"game_id": gid, "round": 1}

    monkeypatch.setattr(live, "build_snapshot", slow_build)
    results = []
    threads = [threading.Thread(target=lambda: results.append(live.game_snapshot(game_id))) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    first = version["now"]
    assert len(builds) == 1
    assert len(results) == 30
    assert all({k: r[k] for k in ("game_id", "round", "version")} == {"game_id": game_id, "round": 1, "version": first}
               for r in results)
    version["now"] += 1
    assert live.game_snapshot(game_id)["version"] == first + 1 and len(builds) == 2
    cache.delete_many([live._snapshot_key(game_id, first), live._snapshot_key(game_id, first + 1)])


@pytest.mark.django_db(transaction=True)
def test_event_stream_under_asgi_pushes_a_new_rack(make_game):
    """The ASGI path (uvicorn in production): the watcher's stream, woken by a real change."""
    from django.test import AsyncClient

    game = make_game()

    def draw():
        from django.db import connections

        try:
            round_draw(game=game, rack=RACK)
        finally:
            connections.close_all()

    async def scenario():
        client = AsyncClient()
        missing = await client.get(reverse("game-events", args=[999999]))
        answer = await client.get(reverse("game-events", args=[game.pk]))
        assert answer.status_code == 200 and answer["Content-Type"].startswith("text/event-stream")
        chunks = answer.streaming_content.__aiter__()
        first = [await chunks.__anext__(), await chunks.__anext__()]
        await asyncio.to_thread(draw)
        second = await asyncio.wait_for(chunks.__anext__(), 5)
        await chunks.aclose()
        return missing.status_code, first, second

    missing, first, second = asyncio.run(scenario())
    assert missing == 404
    (before,) = _sse_events(first)
    (after,) = _sse_events([second])
    assert before["round"] is None
    assert after["round"] == 1 and after["round_status"] == "drawn"
    assert sorted(after["game"]["rack"]) == sorted(RACK)
    assert after["server_ms"] >= before["server_ms"]


@pytest.mark.django_db(transaction=True)
def test_a_phone_gets_its_own_line_and_result_only_with_its_token(client, make_game, make_player):
    game = make_game()
    alice, alice_token = make_player(game, name="Alice")
    bruno, _ = make_player(game, name="Bruno")
    _, stranger_token = make_player(make_game(), name="Stranger")
    url = reverse("game-mine", args=[game.pk])
    assert client.get(url).status_code == 401
    assert client.get(url, headers={"Authorization": f"Bearer {stranger_token}"}).status_code == 401
    assert client.get(url, headers={"Authorization": f"Token {alice_token}"}).status_code == 401

    before = client.get(url, headers={"Authorization": f"Bearer {alice_token}"}).json()
    assert before["player"] == alice.pk and before["result"] is None and before["last_round"] is None
    assert before["standing"]["name"] == "Alice"

    round_ = _played_round(game, alice, word="RAINES", ref="H4", score=16)
    after = client.get(url, headers={"Authorization": f"Bearer {alice_token}"}).json()
    assert after["last_round"] == 1 and after["version"] > before["version"]
    result = after["result"]
    assert result["round"] == 1 and result["player"] == alice.pk and result["word"] == "RAINES"
    stored = round_.results.get(player=alice)
    assert (result["paid"], result["outcome"], result["reason"]) == (stored.paid, stored.outcome, stored.reason)
    assert after["standing"]["total"] == stored.paid
    assert "Bruno" not in json.dumps(after)  # nobody else's rows


@pytest.mark.django_db(transaction=True)
def test_standings_are_not_computed_again_for_each_slip(monkeypatch, make_game, make_player):
    from tournaments import selectors

    game = make_game()
    players = [make_player(game, name=f"P{i}")[0] for i in range(3)]
    calls = []
    real = selectors.game_standings
    monkeypatch.setattr(selectors, "game_standings", lambda **kw: calls.append(1) or real(**kw))
    round_ = round_draw(game=game, rack=RACK)
    round_start(round=round_)
    live.game_snapshot(game.pk)
    before = len(calls)
    for i, player in enumerate(players):
        slip_submit(round=round_, player=player, word="RAINES", ref="H4", score=16, key=f"k{i}")
        snapshot = live.game_snapshot(game.pk)
        assert snapshot["progress"]["received"] == i + 1
    assert len(calls) == before  # three new versions, the same standings
    round_close(round=round_)
    closed = live.game_snapshot(game.pk)
    assert len(calls) == before + 1
    assert closed["last"]["number"] == 1 and len(closed["standings"]) == 3


@pytest.mark.django_db(transaction=True)
def test_a_close_committed_while_a_snapshot_is_built_never_leaves_the_next_one_without_its_round(
        monkeypatch, make_game, make_player, isolated_cache):
    """A snapshot of the open round is being built when the close commits, between its read of the rounds and
    its read of what the standings depend on. The standings it computes must not be kept for the closed round:
    the next snapshot, built after the close's new version, shows the round closed with its master (the
    projector and the phones mark its squares from it)."""
    game = make_game()
    player, _token = make_player(game, name="Ann")
    round_ = round_draw(game=game, rack=RACK)
    round_start(round=round_)
    slip_submit(round=round_, player=player, word="RAINES", ref="H4", score=16, key="k1")

    real = live._scores_signature
    closed = []

    def close_meanwhile(game_):
        if not closed:  # the close lands while the snapshot of the open round is half read
            closed.append(round_close(round=round_))
        return real(game_)

    monkeypatch.setattr(live, "_scores_signature", close_meanwhile)
    live.game_snapshot(game.pk)
    assert closed
    after = live.game_snapshot(game.pk)  # the close's version: built anew
    assert after["round_status"] == "closed"
    assert after["last"] is not None and after["last"]["number"] == 1
    assert after["last"]["placed"] and [row["player"] for row in after["standings"]] == [player.pk]


@pytest.mark.django_db(transaction=True)
def test_a_late_slip_after_the_close_turns_the_players_own_line_to_late(make_game, make_player, isolated_cache):
    """Its result pays 0 either way: what the standings' signature counts must still move with it."""
    from tournaments.errors import Conflict

    game = make_game()
    player, _token = make_player(game, name="Inès")
    round_ = round_draw(game=game, rack=RACK)
    round_start(round=round_)
    round_close(round=round_)
    assert live.player_view(game.pk, player.pk)["result"]["reason"] == "no_slip"
    round_.refresh_from_db()
    with pytest.raises(Conflict):
        slip_submit(round=round_, player=player, word="RAINES", ref="H4", score=16, key="k-late")
    assert live.player_view(game.pk, player.pk)["result"]["reason"] == "late"


@pytest.mark.django_db(transaction=True)
def test_the_last_round_names_the_players_whose_result_was_ruled_on_after_the_close(make_game, make_player,
                                                                                    arbitrator, isolated_cache):
    from tournaments.models import Result
    from tournaments.services import result_override

    game = make_game()
    ann, _ = make_player(game, name="Ann")
    bob, _ = make_player(game, name="Bob")
    round_ = round_draw(game=game, rack=RACK)
    round_start(round=round_)
    round_close(round=round_)
    assert live.game_snapshot(game.pk)["last"]["amended"] == []
    result_override(result=Result.objects.get(round=round_, player=bob), paid=5, outcome="ok",
                    reason="ruled by the head", actor=arbitrator)
    assert live.game_snapshot(game.pk)["last"]["amended"] == [bob.pk]
    assert live.player_view(game.pk, bob.pk)["result"]["paid"] == 5
    assert live.player_view(game.pk, ann.pk)["result"]["paid"] == 0
