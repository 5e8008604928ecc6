"""A rack drawn from the physical bag that fails the vowel/consonant rule is recorded as rejected (§3.2):
every letter goes back into the bag, the record is shown with the round's accepted rack, never discarded."""

from __future__ import annotations

from collections import Counter

import pytest
from django.urls import reverse

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import Game, LogEntry, Round

pytestmark = pytest.mark.django_db


def _play_first_round(game, player):
    round = services.round_draw(game=game, rack="AEIIOQZ")  # no bingo: the master leaves letters
    services.round_start(round=round)
    services.round_close(round=round)
    round.refresh_from_db()
    return round


def test_a_rejected_physical_draw_is_recorded_and_its_letters_go_back(game, make_player, arbitrator):
    bag_before = Counter(game.bag)
    rejected = services.rack_reject(game=game, rack="AEIOUUS", actor=arbitrator)
    assert rejected == ["-AEIOSUU"]
    game.refresh_from_db()
    assert Counter(game.bag) == bag_before  # nothing left the bag: the rack went back whole
    assert game.pending_rejected == rejected
    assert LogEntry.objects.get(game=game, action="rack_reject").actor == arbitrator

    round = services.round_draw(game=game, rack="EIRST?A", actor=arbitrator)
    assert round.rejected == rejected
    game.refresh_from_db()
    assert game.pending_rejected == []
    assert Counter(game.bag) == bag_before - Counter("EIRST?A")


def test_kept_letters_go_back_with_the_rejected_rack(game, make_player):
    make_player(game, name="Ada")
    first = _play_first_round(game, None)
    game.refresh_from_db()
    kept = game.kept
    assert kept, "the master leaves letters for the next rack"
    pool_before = Counter(game.bag) + Counter(kept)
    # A second rack made of the kept letters and vowels (or consonants) only, as drawn from the bag.
    vowels = [ch for ch in "AEIOU" for _ in range(Counter(game.bag)[ch])]
    consonants = [ch for ch in "BCDFGHJKLMNPQRSTVWXZ" for _ in range(Counter(game.bag)[ch])]
    kept_vowels = sum(ch in "AEIOU" for ch in kept)
    kept_consonants = len(kept) - kept_vowels
    assert min(kept_vowels, kept_consonants) < 2, f"a failing rack can be made with {kept} kept"
    filler = vowels if kept_consonants < 2 else consonants
    typed = kept + "".join(filler[: 7 - len(kept)])
    with pytest.raises(ServiceError) as refused:
        services.round_draw(game=game, rack=typed)
    assert refused.value.code in ("too_few_vowels", "too_few_consonants")

    rejected = services.rack_reject(game=game, rack=typed)
    game.refresh_from_db()
    assert game.kept == ""
    assert Counter(game.bag) == pool_before  # kept letters back in the bag with the rest
    assert rejected == ["-" + kept + "+" + "".join(sorted(typed[len(kept):], key=lambda ch: (ch == "?", ch)))]
    assert first.number == 1

    second = services.round_draw(game=game)  # a random draw after the rejection: 7 new letters
    assert second.kept == "" and len(second.rack) == 7
    assert second.rejected[: len(rejected)] == rejected


@pytest.mark.parametrize(
    ("rack", "code"),
    [("EIRST?A", "rack_valid"), ("ZZZZZZZ", "not_in_bag"), ("AEI", "wrong_size"), ("", "bad_letters")],
)
def test_a_rack_that_is_not_a_rejectable_draw_is_refused_and_changes_nothing(game, rack, code):
    before = (game.bag, game.kept, list(game.pending_rejected))
    with pytest.raises(ServiceError) as refused:
        services.rack_reject(game=game, rack=rack)
    assert refused.value.code == code
    game.refresh_from_db()
    assert (game.bag, game.kept, list(game.pending_rejected)) == before
    assert not LogEntry.objects.filter(action="rack_reject").exists()


def test_no_rejection_while_a_round_is_in_play(game):
    services.round_draw(game=game, rack="EIRST?A")
    with pytest.raises(ServiceError) as refused:
        services.rack_reject(game=game, rack="AEIOUUS")
    assert refused.value.code == "round_open"


