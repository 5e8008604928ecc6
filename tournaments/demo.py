"""The demo set-up printed by ``manage.py rundemo``: an arbitrator login and a game ready to play."""

from django.contrib.auth import get_user_model

DEMO_USERNAME = "arbitre"
DEMO_PASSWORD = "duplicate"
DEMO_TOURNAMENT = "Demo tournament"
DEMO_PLAYERS = (("Alice", 1), ("Bruno", 2), ("Chloé", 3))
DEMO_SEED = 20260101


def create_demo(language: str = "en") -> list[str]:
    """Create (once) the demo arbitrator, a tournament with a game and a few players; describe them.
    ``language``: the tournament's language (en, fr) when it is created."""
    from tournaments.models import Game, Tournament
    from tournaments.services import game_create, player_register, tournament_create

    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        username=DEMO_USERNAME, defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
    lines = [f"Demo arbitrator: username {DEMO_USERNAME!r}, password {DEMO_PASSWORD!r}"]

    tournament = Tournament.objects.filter(name=DEMO_TOURNAMENT).first()
    if tournament is None:
        tournament = tournament_create(name=DEMO_TOURNAMENT, created_by=user, language=language)
    game = tournament.games.exclude(status=Game.Status.OVER).order_by("number").first()
    if game is None:
        game = game_create(tournament=tournament, seed=DEMO_SEED)
        tokens = [player_register(game=game, name=name, table=table) for name, table in DEMO_PLAYERS]
        lines.append("Demo players (bearer tokens, shown once):")
        lines.extend(f"  {player.name} (table {player.table}): {token}" for player, token in tokens)
    lines.append(
        f"Demo game: id {game.pk} of {tournament.name!r} ({tournament.lexicon}, {tournament.round_seconds} s "
        f"rounds), join code {game.join_code}, projector /projector/{game.screen_key}"
    )
    return lines
