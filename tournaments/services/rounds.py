"""The life of a round: draw, start (the clock), close (judge and publish), master, and the end of a game."""

from __future__ import annotations

import logging
import math
import os
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from tournaments.errors import Conflict, ServiceError
from tournaments.models import Game, LateSlip, Result, Round, Slip
from tournaments.tasks import close_round as close_round_task
from tournaments.tasks import compute_tops as compute_tops_task
from tournaments.versions import notify_game_changed

from .common import late_message, log, play_from_dict, play_to_dict, setting_of, sorted_letters, tiles_left
from .setup import game_players

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------------
# Draw


def _round_in_play(game: Game) -> Round | None:
    return game.rounds.filter(status__in=[Round.Status.DRAWN, Round.Status.OPEN]).first()


def _next_number(game: Game) -> int:
    last = game.rounds.exclude(status=Round.Status.CANCELLED).aggregate(n=Max("number"))["n"]
    return (last or 0) + 1


def _end(game: Game, reason: str, actor=None) -> None:
    game.status = Game.Status.OVER
    game.end_reason = reason
    game.ended_at = timezone.now()
    game.save(update_fields=["status", "end_reason", "ended_at"])
    log(game=game, action="game_end", actor=actor, after={"reason": reason})
    notify_game_changed(game.pk)


def _lock_for_next_rack(game: Game):
    """Lock the game for its next rack: (game, setting, next round number); 409 if over or a round is in play."""
    game = Game.objects.select_for_update().select_related("tournament").get(pk=game.pk)
    if game.status == Game.Status.OVER:
        raise Conflict("game_over", "the game is over")
    if _round_in_play(game) is not None:
        raise Conflict("round_open", "a round is still in play: close it first")
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
        raise Conflict("too_soon", f"the next rack can be drawn in {wait} s: at least {pause} s after a round closes",
                       fields={"seconds": wait})


def round_draw(*, game: Game, rack: str | None = None, actor=None, after_rejection: bool = False) -> Round:
    """Draw the next rack: at random when ``rack`` is None, else the rack typed from a physical bag.

    The rack is the letters kept from the last round plus new ones, checked by the vowel/consonant rule
    (random draws are redrawn until valid, each rejection recorded). ``after_rejection``: the typed rack
    follows a rejected physical draw, so the kept letters went back into the bag.
    409 ``round_open`` while a round is drawn or open, ``game_over`` once the game is over.
    """
    from engine.drawing import RackError, check_typed_rack, draw_rack

    if rack is not None and not isinstance(rack, str):
        raise ServiceError("bad_letters", "the rack must be letters", fields={"rack": ["not text"]})
    if rack is not None and len(rack) > 40:
        raise ServiceError("wrong_size", "the rack is too long", fields={"rack": ["too long"]})
    over = False
    with transaction.atomic():
        game, setting, number = _lock_for_next_rack(game)
        bag = list(game.bag)
        try:
            if rack is None:
                rng = random.Random(f"{game.seed}:{game.draws}")
                game.draws += 1
                draw = draw_rack(bag, game.kept, number, rng, setting.tileset, setting.rules)
            else:
                draw = check_typed_rack(
                    bag, game.kept, rack, number, setting.tileset, setting.rules, after_rejection=after_rejection
                )
        except RackError as error:
            if error.code != "game_over":
                raise ServiceError(error.code, error.message, fields={"rack": [error.message]}) from None
            _end(game, "no_valid_rack", actor)
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
                board=game.board,
                bag_after="".join(draw.bag),
            )
            before = {"bag": game.bag, "kept": game.kept}
            game.bag = "".join(draw.bag)
            game.kept = ""
            game.pending_rejected = []
            game.status = Game.Status.PLAYING
            game.save(update_fields=["bag", "kept", "pending_rejected", "status", "draws"])
            log(game=game, round=round, action="round_draw", actor=actor, before=before,
                after={"number": number, "rack": draw.rack, "rejected": rejected, "typed": rack is not None})
            notify_game_changed(game.pk)
            round_id = round.pk
            transaction.on_commit(lambda: _schedule_tops(round_id))
    if over:
        raise Conflict("game_over", "the letters left cannot make a valid rack: the game is over")
    return round


