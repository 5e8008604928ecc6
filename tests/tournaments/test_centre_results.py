"""A centre's results file from its live game (tournaments/centre_results.py): built from a game played through
the services from a small sealed pack, it verifies at the organiser (results_files.verify_results) against the
pack's game and the centre's public key, its totals are the game's standings, a correction appears with who made
it and why, each change keeps a later version, and a round's close queues it for the worker."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tournaments import centre, centre_results, packs, results_files, seal, services
from tournaments.models import CentreResults, Round, Slip
from tournaments.selectors import game_standings
from tournaments.services import schedule

ROUNDS = 3
EVENT = "Simultané d'automne"


@pytest.fixture(scope="module")
def organiser():
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def game_file():
    return packs.draw_game_file(seed=20261125, max_rounds=ROUNDS, labelling="rows-numbers")


@pytest.fixture(scope="module")
def sealed(game_file, organiser):
    return packs.seal_pack(game_file, event=EVENT, game_id="G7", signer=organiser)


@pytest.fixture
def trusted(settings, organiser):
    settings.ARBITER_TRUSTED_ORGANISER_KEYS = [packs.public_text(organiser)]
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 0
    settings.ARBITER_CENTRE_ID = "centre-vichy"
    settings.ARBITER_CENTRE_NAME = "Club de Vichy"


def unlocked_game(make_tournament, arbitrator, sealed):
    pack, key = sealed
    tournament = make_tournament(name="Club", created_by=arbitrator)
    game = centre.pack_import(tournament=tournament, raw=packs.pack_bytes(pack), actor=arbitrator)
    centre.pack_unlock(game=game, key=packs.key_text(key), actor=arbitrator)
    return game


def play_round(game, arbitrator, recorded, slips) -> Round:
    """Draw, start, hand in ``slips`` ({player: (word, ref, score)}), close: the pack's round ``recorded``."""
    round = services.round_draw(game=game, actor=arbitrator)
    assert round.rack == recorded.rack
    round = services.round_start(round=round, actor=arbitrator)
    for i, (player, (word, ref, score)) in enumerate(slips.items()):
        services.slip_submit(round=round, player=player, word=word, ref=ref, score=score, key=f"k{round.number}-{i}")
    assert services.round_close(round=round, actor=arbitrator)
    return Round.objects.get(pk=round.pk)


