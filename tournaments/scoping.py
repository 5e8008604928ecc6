"""What a URL's ids name together, and which game a player's own changes belong to.

A URL that names a game and, inside it, a player, a slip, a round or a late slip names objects of that game:
``mismatched(kwargs)`` says which one is not (the console's role decorators and the API's views answer 404
then, before the view reads anything). The permission a view checks is on the game of the URL, so an object
of another game (of the same tournament, where the caller may have no role) never passes through it.

A player plays the game they registered in and the tournament's later games, with one token and one table:
a new token, a new table or new details reach every one of those games. Such a change belongs to the
player's game (``player_game``): the first of theirs not over, the one they are playing or will play next.
It is done through that game only (the console and the services refuse it through another: 404), by an
arbitrator with the role it takes there, and it is written in that game's log, where its arbitrators see it.
"""

from __future__ import annotations

from tournaments.models import Game, LateSlip, Player, Round, Slip

# The URL's names of what lies inside the game (``game_id``): each is looked up within the game.
INNER = ("player_id", "slip_id", "number", "late_id")


def _an_id(value) -> bool:
    """An id a database column can hold (beyond, a query on it fails instead of finding nothing)."""
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def player_game(player: Player) -> Game:
    """The game a player's own changes belong to: among the tournament's games from the one they registered
    in, the first not over (the one they are playing, or the next they will play); once all are over, the
    last. A game left in play under a later one keeps them until its end: nothing changes its player from
    the later game, whose arbitrators may have no role in it."""
    games = Game.objects.filter(
        tournament_id=player.tournament_id,
        number__gte=Game.objects.filter(pk=player.first_game_id).values("number")[:1],
    ).select_related("tournament")
    return (games.exclude(status=Game.Status.OVER).order_by("number").first()
            or games.order_by("-number").first())


def mismatched(kwargs: dict) -> str | None:
    """The name of the URL's id that is not of the URL's game (``player_id``, ``slip_id``, ``number``,
    ``late_id``), or None when they all are (or the URL names no game: nothing to match)."""
    game_id = kwargs.get("game_id")
    named = [name for name in INNER if name in kwargs]
    if game_id is None or named in ([], ["number"]):
        # A round named by its number alone is the game's by construction (every view looks it up in the
        # URL's game): no query added to a phone's slip.
        return None
    for name in INNER:
        if name in kwargs and not _an_id(kwargs[name]):
            return name
    if not _an_id(game_id):
        return "game_id"
    number = kwargs.get("number")
    if "player_id" in kwargs:
        game = Game.objects.filter(pk=game_id).only("pk", "tournament_id", "number").first()
        if game is None or not Player.objects.in_game(game).filter(pk=kwargs["player_id"]).exists():
            return "player_id"
    if number is not None and not Round.objects.filter(game_id=game_id, number=number).exists():
        return "number"
    if "slip_id" in kwargs:
        slips = Slip.objects.filter(pk=kwargs["slip_id"], round__game_id=game_id)
        if number is not None:
            slips = slips.filter(round__number=number)
        if not slips.exists():
            return "slip_id"
    if "late_id" in kwargs:
        lates = LateSlip.objects.filter(pk=kwargs["late_id"], round__game_id=game_id)
        if number is not None:
            lates = lates.filter(round__number=number)
        if not lates.exists():
            return "late_id"
    return None
