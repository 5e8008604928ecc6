"""Drawing a round's rack (at random or typed from a physical bag), rejected draws, and the tops computed
for it in the background."""

from __future__ import annotations

import logging
import math
import random
from collections import Counter
from dataclasses import replace
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from engine.board import Board
from engine.drawing import RackError, check_typed_rack, draw_rack, format_rack
from engine.master import choose_master
from engine.refusals import refusal_message
from engine.search import find_tops
from engine.tiles import TileReadingError
from tournaments.errors import Conflict, ServiceError, input_refused
from tournaments.limits import TYPED_RACK_MAX
from tournaments.models import Game, Round
from tournaments.versions import notify_game_changed

from .logbook import log
from .roles import act_as, require_head
from .rounds import end_game, round_in_play
from .schedule import schedule_tops as _schedule_tops
from .sealed import PACK_END, is_sealed, master_for, next_pack_rack, refuse_if_sealed
from .setting import play_to_dict, setting_of, sorted_letters

logger = logging.getLogger(__name__)


def _next_number(game: Game) -> int:
    last = game.rounds.counting().aggregate(n=Max("number"))["n"]
    return (last or 0) + 1


def _lock_for_next_rack(game: Game):
    """Lock the game for its next rack: (game, setting, next round number); 409 if over or a round is in play."""
    game = Game.objects.select_for_update().select_related("tournament").get(pk=game.pk)
    if game.status == Game.Status.OVER:
        raise Conflict("game_over")
    if round_in_play(game) is not None:
        raise Conflict("round_open")
    _check_pause(game)
    return game, setting_of(game.tournament), _next_number(game)


def _check_pause(game: Game) -> None:
    """Players get time to see a round's results before the next rack (§3: at least 20 s by default)."""
    pause = settings.ARBITER_MIN_SECONDS_BETWEEN_ROUNDS
    last_close = game.rounds.filter(status=Round.Status.CLOSED).aggregate(at=Max("closed_at"))["at"]
    if not pause or last_close is None:
        return
    left = (last_close + timedelta(seconds=pause) - timezone.now()).total_seconds()
    if left > 0:
        wait = max(1, math.ceil(left))
        raise Conflict("too_soon", fields={"seconds": wait}, params={"seconds": wait, "pause": pause})


def round_draw(*, game: Game, rack: str | None = None, actor=None, after_rejection: bool = False) -> Round:
    """Draw the next rack: at random when ``rack`` is None, else the rack typed from a physical bag.

    The rack is the letters kept from the last round plus new ones, checked by the vowel/consonant rule
    (random draws are redrawn until valid, each rejection recorded). ``after_rejection``: the typed rack
    follows a rejected physical draw, so the kept letters went back into the bag.
    409 ``round_open`` while a round is drawn or open, ``game_over`` once the game is over.

    A game played from a sealed pack (services/sealed.py) reveals the pack's next rack instead, with the
    draws it recorded as rejected: 409 ``pack_locked`` before its key is given, ``pack_sequence`` for a
    typed rack, ``game_over`` once the pack has no more rounds.
    """
    act_as(require_head, game.pk, actor)
    if rack is not None:
        refuse_if_sealed(game.pk, "typed")

    if rack is not None and not isinstance(rack, str):
        raise ServiceError("bad_letters", fields={"rack": ["not text"]})
    if rack is not None and len(rack) > TYPED_RACK_MAX:
        raise ServiceError("wrong_size", fields={"rack": ["too long"]},
                           params={"why": "too_long", "max": 40})
    over = False
    with transaction.atomic():
        game, setting, number = _lock_for_next_rack(game)
        bag = list(game.bag)
        sealed = is_sealed(game.pk)
        try:
            if sealed:
                draw, over = _pack_draw(game, number, bag, setting), False
                if draw is None:
                    end_game(game, PACK_END, actor)
                    over = True
            elif rack is None:
                rng = random.Random(f"{game.seed}:{game.draws}")
                game.draws += 1
                draw = draw_rack(bag, game.kept, number, rng, setting.tileset, setting.rules,
                                 choose_blank=_blank_chooser(game, setting))
            else:
                draw = typed_draw(game, setting, bag, game.kept, rack, number, after_rejection=after_rejection)
        except RackError as error:
            if error.code != "game_over":
                raise rack_refused(error, setting.tileset) from None
            end_game(game, "no_valid_rack", actor)
            over = True
        if not over:
            rejected = list(game.pending_rejected) + list(draw.rejected)
            round = Round.objects.create(
                game=game,
                number=number,
                rack=draw.rack,
                kept=draw.kept,
                drawn=draw.drawn,
                rejected=rejected,
                typed=rack is not None,
                replaced=draw.replaced,
                board=game.board,
                bag_after="".join(draw.bag),
            )
            before = {"bag": game.bag, "kept": game.kept}
            game.bag = "".join(draw.bag)
            game.kept = ""
            game.pending_rejected = []
            game.status = Game.Status.PLAYING
            game.save(update_fields=["bag", "kept", "pending_rejected", "status", "draws"])
            after = {"number": number, "rack": draw.rack, "rejected": rejected, "typed": rack is not None}
            if draw.replaced:  # explosive: the letter that took the new blank's place
                after["replaced"] = draw.replaced
            log(game=game, round=round, action="round_draw", actor=actor, before=before, after=after)
            notify_game_changed(game.pk)
            round_id = round.pk
            transaction.on_commit(lambda: _schedule_tops(round_id))
    if over:
        raise Conflict("game_over", params={"why": PACK_END if sealed else "no_valid_rack"})
    return round