def rack_reject(*, game: Game, rack: str, actor=None) -> list[str]:
    """Record a rack drawn from the physical bag that fails the vowel/consonant rule (§3.2).

    Every letter of it, kept ones included, goes back into the bag; the record (``-KEPT+NEW``) is shown
    with the round's accepted rack, which is then typed (or drawn) as a whole new one. A rack that obeys
    the rule, or that the bag cannot hold, is refused and changes nothing. Returns the rejections so far.
    """
    from engine.drawing import RackError, check_typed_rack, format_rack

    if not isinstance(rack, str) or not rack.strip() or len(rack) > 40:
        raise ServiceError("bad_letters", "type the rejected rack's letters", fields={"rack": ["required"]})
    with transaction.atomic():
        game, setting, number = _lock_for_next_rack(game)
        try:
            draw = check_typed_rack(list(game.bag), game.kept, rack, number, setting.tileset, setting.rules)
        except RackError as error:
            if error.code not in ("too_few_vowels", "too_few_consonants"):
                raise ServiceError(error.code, error.message, fields={"rack": [error.message]}) from None
            letters = "".join(rack.split()).upper()
            kept = sorted_letters(game.kept)
            new = sorted_letters((Counter(letters) - Counter(game.kept)).elements())
        else:
            raise ServiceError("rack_valid", f"{draw.rack} obeys the vowel/consonant rule: draw it as the round's rack",
                               fields={"rack": ["valid"]})
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


_sender: ThreadPoolExecutor | None = None
_sender_pid: int | None = None


def _send_in_background(send, what: str) -> None:
    """Queue a task from a thread of its own, after the change was saved and answered: a broker that is
    down or hung never holds a request. A task that cannot be queued is logged; nothing depends on it
    alone (the close computes missing tops, the sweep and the first request after the deadline close)."""
    global _sender, _sender_pid
    if _sender is None or _sender_pid != os.getpid():  # one per process (Celery's workers are forked)
        _sender, _sender_pid = ThreadPoolExecutor(max_workers=1, thread_name_prefix="task-sender"), os.getpid()

    def run():
        try:
            send()
        except Exception:
            logger.exception("could not queue %s", what)

    _sender.submit(run)


def _schedule_tops(round_id: int) -> None:
    _send_in_background(lambda: compute_tops_task.delay(round_id), f"the tops of round {round_id}")


def round_compute_tops(*, round: Round) -> Round:
    """Compute and store every tied top and the proposed master of a drawn or open round (idempotent)."""
    from engine.board import Board
    from engine.master import choose_master
    from engine.movegen import find_tops

    round = Round.objects.select_related("game__tournament").get(pk=round.pk)
    if round.tops_ready or round.status not in (Round.Status.DRAWN, Round.Status.OPEN, Round.Status.CLOSED):
        return round
    game = round.game
    setting = setting_of(game.tournament)
    board = Board.from_rows(round.board)
    tops = find_tops(board, round.rack, setting.lexicon, setting.tileset, setting.rules)
    master = None
    if tops.score is not None:
        master = play_to_dict(
            choose_master(tops, board, list(round.bag_after), setting.tileset, setting.rules, rack=round.rack),
            setting.labelling,
        )
    Round.objects.filter(pk=round.pk, tops_ready=False).update(
        tops_ready=True,
        top_score=tops.score,
        tops=[play_to_dict(play, setting.labelling) for play in tops.plays],
        master=master,
    )
    round.refresh_from_db()
    return round


# --------------------------------------------------------------------------------------------------
# The clock


def round_start(*, round: Round, actor=None, now: datetime | None = None) -> Round:
    """Open the round: store its deadline and schedule its close at the deadline."""
    now = now or timezone.now()
    with transaction.atomic():
        current = Round.objects.select_related("game__tournament").get(pk=round.pk)
        seconds = current.game.tournament.round_seconds
        deadline = now + timedelta(seconds=seconds)
        updated = Round.objects.filter(pk=round.pk, status=Round.Status.DRAWN).update(
            status=Round.Status.OPEN, started_at=now, deadline=deadline
        )
        if not updated:
            if current.status == Round.Status.OPEN:
                raise Conflict("round_open", "the round is already open")
            raise Conflict("round_closed", "the round is closed")
        log(game=current.game, round=current, action="round_start", actor=actor,
            after={"deadline": deadline.isoformat(), "seconds": seconds})
        notify_game_changed(current.game_id)
        round_id = current.pk
        transaction.on_commit(lambda: _schedule_close(round_id, deadline))
    current.refresh_from_db()
    return current


def _schedule_close(round_id: int, deadline: datetime) -> None:
    _send_in_background(lambda: close_round_task.apply_async(args=[round_id], eta=deadline),
                        f"the close of round {round_id}")


def round_close_if_due(*, round_id: int, now: datetime | None = None, wait: bool = True) -> bool:
    """Close the round if its deadline has passed and it is still open (what the clock's task does).

    ``wait=False``: a close made on the way by a request; when another close holds the round, leave it to
    that one instead of waiting for it."""
    now = now or timezone.now()
    round = Round.objects.filter(pk=round_id, status=Round.Status.OPEN, deadline__lte=now).first()
    if round is None:
        return False
    return round_close(round=round, now=now, wait=wait)


