"""Reads the console needs beyond tournaments.selectors: lists, lookups by id or table, the round's log."""

from __future__ import annotations

from django.db.models import Count
from django.http import Http404

from tournaments.models import Game, Lexicon, LogEntry, Player, Round, Slip, Tournament


def tournaments():
    return Tournament.objects.annotate(game_count=Count("games")).order_by("-created_at", "-id")


def tournament(tournament_id: int) -> Tournament:
    found = Tournament.objects.filter(pk=tournament_id).first()
    if found is None:
        raise Http404
    return found


def games_of(tournament: Tournament):
    return tournament.games.annotate(round_count=Count("rounds")).order_by("number")


def game(game_id: int) -> Game:
    found = Game.objects.select_related("tournament").filter(pk=game_id).first()
    if found is None:
        raise Http404
    return found


def round_of(game: Game, number: int) -> Round:
    found = game.rounds.counting().filter(number=number).first()
    if found is None:
        raise Http404
    return found


def players_of(game: Game) -> list[Player]:
    return list(Player.objects.in_game(game).order_by("table", "name", "id"))


def player_of(game: Game, player_id: int) -> Player:
    found = Player.objects.in_game(game).filter(pk=player_id).first()
    if found is None:
        raise Http404
    return found


def current_slips(round: Round) -> dict[int, Slip]:
    """The slip that counts for each player of the round, by player id."""
    return {slip.player_id: slip for slip in Slip.objects.filter(round=round, current=True)}


def slip_of(game: Game, slip_id: int) -> Slip:
    found = Slip.objects.select_related("round", "player").filter(pk=slip_id, round__game=game).first()
    if found is None:
        raise Http404
    return found


def corrections(round: Round) -> list[LogEntry]:
    return list(
        LogEntry.objects.filter(round=round, action__in=["slip_correct", "slip_add", "master_change", "late_admit", "late_enter", "slip_several"])
        .select_related("actor", "player")
        .order_by("id")
    )


def lexicon_names() -> list[str]:
    return list(Lexicon.objects.order_by("name").values_list("name", flat=True))


def imported_lexicons():
    return Lexicon.objects.filter(imported=True).order_by("name")