@pytest.mark.django_db
def test_the_file_of_a_game_played_from_a_pack_verifies_and_adds_up_to_its_standings(
        arbitrator, make_tournament, make_player, game_file, sealed, trusted):
    game = unlocked_game(make_tournament, arbitrator, sealed)
    ada, _ = make_player(game, "Ada", table=1)
    bea, _ = make_player(game, "Bea", table=2)
    cid, _ = make_player(game, "Cid", table=3)
    versions = []
    for number, recorded in enumerate(game_file.game.rounds, start=1):
        master = packs.play_to_dict(recorded.master, "rows-numbers")
        word, ref, score = master["word"], master["ref"], master["score"]
        slips = {ada: (word, ref, score)}
        if number == 1:
            slips[bea] = (word, ref, score + 3)  # a wrong score: a warning
            slips[cid] = ("QZXJV", ref, 40)  # not a word
        elif number == 2:
            slips[bea] = ("QZXJV", ref, 40)  # corrected below: the arbitrator misread it
        play_round(game, arbitrator, recorded, slips)
        if number == 2:
            held = Slip.objects.get(round__game=game, round__number=2, player=bea, current=True)
            services.slip_correct(slip=held, word=word, reason="handwriting misread at the entry", actor=arbitrator)
        versions.append(centre_results.keep_results(game))

    # A version after each round, the sequence growing; the last final; nothing changed, no new version.
    assert [v.sequence for v in versions] == [1, 2, 3]
    assert [v.final for v in versions] == [False, False, True]
    assert centre_results.keep_results(game).pk == versions[-1].pk
    assert CentreResults.objects.filter(game=game).count() == 3

    pack = game.sealed_pack
    results = json.loads(versions[-1].text)
    centre_key = packs.public_text(seal.server_key()[0])
    verified = results_files.verify_results(results, centre_key=centre_key, game_file=game_file, event=EVENT,
                                            pack_sha256=pack.sha256)
    assert verified.differences == ()  # every verdict the organiser's judge gives too
    assert (verified.centre, verified.game_id, verified.sequence, verified.final) == ("centre-vichy", "G7", 3, True)
    assert results["centre"] == {"id": "centre-vichy", "name": "Club de Vichy"}
    assert results_files.results_sha256(results) == versions[-1].sha256

    standings = {row["name"]: row for row in game_standings(game=game)}
    players = {p["name"]: p for p in results["players"]}
    assert set(players) == {"Ada", "Bea", "Cid"}
    for name, player in players.items():
        row = standings[name]
        assert player["total"] == row["total"] - row["solo_points"] + row["warning_points"]
        assert player["warnings"] == row["warnings"]
        assert len(player["rounds"]) == ROUNDS
    assert players["Bea"]["rounds"][0]["verdict"]["outcome"] == "warning"
    assert players["Cid"]["rounds"][2]["slip"] is None
    assert players["Bea"]["rounds"][1]["verdict"]["paid"] == game_file.game.rounds[1].master.score

    # The organiser's merged standings of this one file are the game's standings.
    inbox = results_files.ResultsInbox(EVENT, rules=game.tournament.rules)
    inbox.register_centre("centre-vichy", centre_key)
    inbox.add_game("G7", game_file, pack.sha256)
    inbox.accept(results)
    merged = {row["name"]: row["total"] for row in inbox.standings()["rows"]}
    assert merged == {name: row["total"] for name, row in standings.items()}

    # The correction, with who and why.
    [correction] = results["corrections"]
    assert correction["action"] == "slip_correct" and correction["round"] == 2
    assert correction["player"] == str(bea.pk)
    assert correction["by"] == arbitrator.get_username()
    assert correction["why"] == "handwriting misread at the entry"
    assert correction["before"]["result"]["outcome"] == "zero"
    assert correction["after"]["result"]["paid"] == game_file.game.rounds[1].master.score
    # The file before the correction did not have it, and paid Bea nothing in round 2.
    assert json.loads(versions[0].text)["corrections"] == []


@pytest.mark.django_db
def test_a_close_and_a_correction_queue_the_file_once_committed_and_only_for_a_pack(
        arbitrator, make_tournament, make_game, make_player, game_file, sealed, trusted, monkeypatch,
        django_capture_on_commit_callbacks):
    queued = []
    monkeypatch.setattr(schedule, "_send", lambda name, *, args, what, **options: (
        queued.append((name, args)) if name == schedule.CENTRE_RESULTS else None))
    game = unlocked_game(make_tournament, arbitrator, sealed)
    ada, _ = make_player(game, "Ada", table=1)
    recorded = game_file.game.rounds[0]
    master = packs.play_to_dict(recorded.master, "rows-numbers")
    with django_capture_on_commit_callbacks(execute=True):
        round = play_round(game, arbitrator, recorded, {ada: ("QZXJV", master["ref"], 40)})
    assert queued == [(schedule.CENTRE_RESULTS, [game.pk])]
    result = round.results.get(player=ada)
    with django_capture_on_commit_callbacks(execute=True):
        services.result_override(result=result, paid=5, outcome="ok", reason="ruled by the head", actor=arbitrator)
    assert queued[1:] == [(schedule.CENTRE_RESULTS, [game.pk])]

    # A game not played from a pack queues nothing.
    other = make_game()
    bob, _ = make_player(other, "Bob")
    del queued[:]
    with django_capture_on_commit_callbacks(execute=True):
        plain = services.round_start(round=services.round_draw(game=other, rack="ACEILMN"))
        services.round_close(round=plain)
    assert queued == []