def game_close_if_due(*, game_id: int, now: datetime | None = None) -> bool:
    """The deadline is the truth: whoever comes first after it closes the round, whether the clock's task,
    the sweep, or a request that reads or writes the game. One indexed query when nothing is due; never
    waits for a close already under way; a failure is logged, never passed to the request."""
    now = now or timezone.now()
    round_id = (Round.objects.filter(game_id=game_id, status=Round.Status.OPEN, deadline__lte=now)
                .values_list("pk", flat=True).first())
    if round_id is None:
        return False
    try:
        return round_close_if_due(round_id=round_id, now=now, wait=False)
    except Exception:
        logger.exception("could not close round %s on the way", round_id)
        return False


def rounds_close_overdue(*, now: datetime | None = None) -> int:
    """Close every open round whose deadline has passed (the periodic sweep); return how many closed."""
    now = now or timezone.now()
    closed = 0
    for round in Round.objects.filter(status=Round.Status.OPEN, deadline__lte=now).order_by("deadline"):
        try:
            if round_close(round=round, now=now):
                closed += 1
        except Exception:  # one round that cannot close must not keep the others open
            logger.exception("could not close round %s", round.pk)
    return closed


# --------------------------------------------------------------------------------------------------
# Close


def round_close(*, round: Round, actor=None, now: datetime | None = None, wait: bool = True) -> bool:
    """Close the round: judge every slip, record results, place the master, keep the unplayed letters.

    The transition is claimed by a conditional update, so of two simultaneous closes only one judges;
    return True if this call closed the round. ``wait=False``: when the round's row is locked (another
    close under way, or a slip being written) return False at once instead of waiting. A round where no
    play is possible is cancelled: its letters go back into the bag and the next draw has the same
    number (§3.6).
    """
    now = now or timezone.now()
    current = Round.objects.get(pk=round.pk)
    if current.status in (Round.Status.CLOSED, Round.Status.CANCELLED):
        return False
    if not current.tops_ready:
        current = round_compute_tops(round=current)
    with transaction.atomic():
        if not wait and not Round.objects.select_for_update(skip_locked=True).filter(pk=round.pk).exists():
            return False
        claimed = Round.objects.filter(pk=round.pk, status__in=[Round.Status.DRAWN, Round.Status.OPEN]).update(
            status=Round.Status.CLOSED, closed_at=now
        )
        if not claimed:
            return False
        current = Round.objects.select_related("game__tournament").get(pk=round.pk)
        game = Game.objects.select_for_update().select_related("tournament").get(pk=current.game_id)
        if current.top_score is None:
            _cancel(game, current, actor)
        else:
            _judge_all(game, current)
            _place_master(game, current)
            log(game=game, round=current, action="round_close", actor=actor,
                after={"top_score": current.top_score, "master": _brief(current.master)})
            if _bag_exhausted(game, current.number + 1):
                _end(game, "bag_empty", actor)
        notify_game_changed(game.pk)
    return True


def _brief(play: dict | None) -> dict | None:
    return None if play is None else {"word": play["word"], "ref": play["ref"], "score": play["score"]}


def _cancel(game: Game, round: Round, actor) -> None:
    Round.objects.filter(pk=round.pk).update(status=Round.Status.CANCELLED)
    game.bag = sorted_letters(game.bag + round.rack)
    game.kept = ""
    game.save(update_fields=["bag", "kept"])
    log(game=game, round=round, action="round_cancel", actor=actor, after={"rack": round.rack},
        reason="no play possible: the letters go back into the bag")
    if len(game.bag) <= setting_of(game.tournament).rules.rack_size:
        _end(game, "no_play", actor)  # the same letters would be drawn again


def _bag_exhausted(game: Game, next_number: int) -> bool:
    from engine.drawing import game_is_over

    setting = setting_of(game.tournament)
    return game_is_over(list(game.bag), game.kept, setting.tileset, setting.rules, round_number=next_number)


def judge(setting, round: Round, slip: Slip | None, board=None):
    """The engine's judgement of one player's slip in this round (``no_slip`` without one)."""
    from engine.board import Board
    from engine.judging import Slip as EngineSlip
    from engine.judging import judge_slip, zero

    if slip is None:
        return zero("no_slip")
    if slip.several:
        return zero("several_slips")
    return judge_slip(
        board if board is not None else Board.from_rows(round.board),
        round.rack,
        round.number,
        EngineSlip(slip.word, slip.ref or None, slip.claimed),
        setting.lexicon,
        setting.tileset,
        setting.rules,
        labelling=setting.labelling,
    )