def typed_draw(game: Game, setting, bag: list[str], kept: str, rack: str, number: int, *,
               after_rejection: bool = False):
    """A rack typed from the real bag, checked against ``bag`` and ``kept`` (engine's Draw, or RackError).
    An explosive game's new blank becomes a letter as in a random draw, from the game's seeded sequence
    (``game.draws`` moves on; the caller saves it): the arbitrator then swaps the blank for that letter in
    the real bag. A multiplex centre's explosive rack (the organiser's, relayed or read out over the
    phone) already holds the letter its blank became: it is checked as drawn from the bag as it is."""
    letters = read_typed_rack(rack, setting.tileset)
    if setting.rules.explosive and _follows_organiser(game):
        return check_typed_rack(bag, kept, letters, number, setting.tileset, _rules_as_played(setting),
                                after_rejection=after_rejection)
    rng = None
    if setting.rules.explosive:
        rng = random.Random(f"{game.seed}:{game.draws}")
        game.draws += 1
    return check_typed_rack(bag, kept, letters, number, setting.tileset, setting.rules,
                            after_rejection=after_rejection, choose_blank=_blank_chooser(game, setting), rng=rng)


def _follows_organiser(game: Game) -> bool:
    """Whether the game follows an organiser's live game (a multiplex centre's: tournaments/relay.py)."""
    from tournaments.relay_models import RelayLink

    return RelayLink.objects.filter(game_id=game.pk).exists()


def _rules_as_played(setting):
    """The rules to check a rack as someone else drew it (a sealed pack's, an organiser's): an explosive rack
    already holds the letter its blank became, so it is checked as drawn from the bag as it is."""
    return replace(setting.rules, explosive=False) if setting.rules.explosive else setting.rules


def _blank_chooser(game: Game, setting):
    """An explosive game's choose_blank (the letter of the rack's top on the game's board); else None."""
    if not setting.rules.explosive:
        return None
    from engine.board import Board
    from engine.drawing import explosive_chooser

    return explosive_chooser(Board.from_rows(game.board), setting.lexicon, setting.tileset, setting.rules)


def _pack_draw(game: Game, number: int, bag: list[str], setting):
    """The pack's next rack drawn from the game's bag (as typed after a rejection when the pack's rack does not
    hold the kept letters), with the pack's rejected draws; None when the pack has no round ``number``."""
    revealed = next_pack_rack(game, number)
    if revealed is None:
        return None
    letters, rejected = revealed
    letters = letters.replace("+", "")
    whole_new = bool(rejected) or not Counter(game.kept) <= Counter(letters)
    try:
        draw = check_typed_rack(bag, game.kept, letters, number, setting.tileset, _rules_as_played(setting),
                                after_rejection=whole_new)
    except RackError:
        raise Conflict("pack_sequence", params={"why": "bag", "round": number}) from None
    return replace(draw, rejected=list(rejected))


def read_typed_rack(typed: str, tileset) -> str:
    """A rack typed at the console as the stored string of its tiles. A set whose tiles are single letters
    A-Z (English, French) takes the letters as typed, as it always did; another reads labels and keyboard
    aliases (Spanish ``123AEIO`` or ``[CH][LL][RR]AEIO``): 400 ``no_tile`` when the text is no tiles of the
    set, ``ambiguous_rack`` naming every reading when it reads more than one way (``CH`` one tile or C and
    H); nothing is drawn."""
    if tileset.plain:
        return typed
    try:
        return tileset.read_rack(typed)
    except TileReadingError as error:
        raise input_refused(error, "rack") from None


