"""Every entry of the arbitration log names who acted: the arbitrator (``actor``), else the player from their
phone or the server (the clock), stated in the entry (``after["by"]``). A game played through the API, the
console and the phones leaves no entry without one."""

from __future__ import annotations

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from tournaments.models import LogEntry, Round

from .api_support import bearer_client, expect


def test_every_log_entry_of_a_game_names_who_acted(arbitrator_client, client, arbitrator, isolated_cache):
    client.force_login(arbitrator)
    api = arbitrator_client
    tournament = expect(api.post("/api/tournaments", {"name": "Who did it"}, format="json"), 201)
    game = expect(api.post(f"/api/tournaments/{tournament['id']}/games", {"seed": 7}, format="json"), 201)
    url = f"/api/games/{game['id']}"
    expect(api.post(f"{url}/players", {"name": "Ann", "table": 1}, format="json"), 201)  # the API
    answer = client.post(reverse("console-player-register", args=[game["id"]]), {"name": "Bob", "table": "2"})
    assert answer.status_code == 302  # the console
    cleo = expect(api.post("/api/join", {"join_code": game["join_code"], "name": "Cleo"}, format="json"), 201)
    phone = bearer_client(cleo["token"])  # Cleo's phone

    expect(api.post(f"{url}/rounds", {}, format="json"), 201)
    expect(api.post(f"{url}/rounds/1/start", {}, format="json"), 200)
    for key in ("cleo-1", "cleo-2"):  # the second replaces the first: logged as the player's
        answer = phone.post(f"{url}/rounds/1/slips", {"word": "ZZZ", "ref": "H4", "key": key}, format="json")
        assert answer.status_code == 201, answer.content
    answer = client.post(reverse("console-slip-enter", args=[game["id"]]), {"table": "2", "word": "QQQ", "ref": "H4"},
                         HTTP_ACCEPT="application/json")
    assert answer.status_code == 201, answer.content
    Round.objects.filter(game_id=game["id"], number=1).update(deadline=timezone.now() - timedelta(seconds=1))
    expect(phone.get(url), 200)  # the deadline passed: the round is closed on the way, by the server
    expect(api.post(f"{url}/end", {}, format="json"), 200)

    entries = list(LogEntry.objects.filter(game_id=game["id"]).select_related("actor").order_by("seq", "id"))
    unnamed = [(entry.action, entry.after) for entry in entries
               if entry.actor is None and (entry.after or {}).get("by") not in ("player", "server")]
    assert unnamed == []

    def who(action: str, name: str | None = None) -> list:
        return [entry.actor.get_username() if entry.actor else entry.after["by"] for entry in entries
                if entry.action == action and (name is None or (entry.after or {}).get("name") == name)]

    assert who("player_register", "Ann") == [arbitrator.get_username()]
    assert who("player_register", "Bob") == [arbitrator.get_username()]
    assert who("player_register", "Cleo") == ["player"]
    assert who("slip_replace") == ["player"]
    assert who("slip_enter") == [arbitrator.get_username()]
    assert who("round_close") == ["server"]
    assert who("game_end") == [arbitrator.get_username()]
    assert all(entry.actor is None for entry in entries if (entry.after or {}).get("by"))  # said once, never both