@pytest.mark.django_db
def test_the_console_downloads_the_latest_file_and_shows_the_organisers_refusal(
        console, arbitrator, make_tournament, make_player, game_file, sealed, trusted, settings, monkeypatch):
    from django.urls import reverse

    game = unlocked_game(make_tournament, arbitrator, sealed)
    ada, _ = make_player(game, "Ada", table=1)
    play_round(game, arbitrator, game_file.game.rounds[0], {})
    page = console.get(reverse("console-game", args=[game.pk]))
    assert reverse("console-results-file", args=[game.pk]) in page.content.decode()

    download = console.get(reverse("console-results-file-download", args=[game.pk]))
    assert download.status_code == 200 and download["Content-Type"] == "application/json"
    assert "attachment" in download["Content-Disposition"] and "-v1.json" in download["Content-Disposition"]
    results = json.loads(download.content)
    kept = CentreResults.objects.get(game=game)
    assert results_files.results_sha256(results) == kept.sha256 and results["players"][0]["name"] == "Ada"
    assert results["players"][0]["rounds"][0]["verdict"]["reason"] == "no_slip"

    # The organiser refused it: the page says so in its words; without an organiser set, no push again.
    CentreResults.objects.filter(pk=kept.pk).update(push_state="refused", push_attempts=1, push_answer={
        "status": 409, "code": "results_outdated", "message": "an earlier version than the one held"})
    text = console.get(reverse("console-results-file", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Refused" in text and "results_outdated" in text and "an earlier version than the one held" in text
    assert "address set: download the file and send it" in text
    french = console.get(reverse("console-results-file", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Fichier de résultats" in french and "Refusée" in french and "Envoi à l’organisateur" in french
    refused = console.post(reverse("console-results-file-push", args=[game.pk]), follow=True)
    assert "address is set: download the file and send it" in refused.content.decode()
    assert CentreResults.objects.get(pk=kept.pk).push_state == "refused"

    # With one set, pushed again: pending, queued for the worker.
    settings.ARBITER_ORGANISER_URL, settings.ARBITER_ORGANISER_EVENT = "http://127.0.0.1:9", "7"
    queued = []
    monkeypatch.setattr(schedule, "_send", lambda name, *, args, what, **options: queued.append((name, args)))
    console.post(reverse("console-results-file-push", args=[game.pk]))
    assert queued == [(schedule.PUSH_RESULTS, [kept.pk, 1])]
    assert CentreResults.objects.get(pk=kept.pk).push_state == "pending"

    plain = make_tournament(name="Plain", created_by=arbitrator)
    plain_game = services.game_create(tournament=plain, actor=arbitrator)
    assert console.get(reverse("console-results-file", args=[plain_game.pk])).status_code == 404
    assert console.get(reverse("console-results-file-download", args=[plain_game.pk])).status_code == 404


@pytest.mark.django_db
def test_a_push_of_a_version_superseded_sends_the_latest(arbitrator, make_tournament, make_player, game_file, sealed,
                                                          trusted, settings):
    from .test_centre_push import Organiser

    organiser = Organiser()
    organiser.start()
    try:
        settings.ARBITER_ORGANISER_URL, settings.ARBITER_ORGANISER_EVENT = f"http://127.0.0.1:{organiser.port}", "7"
        game = unlocked_game(make_tournament, arbitrator, sealed)
        make_player(game, "Ada", table=1)
        first = centre_results.results_changed(game.pk)
        assert first is not None and first.sequence == 1
        assert centre_results.results_changed(game.pk) is None  # already pending: its attempts under way
        play_round(game, arbitrator, game_file.game.rounds[0], {})
        second = centre_results.keep_results(game)  # kept by a download: not marked for a push
        assert second.sequence == 2 and second.push_state == CentreResults.Push.NONE
        pushed = centre_results.push_results(first.pk)
        assert pushed.outcome == "sent"
        assert [p["sha256"] for p in organiser.posts] == [second.sha256]
        assert CentreResults.objects.get(pk=second.pk).push_state == CentreResults.Push.SENT
        assert centre_results.push_results(first.pk).outcome == "superseded"
        assert len(organiser.posts) == 1
    finally:
        organiser.stop()