def rack_refused(error, tileset=None) -> ServiceError:
    """A typed rack the game cannot take. Letters that are not tiles are bad input (400 ``bad_letters``);
    a well-formed rack that the bag, the kept letters or the vowel/consonant rule of this round refuses
    (``not_in_bag``, ``wrong_size``, ``missing_kept``, ``too_few_vowels``...) conflicts with the state of
    the game (409): the same letters are fine in another game or at another point of this one."""
    error_class = ServiceError if error.code == "bad_letters" else Conflict
    if tileset is not None and not tileset.plain:
        # The rack and its letters by the tiles' labels (Spanish RR, not its storage character).
        params = {key: (_tiles_shown(value, tileset) if key in _TILE_PARAMS else value)
                  for key, value in error.params.items()}
        message = refusal_message(error.code, params)
        return error_class(error.code, message, fields={"rack": [message]}, params=params)
    return input_refused(error, "rack", error_class)


# The params of a rack's refusal that hold tiles as stored strings (engine/refusals.py).
_TILE_PARAMS = ("rack", "kept", "letters")


def _tiles_shown(value, tileset):
    """Stored tiles as typed back (a tile of several letters in brackets: ``[CH][CH]AEIOU``)."""
    if isinstance(value, str):
        return tileset.typed(value)
    if isinstance(value, (list, tuple)):
        return [tileset.typed(v) if isinstance(v, str) else v for v in value]
    return value


def rack_reject(*, game: Game, rack: str, actor=None) -> list[str]:
    """Record a rack drawn from the physical bag that fails the vowel/consonant rule (§3.2).

    Every letter of it, kept ones included, goes back into the bag; the record (``-KEPT+NEW``) is shown
    with the round's accepted rack, which is then typed (or drawn) as a whole new one. A rack that obeys
    the rule, or that the bag cannot hold, is refused and changes nothing. Returns the rejections so far.
    409 ``pack_sequence`` in a game played from a sealed pack (its rejected draws are the pack's).
    """
    act_as(require_head, game.pk, actor)
    refuse_if_sealed(game.pk, "rejected")

    if not isinstance(rack, str) or not rack.strip() or len(rack) > TYPED_RACK_MAX:
        raise ServiceError("bad_letters", fields={"rack": ["required"]}, params={"why": "rejected"})
    with transaction.atomic():
        game, setting, number = _lock_for_next_rack(game)
        rack = read_typed_rack(rack, setting.tileset)
        try:
            draw = check_typed_rack(list(game.bag), game.kept, rack, number, setting.tileset, setting.rules)
        except RackError as error:
            if error.code not in ("too_few_vowels", "too_few_consonants"):
                raise rack_refused(error, setting.tileset) from None
            letters = "".join(rack.split()).upper()
            kept = sorted_letters(game.kept)
            new = sorted_letters((Counter(letters) - Counter(game.kept)).elements())
        else:
            raise Conflict("rack_valid", fields={"rack": ["valid"]}, params={"rack": draw.rack})
        record = "-" + format_rack(kept, new)
        before = {"bag": game.bag, "kept": game.kept, "pending_rejected": list(game.pending_rejected)}
        game.bag = sorted_letters(list(game.bag) + list(game.kept))
        game.kept = ""
        game.pending_rejected = [*game.pending_rejected, record]
        game.save(update_fields=["bag", "kept", "pending_rejected"])
        log(game=game, action="rack_reject", actor=actor, before=before,
            after={"rejected": record, "round": number, "pending_rejected": game.pending_rejected})
        notify_game_changed(game.pk)
    return list(game.pending_rejected)


def round_compute_tops(*, round: Round) -> Round:
    """Compute and store every tied top and the proposed master of a drawn or open round (idempotent)."""

    round = Round.objects.select_related("game__tournament").get(pk=round.pk)
    if round.tops_ready or round.status not in (Round.Status.DRAWN, Round.Status.OPEN, Round.Status.CLOSED):
        return round
    game = round.game
    setting = setting_of(game.tournament)
    board = Board.from_rows(round.board)
    tops = find_tops(board, round.rack, setting.lexicon, setting.tileset, setting.rules)
    master = None
    written = [play_to_dict(play, setting.labelling) for play in tops.plays]
    if tops.score is not None and is_sealed(game.pk):
        master = master_for(round, written)  # the pack's master
    elif tops.score is not None:
        master = play_to_dict(
            choose_master(tops, board, list(round.bag_after), setting.tileset, setting.rules, rack=round.rack),
            setting.labelling,
        )
    # The rack they were computed for: a rack replaced meanwhile (services/incidents.py) waits for its own.
    Round.objects.filter(pk=round.pk, tops_ready=False, rack=round.rack).update(
        tops_ready=True,
        top_score=tops.score,
        tops=written,
        master=master,
    )
    round.refresh_from_db()
    return round