def test_over_http_the_rejection_is_answered_and_shown_with_the_next_rack(arbitrator_client, game, isolated_cache):
    answer = arbitrator_client.post(f"/api/games/{game.pk}/rejections", {"rack": "AEIOUUS"}, format="json")
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert len(body["rejected"]) == 1 and body["bag_count"] == len(Game.objects.get(pk=game.pk).bag)
    assert arbitrator_client.get(f"/api/games/{game.pk}").json()["pending_rejected"] == body["rejected"]
    valid = arbitrator_client.post(f"/api/games/{game.pk}/rejections", {"rack": "EIRST?A"}, format="json")
    assert valid.status_code == 409 and valid.json()["error"]["code"] == "rack_valid"
    drawn = arbitrator_client.post(f"/api/games/{game.pk}/rounds", {"rack": "EIRST?A"}, format="json")
    assert drawn.status_code == 201 and drawn.json()["rejected"] == body["rejected"]
    assert Round.objects.get(game=game).rejected == body["rejected"]


def test_the_console_offers_to_record_a_refused_rack_as_rejected(client, arbitrator, game, isolated_cache):
    client.force_login(arbitrator)
    refused = client.post(reverse("console-draw", args=[game.pk]), {"rack": "AEIOUUS"})
    assert "rejectable=1" in refused["Location"]
    page = client.get(refused["Location"]).content.decode()
    assert reverse("console-rack-reject", args=[game.pk]) in page
    recorded = client.post(reverse("console-rack-reject", args=[game.pk]), {"rack": "AEIOUUS"}, follow=True)
    assert 'id="pending-rejected"' in recorded.content.decode()
    typo = client.post(reverse("console-draw", args=[game.pk]), {"rack": "ZZZZZZZ"})
    assert "rejectable" not in typo["Location"]


def test_the_next_rack_waits_for_the_pause_after_a_close(game, settings):
    """§3: at least ARBITER_MIN_SECONDS_BETWEEN_ROUNDS between the end of a round and the next rack."""
    from datetime import timedelta

    from django.utils import timezone

    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 20
    round = services.round_draw(game=game, rack="EIRST?A")
    services.round_start(round=round)
    services.round_close(round=round)
    bag = Game.objects.get(pk=game.pk).bag
    for attempt in (lambda: services.round_draw(game=game), lambda: services.rack_reject(game=game, rack="AEIOUUS")):
        with pytest.raises(ServiceError) as refused:
            attempt()
        assert refused.value.code == "too_soon" and refused.value.status == 409
        assert 1 <= refused.value.fields["seconds"] <= 20
    assert Game.objects.get(pk=game.pk).bag == bag and Round.objects.filter(game=game).count() == 1

    Round.objects.filter(pk=round.pk).update(closed_at=timezone.now() - timedelta(seconds=21))
    assert services.round_draw(game=game).number == 2


def test_the_console_says_how_long_the_pause_still_lasts(client, arbitrator, game, settings, isolated_cache):
    settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS = 20
    round = services.round_draw(game=game, rack="EIRST?A")
    services.round_start(round=round)
    services.round_close(round=round)
    client.force_login(arbitrator)
    page = client.post(reverse("console-draw", args=[game.pk]), follow=True)
    text = " ".join(str(m) for m in page.context["messages"])
    assert "the next rack can be drawn in" in text and Round.objects.filter(game=game).count() == 1
    client.post("/i18n/setlang/", {"language": "fr", "next": "/console/"})
    page = client.post(reverse("console-draw", args=[game.pk]), follow=True)
    assert "le prochain tirage pourra se faire dans" in " ".join(str(m) for m in page.context["messages"])


def test_kept_letters_that_alone_fail_the_rule_are_rejected_with_nothing_new(game, arbitrator):
    from tournaments.models import Game

    Game.objects.filter(pk=game.pk).update(kept="AEIOUU", bag="".join(sorted(game.bag + "")))
    game.refresh_from_db()
    pool = Counter(game.bag) + Counter(game.kept)
    rejected = services.rack_reject(game=game, rack="AEIOUU", actor=arbitrator)
    assert rejected == ["-AEIOUU+"]
    game.refresh_from_db()
    assert game.kept == "" and Counter(game.bag) == pool
    # The random draw does the same by itself.
    Game.objects.filter(pk=game.pk).update(kept="AEIOUU", pending_rejected=[])
    game.refresh_from_db()
    drawn = services.round_draw(game=game)
    assert drawn.rejected[0] == "-AEIOUU+" and drawn.kept == ""


def test_over_http_kept_letters_alone_are_rejected_with_nothing_new(arbitrator_client, game, isolated_cache):
    Game.objects.filter(pk=game.pk).update(kept="AEIOUU")
    answer = arbitrator_client.post(f"/api/games/{game.pk}/rejections", {"rack": "AEIOUU"}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["rejected"] == ["-AEIOUU+"]
    assert Game.objects.get(pk=game.pk).kept == ""
