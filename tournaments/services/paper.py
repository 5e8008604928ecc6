"""A mixed room: tables for players who join by phone, the arbitrator's changes of table, and the mark that a
round's paper slips are all entered (its standings are final from then on)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max

from tournaments.errors import Conflict, NotFound, ServiceError
from tournaments.limits import TABLE_MAX
from tournaments.models import Game, LateSlip, Player, Round, Slip, Tournament
from tournaments.reasons import SLIPS_COMPLETE_AUTO
from tournaments.versions import notify_game_changed

from .logbook import log
from .roles import act_on_player, require_arbitrator


def _checked_table(table) -> int:
    if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= TABLE_MAX:
        raise ServiceError("bad_table", fields={"table": ["out of range"]}, params={"table": table, "max": TABLE_MAX})
    return table


def _table_holder(tournament_id: int, table: int, other_than: int | None = None) -> Player | None:
    players = Player.objects.filter(tournament_id=tournament_id, table=table)
    if other_than is not None:
        players = players.exclude(pk=other_than)
    return players.order_by("id").first()


def seat_for_phone(*, tournament_id: int, table: int | None) -> int:
    """The table of a player joining by phone: the one they asked for when it is free (409 ``table_taken``
    when someone of the tournament sits there), else the next free table: the one after the highest taken.

    Called inside the joining transaction: the tournament's row is locked, so two phones joining at the
    same moment never get the same table."""
    Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if table is not None:
        table = _checked_table(table)
        if _table_holder(tournament_id, table) is not None:
            raise Conflict("table_taken", fields={"table": ["taken"]}, params={"table": table})
        return table
    highest = Player.objects.filter(tournament_id=tournament_id).aggregate(n=Max("table"))["n"] or 0
    if highest >= TABLE_MAX:
        raise Conflict("no_free_table", fields={"table": ["none free"]}, params={"max": TABLE_MAX})
    return highest + 1


def player_table_change(*, game: Game, player: Player, table: int | None, actor=None) -> Player:
    """The arbitrator seats a player at another table (``None``: no table). A table where another player of
    the tournament sits is refused (409 ``table_taken``, naming who). Logged. An arbitrator with a role in
    the player's game (head or assistant) does it, through that game (``roles.act_on_player``: the table is
    the player's in every game they play; ``actor`` None: the server itself)."""
    if actor is not None:
        require_arbitrator(game.pk, actor)
    if table is not None:
        table = _checked_table(table)
    with transaction.atomic():
        Tournament.objects.select_for_update().filter(pk=game.tournament_id).first()
        current = Player.objects.select_for_update().filter(pk=getattr(player, "pk", None)).first()
        if current is None:
            raise NotFound("unknown_player", fields={"player": ["unknown"]}, params={"why": "in_game"})
        game = act_on_player(require_arbitrator, game, current, actor)
        if current.table == table:
            return current
        if table is not None:
            holder = _table_holder(game.tournament_id, table, other_than=current.pk)
            if holder is not None:
                raise Conflict("table_taken", fields={"table": ["taken"]}, params={"table": table, "name": holder.name})
        before = current.table
        current.table = table
        current.save(update_fields=["table"])
        log(game=game, action="player_table", player=current, actor=actor,
            before={"table": before}, after={"table": table})
        notify_game_changed(game.pk)
    return current


def paper_players(game: Game) -> bool:
    """Whether some player of the game did not join by phone: their slips may come on paper."""
    return Player.objects.in_game(game).filter(joined_by_phone=False).exists()


def round_slips_complete(*, round: Round, actor) -> Round:
    """The arbitrator has entered every paper slip of the closed round: its standings are final. Logged
    once (marking it again changes nothing)."""
    with transaction.atomic():
        current = Round.objects.select_for_update().select_related("game").filter(pk=round.pk).first()
        if current is None or current.status == Round.Status.CANCELLED:
            raise NotFound("not_found", params={"round": getattr(round, "number", None), "why": "no_round"})
        require_arbitrator(current.game_id, actor)  # the game's head or an assistant (services.roles)
        if current.status != Round.Status.CLOSED:
            raise Conflict("round_not_closed", params={"round": current.number, "why": "complete"})
        if current.slips_complete:
            return current
        current.slips_complete = True
        current.save(update_fields=["slips_complete"])
        log(game=current.game, round=current, action="slips_complete", actor=actor,
            before={"slips_complete": False}, after={"slips_complete": True})
        notify_game_changed(current.game_id)
    return current


def paper_slips_missing(round: Round) -> bool:
    """Whether some player of the round's game who plays on paper (did not join by phone) has handed in
    nothing entered yet: no slip in the round, nor a late one on record."""
    paper = Player.objects.in_game(round.game).filter(joined_by_phone=False).values("pk")
    entered = set(Slip.objects.filter(round_id=round.pk, current=True, player__in=paper)
                  .values_list("player_id", flat=True))
    entered |= set(LateSlip.objects.filter(round_id=round.pk, player__in=paper).values_list("player_id", flat=True))
    return Player.objects.filter(pk__in=paper).exclude(pk__in=entered).exists()


def round_slips_complete_if_all_in(round: Round) -> bool:
    """The closed round's paper slips are complete by themselves once every paper player of the round has a
    slip (or a late one) entered: marked and logged as the arbitrator's mark is, by the server, with the
    reason SLIPS_COMPLETE_AUTO. Called inside the transaction that entered a slip, or closed the round.
    Returns whether it marked the round now; a paper player who handed in nothing leaves it to the
    arbitrator's button."""
    with transaction.atomic():
        current = Round.objects.select_for_update().select_related("game").filter(pk=round.pk).first()
        if current is None or current.status != Round.Status.CLOSED or current.slips_complete:
            return False
        if paper_slips_missing(current):
            return False
        current.slips_complete = True
        current.save(update_fields=["slips_complete"])
        log(game=current.game, round=current, action="slips_complete", before={"slips_complete": False},
            after={"slips_complete": True}, reason=SLIPS_COMPLETE_AUTO)
        notify_game_changed(current.game_id)
    return True
