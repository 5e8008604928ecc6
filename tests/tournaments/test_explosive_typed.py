"""An explosive game's rack typed from a real bag (docs/rules.md 7.2 and 7.7): the arbitrator types the rack
as drawn, blank included; the server chooses the blank's letter as for a random draw (the letter the blank
stands for in the rack's top), and the answer, the round, the log and the console say which letter to take
out of the bag in exchange for the blank. When the bag no longer holds it, the blank stays."""

from __future__ import annotations

from collections import Counter

import pytest
from django.urls import reverse

from engine.board import Board
from engine.search import find_tops
from tournaments.errors import ServiceError
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, LogEntry, Round, Tournament

from .api_support import assert_error, expect

TYPED = "AEIRST?"


def _top_letter(tournament: Tournament, rack: str) -> str:
    """The letter the blank stands for in the first top of ``rack`` on an empty board (every top needs it)."""
    tops = find_tops(Board.from_rows(["." * 15] * 15), rack, get_lexicon("TWL06"), tournament.tiles,
                     tournament.rules)
    assert tops.plays and all(any(tile[3] for tile in play.tiles) for play in tops.plays)
    return next(letter.upper() for _r, _c, letter, is_blank in tops.plays[0].tiles if is_blank)


@pytest.mark.django_db
def test_a_typed_explosive_rack_swaps_its_blank_for_the_top_s_letter(api_game, client, arbitrator):
    game = api_game(players=1, variant="explosive", lexicon="TWL06")
    tournament = Tournament.objects.get(pk=game.tournament_id)
    letter = _top_letter(tournament, TYPED)
    before = Game.objects.get(pk=game.id).bag

    drawn = expect(game.arbitrator.post(game.url("/rounds"), {"rack": TYPED}, format="json"), 201)

    assert drawn["typed"] is True and drawn["replaced"] == letter
    assert Counter(drawn["rack"]) == Counter(TYPED.replace("?", letter)), drawn
    assert "?" not in drawn["rack"]
    after = Game.objects.get(pk=game.id).bag
    # The bag lost the rack's six letters and the blank's letter, and holds the blank again.
    expected = Counter(before) - Counter(TYPED) - Counter(letter) + Counter("?")
    assert Counter(after) == expected
    assert Counter(after)["?"] == Counter(before)["?"]
    round = Round.objects.get(game_id=game.id, number=1)
    assert (round.replaced, round.rack, round.typed) == (letter, drawn["rack"], True)
    entry = LogEntry.objects.filter(game_id=game.id, action="round_draw").order_by("-id").first()
    assert entry.after["replaced"] == letter and entry.after["typed"] is True

    client.force_login(arbitrator)
    for language, words in (("en", f"Take {letter} out of the bag and put the blank back in"),
                            ("fr", f"Sortez le {letter} du sac et remettez-y le joker")):
        screen = client.get(reverse("console-game", args=[game.id]), HTTP_ACCEPT_LANGUAGE=language)
        html = screen.content.decode()
        assert 'id="explosive-swap"' in html and words in html, html[:200]


@pytest.mark.django_db
def test_the_blank_stays_when_the_bag_no_longer_holds_its_letter(api_game):
    game = api_game(players=1, variant="explosive", lexicon="TWL06")
    tournament = Tournament.objects.get(pk=game.tournament_id)
    letter = _top_letter(tournament, TYPED)
    row = Game.objects.get(pk=game.id)
    # Every other tile of that letter already out of the bag: once the rack is drawn, the bag holds none.
    row.bag = row.bag.replace(letter, "") + letter * TYPED.count(letter)
    row.save(update_fields=["bag"])

    drawn = expect(game.arbitrator.post(game.url("/rounds"), {"rack": TYPED}, format="json"), 201)

    assert drawn["replaced"] == "" and "?" in drawn["rack"]
    assert Counter(drawn["rack"]) == Counter(TYPED)
    assert Counter(Game.objects.get(pk=game.id).bag) == Counter(row.bag) - Counter(TYPED)
    entry = LogEntry.objects.filter(game_id=game.id, action="round_draw").order_by("-id").first()
    assert "replaced" not in entry.after


@pytest.mark.django_db
@pytest.mark.parametrize(("rack", "code"), [("AEIRSTZ", "joker_blank"), ("AEIRS??", "joker_blank"),
                                            ("AEIRSTK", "joker_blank"), ("QQQAEI?", "not_in_bag")])
def test_a_typed_explosive_rack_not_in_the_bag_or_without_its_blank_is_refused_and_changes_nothing(api_game, rack,
                                                                                                   code):
    game = api_game(players=1, variant="explosive", lexicon="TWL06")
    before = Game.objects.filter(pk=game.id).values("bag", "draws", "kept").get()

    assert_error(game.arbitrator.post(game.url("/rounds"), {"rack": rack}, format="json"), 409, code)

    assert Game.objects.filter(pk=game.id).values("bag", "draws", "kept").get() == before
    assert not Round.objects.filter(game_id=game.id).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["duplicate", "joker"])
def test_other_variants_keep_the_typed_blank(api_game, variant):
    game = api_game(players=1, variant=variant, lexicon="TWL06")
    drawn = expect(game.arbitrator.post(game.url("/rounds"), {"rack": TYPED}, format="json"), 201)
    assert drawn["replaced"] == "" and "?" in drawn["rack"]


@pytest.mark.django_db
def test_a_mistyped_explosive_rack_fixed_before_the_start_swaps_the_fixed_rack_s_blank(api_game, arbitrator):
    """A rack fixed before the clock starts (docs/rules.md 4) is a typed draw again: in an explosive game its
    blank becomes the letter of the fixed rack's top, the bag gives that letter and takes the blank back, as
    if the fixed rack had been typed first; the round, its incident and the log say which letter."""
    from tournaments import services

    game = api_game(players=1, variant="explosive", lexicon="TWL06")
    tournament = Tournament.objects.get(pk=game.tournament_id)
    before = Game.objects.get(pk=game.id).bag
    mistyped = "AEIRSZ?"
    drawn = expect(game.arbitrator.post(game.url("/rounds"), {"rack": mistyped}, format="json"), 201)
    assert "?" not in drawn["rack"]
    round = Round.objects.get(game_id=game.id, number=1)

    fixed = services.round_fix_rack(round=round, rack=TYPED, reason="a T was read as a Z", actor=arbitrator)

    letter = _top_letter(tournament, TYPED)
    assert (fixed.replaced, fixed.typed) == (letter, True)
    assert Counter(fixed.rack) == Counter(TYPED.replace("?", letter)) and "?" not in fixed.rack
    bag = Game.objects.get(pk=game.id).bag
    assert Counter(bag) == Counter(before) - Counter(TYPED) - Counter(letter) + Counter("?")
    assert Counter(fixed.bag_after) == Counter(bag)
    entry = LogEntry.objects.filter(game_id=game.id, action="rack_fix").get()
    assert (entry.before["rack"], entry.after["rack"], entry.after["replaced"]) == (drawn["rack"], fixed.rack,
                                                                                     letter)
    # The same rack typed again changes nothing.
    with pytest.raises(ServiceError) as refused:
        services.round_fix_rack(round=fixed, rack=TYPED, reason="again", actor=arbitrator)
    assert refused.value.code == "same_rack"
    assert Game.objects.get(pk=game.id).bag == bag
