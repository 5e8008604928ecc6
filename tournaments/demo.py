"""The demo set-up printed by ``manage.py rundemo``: an arbitrator login and a game ready to play; and the
arbitrator's account of an installed arbiter or of a server the network can reach, with a password of its own.
"""

import secrets

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


def ensure_arbitrator(*, console_url: str, fixed_password_allowed: bool = False) -> list[str]:
    """The first run's arbitrator account, and how to sign in, for a server that must not use a fixed password
    (an installed arbiter, or one the network can reach).

    With no staff account yet, creates ``arbitre`` with a random password and prints it (this once). An
    account that still has the demo's fixed password (a data folder that a checkout's ``make run`` filled)
    gets a random one too, printed the same way, unless ``fixed_password_allowed``."""
    user_model = get_user_model()
    sign_in = f"Sign in at {console_url}"
    staff = user_model.objects.filter(is_staff=True, is_active=True).order_by("pk")
    user = staff.filter(username=DEMO_USERNAME).first() or staff.first()
    if user is None:
        user = user_model(username=DEMO_USERNAME, is_staff=True, is_superuser=True)
        password = _new_password()
        user.set_password(password)
        user.save()
        return [f"The arbitrator's account is created. {sign_in} with username {DEMO_USERNAME!r} and password "
                f"{password!r} (shown this once: note it down)."]
    if not fixed_password_allowed and user.check_password(DEMO_PASSWORD):
        password = _new_password()
        user.set_password(password)
        user.save(update_fields=["password"])
        return [f"The demo password is not used on this server: {sign_in} with username {user.username!r} and "
                f"the new password {password!r} (shown this once: note it down)."]
    return [f"{sign_in} as {user.username!r}. Password forgotten? arbiter manage changepassword {user.username}"]


def _new_password() -> str:
    # 12 characters from 32 (no 0/O, 1/l/I): easy to read off a screen, 60 bits.
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
    return "".join(secrets.choice(alphabet) for _ in range(12))