def _judge_all(game: Game, round: Round) -> None:
    """Judge every player's slip. A hall hands in the same few plays many times: each distinct slip
    (word, reference, score) is judged once, on one board."""
    from engine.board import Board
    from engine.judging import zero

    setting = setting_of(game.tournament)
    board = Board.from_rows(round.board)
    slips = {s.player_id: s for s in Slip.objects.filter(round=round, current=True)}
    late = {}  # the first late slip of each player who has one: the result reads late, not no_slip
    for player_id, late_by in (LateSlip.objects.filter(round=round).order_by("-received_at")
                               .values_list("player_id", "late_by")):
        late[player_id] = late_by
    already = set(Result.objects.filter(round=round).values_list("player_id", flat=True))
    results = []
    judged: dict[tuple, object] = {}
    for player in game_players(game).only("pk"):
        if player.pk in already:  # arrived after the close started: written as absent
            continue
        slip = slips.get(player.pk)
        content = None if slip is None else (slip.word, slip.ref, slip.claimed, slip.several)
        judgement = judged.get(content)
        if slip is None and player.pk in late:
            judgement = zero("late", late_message(late[player.pk]))
        elif judgement is None:
            judgement = judged[content] = judge(setting, round, slip, board=board)
        results.append(
            Result(round=round, player=player, slip=slip, paid=judgement.paid, outcome=judgement.outcome,
                   reason=judgement.reason, message=judgement.message[:300])
        )
    Result.objects.bulk_create(results)


def _place_master(game: Game, round: Round) -> None:
    from engine.board import Board

    board = Board.from_rows(round.board)
    if round.master is not None:
        board = board.place(play_from_dict(round.master))
    game.board = board.rows()
    game.kept = tiles_left(round.rack, round.master)
    game.save(update_fields=["board", "kept"])


# --------------------------------------------------------------------------------------------------
# Master


def round_choose_master(*, round: Round, word: str, ref: str, actor=None) -> Round:
    """Make another of the tied tops the master, before the next round is drawn; the board follows."""
    from engine.notation import RefError, parse_ref

    with transaction.atomic():
        current = Round.objects.select_for_update().select_related("game__tournament").get(pk=round.pk)
        game = Game.objects.select_for_update().select_related("tournament").get(pk=current.game_id)
        if current.status != Round.Status.CLOSED:
            raise Conflict("round_not_closed", "the master is chosen once the round is closed")
        if game.rounds.filter(number__gt=current.number).exclude(status=Round.Status.CANCELLED).exists():
            raise Conflict("master_locked", "the next round has been drawn: the master can no longer change")
        try:
            wanted = parse_ref(ref, game.tournament.coordinates)
        except RefError as error:
            raise ServiceError(error.code, error.message, fields={"ref": [error.message]}) from None
        text = str(word or "").strip()
        candidates = [
            top for top in current.tops
            if (top["row"], top["col"], top["horizontal"]) == (wanted.row, wanted.col, wanted.horizontal)
            and top["word"].upper() == text.upper()
        ]
        exact = [top for top in candidates if top["word"] == text]
        chosen = (exact or candidates or [None])[0]
        if chosen is None:
            raise ServiceError("not_a_top", f"{text} {ref} is not one of the tied tops", fields={"word": ["not a top"]})
        before = _brief(current.master)
        current.master = chosen
        current.save(update_fields=["master"])
        _place_master(game, current)
        if game.status == Game.Status.OVER and game.end_reason == "bag_empty" and not _bag_exhausted(
            game, current.number + 1
        ):
            game.status, game.end_reason, game.ended_at = Game.Status.PLAYING, "", None
            game.save(update_fields=["status", "end_reason", "ended_at"])
        elif game.status != Game.Status.OVER and _bag_exhausted(game, current.number + 1):
            _end(game, "bag_empty", actor)
        log(game=game, round=current, action="master_change", actor=actor, before=before, after=_brief(chosen))
        notify_game_changed(game.pk)
    return current


# --------------------------------------------------------------------------------------------------
# End


def game_end(*, game: Game, actor=None) -> Game:
    """End the game now (the arbitrator's decision); a drawn round not yet started is cancelled.

    Solos and warning deductions are counted by the standings of a game that is over.
    """
    with transaction.atomic():
        game = Game.objects.select_for_update().select_related("tournament").get(pk=game.pk)
        if game.status == Game.Status.OVER:
            return game
        in_play = _round_in_play(game)
        if in_play is not None and in_play.status == Round.Status.OPEN:
            raise Conflict("round_open", "a round is still open: close it first")
        if in_play is not None:
            Round.objects.filter(pk=in_play.pk).update(status=Round.Status.CANCELLED)
            game.bag = sorted_letters(game.bag + in_play.rack)
            game.kept = ""
            game.save(update_fields=["bag", "kept"])
        _end(game, "arbitrator", actor)
    return game
