"""The close of a round (every slip judged, results recorded, the master placed), the choice of another
tied top as master, and the end of a game."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from engine.board import Board
from engine.drawing import game_is_over, replace_played_blanks
from engine.judging import zero
from engine.notation import RefError, parse_ref
from tournaments.errors import Conflict, input_refused
from tournaments.formats import brief
from tournaments.limits import MESSAGE_MAX
from tournaments.logchain import rows_of
from tournaments.models import Game, LateSlip, Player, Result, Round, Slip
from tournaments.reasons import CANCEL_REASON
from tournaments.versions import notify_game_changed

from .draw import round_compute_tops
from .logbook import log
from .paper import paper_players, round_slips_complete_if_all_in
from .results_hooks import results_changed
from .roles import act_as, require_head
from .rounds import end_game, late_message, round_in_play
from .schedule import schedule_backup
from .sealed import PACK_END, is_sealed, master_for, pack_of, pack_rounds_count
from .setting import judge, placement, play_from_dict, setting_of, sorted_letters, tiles_left

logger = logging.getLogger(__name__)


def round_close(*, round: Round, actor=None, now: datetime | None = None, wait: bool = True) -> bool:
    """Close the round: judge every slip, record results, place the master, keep the unplayed letters.

    The transition is claimed by a conditional update, so of two simultaneous closes only one judges;
    return True if this call closed the round. ``wait=False``: when the round's row is locked (another
    close under way, or a slip being written) return False at once instead of waiting. A round where no
    play is possible is cancelled: its letters go back into the bag and the next draw has the same
    number (§3.6).
    """
    act_as(require_head, round.game_id, actor)
    now = now or timezone.now()
    began = time.monotonic()
    current = Round.objects.get(pk=round.pk)
    if current.status in (Round.Status.CLOSED, Round.Status.CANCELLED):
        return False
    if not current.tops_ready:
        current = round_compute_tops(round=current)
    with transaction.atomic():
        if not wait and not Round.objects.select_for_update(skip_locked=True).filter(pk=round.pk).exists():
            return False
        claimed = Round.objects.in_play().filter(pk=round.pk, paused_at__isnull=True).update(
            status=Round.Status.CLOSED, closed_at=now)
        if not claimed:
            return False
        current = Round.objects.select_related("game__tournament").get(pk=round.pk)
        game = Game.objects.select_for_update().select_related("tournament").get(pk=current.game_id)
        if current.top_score is None:
            _cancel(game, current, actor)
        else:
            _judge_all(game, current)
            sealed = is_sealed(game.pk)
            if sealed:  # the pack's master, whatever was proposed
                current.master = master_for(current, current.tops)
                Round.objects.filter(pk=current.pk).update(master=current.master)
            _place_master(game, current)
            if paper_players(game):  # paper slips may still be typed in: provisional until marked complete
                Round.objects.filter(pk=current.pk).update(slips_complete=False)
            log(game=game, round=current, action="round_close", actor=actor,
                after={"top_score": current.top_score, "master": brief(current.master)}, rows=_round_rows(current))
            round_slips_complete_if_all_in(current)  # every paper player's slip already in: final at once
            results_changed(game.pk)  # a centre's game (a pack's, a multiplex's): its results file kept and pushed
            if _bag_exhausted(game, current.number + 1):
                end_game(game, "bag_empty", actor)
            elif sealed and current.number >= pack_rounds_count(pack_of(game)):
                end_game(game, PACK_END, actor)
        notify_game_changed(game.pk)
        transaction.on_commit(_back_up)
    # What a festival's deadline is measured by (bench/festival.py reads these lines in the web and worker logs).
    logger.info("round %s of game %s closed: committed at its deadline %+.0f ms, after %.0f ms of work",
                current.number, game.pk, since_deadline_ms(current), (time.monotonic() - began) * 1000)
    return True


def _round_rows(round: Round) -> dict:
    """The digests of every slip, result and late slip of the round, chained by its close (logchain.rows_of)."""
    return rows_of(slips=Slip.objects.filter(round=round).order_by("id"),
                   results=Result.objects.filter(round=round).order_by("id"),
                   lates=LateSlip.objects.filter(round=round).order_by("id"))


def since_deadline_ms(round: Round) -> float:
    """Milliseconds from the round's deadline to now (negative before it), for the close's log lines."""
    if round.deadline is None:
        return 0.0
    return (timezone.now() - round.deadline).total_seconds() * 1000


def _back_up() -> None:
    """After every closed round, the worker copies the embedded database to DATA_DIR/backups/
    (arbiter/backups.py); on PostgreSQL, pg_dump does (docker/README.md)."""
    from arbiter.backups import embedded_database

    if embedded_database() is not None:
        schedule_backup()




def _cancel(game: Game, round: Round, actor) -> None:
    Round.objects.filter(pk=round.pk).update(status=Round.Status.CANCELLED)
    game.bag = sorted_letters(game.bag + round.rack)
    game.kept = ""
    game.save(update_fields=["bag", "kept"])
    log(game=game, round=round, action="round_cancel", actor=actor, after={"rack": round.rack},
        reason=CANCEL_REASON)
    if len(game.bag) <= setting_of(game.tournament).rules.rack_size:
        end_game(game, "no_play", actor)  # the same letters would be drawn again


def _bag_exhausted(game: Game, next_number: int) -> bool:

    setting = setting_of(game.tournament)
    return game_is_over(list(game.bag), game.kept, setting.tileset, setting.rules, round_number=next_number)


def _judge_all(game: Game, round: Round) -> None:
    """Judge every player's slip. A hall hands in the same few plays many times: each distinct slip
    (word, reference, score) is judged once, on one board."""

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
    for player in Player.objects.in_game(game).only("pk"):
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
                   reason=judgement.reason, message=judgement.message[:MESSAGE_MAX],
                   placement=placement(setting, judgement))
        )
    Result.objects.bulk_create(results)


def _place_master(game: Game, round: Round) -> None:

    board = Board.from_rows(round.board)
    fields = ["board", "kept"]
    if round.master is not None:
        master = play_from_dict(round.master)
        board = board.place(master)
        rules = setting_of(game.tournament).rules
        if rules.joker or rules.explosive:
            # A blank the master placed becomes its real letter while the bag holds one, and goes back into
            # the bag (docs/rules.md section 7). From the round's own bag, so a master changed later starts
            # again from the same letters.
            joker_rules = replace(rules, joker=True, explosive=False)
            board, bag, _letters = replace_played_blanks(board, master.tiles, list(round.bag_after), joker_rules)
            game.bag = sorted_letters("".join(bag))
            fields.append("bag")
    game.board = board.rows()
    game.kept = tiles_left(round.rack, round.master)
    game.save(update_fields=fields)


def round_choose_master(*, round: Round, word: str, ref: str, actor=None) -> Round:
    """Make another of the tied tops the master, before the next round is drawn; the board follows.
    409 ``pack_master`` in a game played from a sealed pack: the master is the pack's."""
    act_as(require_head, round.game_id, actor)
    if is_sealed(round.game_id):
        raise Conflict("pack_master", params={"round": round.number})

    with transaction.atomic():
        current = Round.objects.select_for_update().select_related("game__tournament").get(pk=round.pk)
        game = Game.objects.select_for_update().select_related("tournament").get(pk=current.game_id)
        if current.status != Round.Status.CLOSED:
            raise Conflict("round_not_closed")
        if game.rounds.counting().filter(number__gt=current.number).exists():
            raise Conflict("master_locked")
        try:
            wanted = parse_ref(ref, game.tournament.coordinates)
        except RefError as error:
            raise input_refused(error, "ref") from None
        text = str(word or "").strip()
        candidates = [
            top for top in current.tops
            if (top["row"], top["col"], top["horizontal"]) == (wanted.row, wanted.col, wanted.horizontal)
            and top["word"].upper() == text.upper()
        ]
        exact = [top for top in candidates if top["word"] == text]
        chosen = (exact or candidates or [None])[0]
        if chosen is None:
            raise Conflict("not_a_top", fields={"word": ["not a top"]},
                           params={"word": text, "ref": str(ref)})
        before = brief(current.master)
        current.master = chosen
        current.save(update_fields=["master"])
        _place_master(game, current)
        if game.status == Game.Status.OVER and game.end_reason == "bag_empty" and not _bag_exhausted(
            game, current.number + 1
        ):
            game.status, game.end_reason, game.ended_at = Game.Status.PLAYING, "", None
            game.save(update_fields=["status", "end_reason", "ended_at"])
        elif game.status != Game.Status.OVER and _bag_exhausted(game, current.number + 1):
            end_game(game, "bag_empty", actor)
        log(game=game, round=current, action="master_change", actor=actor, before=before, after=brief(chosen))
        notify_game_changed(game.pk)
    return current


def game_end(*, game: Game, actor=None) -> Game:
    """End the game now (the arbitrator's decision); a drawn round not yet started is cancelled.

    Solos and warning deductions are counted by the standings of a game that is over.
    """
    act_as(require_head, game.pk, actor)
    with transaction.atomic():
        game = Game.objects.select_for_update().select_related("tournament").get(pk=game.pk)
        if game.status == Game.Status.OVER:
            return game
        in_play = round_in_play(game)
        if in_play is not None and in_play.status == Round.Status.OPEN:
            raise Conflict("round_open", params={"why": "end"})
        if in_play is not None:
            Round.objects.filter(pk=in_play.pk).update(status=Round.Status.CANCELLED)
            game.bag = sorted_letters(game.bag + in_play.rack)
            game.kept = ""
            game.save(update_fields=["bag", "kept"])
        end_game(game, "arbitrator", actor)
    return game
