"""Setting up an event: tournaments, games, players, imported word lists."""

from __future__ import annotations

import functools
import secrets
from collections.abc import Iterable

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from tournaments.errors import Conflict, NotFound, ServiceError
from tournaments.federation import identity
from tournaments.lexicons import BUILTIN_LEXICONS, cache_dir, get_lexicon, remember
from tournaments.limits import LEXICON_NAME_MAX, PLAYER_NAME_MAX, SERIES_MAX, TOURNAMENT_NAME_MAX
from tournaments.logchain import rows_of
from tournaments.models import Game, Lexicon, Player, Result, Round, Tournament, hash_token, new_screen_key
from tournaments.names import clean_name
from tournaments.versions import game_created, notify_game_changed

from .logbook import log
from .paper import seat_for_phone
from .roles import act_on_player, record_creator, require_arbitrator, require_head, require_tournament_head
from .setting import sorted_letters

JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I look-alikes
# 32**10 = 2**50, about 1.1e15 codes. A right code is always looked up (a hall behind one address is never
# held up), so every answer tells a guesser something: the code space keeps guessing hopeless, at the rate the
# server answers (docs/security.md, Join codes; bench/join_guesses.py).
JOIN_CODE_LENGTH = 10
MAX_ROUND_SECONDS = 3600


def _clean_name(value, field: str, max_length: int) -> str:
    """The name as stored: invisible and control characters removed, whitespace collapsed, NFC
    (``tournaments.names.clean_name``); refused when nothing visible is left or when it is too long."""
    text = clean_name(value)
    if not text:
        if str(value or "").strip():
            raise ServiceError(f"{field}_required", fields={field: ["no visible character"]},
                               params={"field": field, "why": "invisible"})
        raise ServiceError(f"{field}_required", fields={field: ["required"]}, params={"field": field})
    if len(text) > max_length:
        raise ServiceError(f"{field}_too_long", fields={field: ["too long"]}, params={"field": field, "max": max_length})
    return text


def tournament_create(  # noqa: PLR0913  (keyword-only: the settings of the tournament)
    *,
    name: str,
    lexicon: str = "TWL06",
    tileset: str = "english",
    ruleset: str = "fisf",
    round_seconds: int | None = None,
    coordinates: str = "rows-letters",
    language: str = "en",
    variant: str = "duplicate",
    timing: str = "normal",
    created_by=None,
    **overrides,
) -> Tournament:
    """A tournament with its lexicon (and its SHA-256), tile set, rules preset plus overrides, round time
    and coordinate labelling. ``overrides`` are fields of engine.rules.Rules (solo_min_players, ...)."""
    checked = tournament_settings(name=name, lexicon=lexicon, tileset=tileset, ruleset=ruleset,
                                  round_seconds=round_seconds, coordinates=coordinates, language=language,
                                  variant=variant, timing=timing, **overrides)
    return Tournament.objects.create(
        **checked, created_by=created_by if getattr(created_by, "is_authenticated", False) else None)


def _check_list_fits_set(name: str, words, tileset: str) -> None:
    """Refuse (400 ``tileset_mismatch``, stating the share) a word list of which more than
    ``LEXICON_UNWRITABLE_PER_MILLE`` per mille of the words cannot be written with the tile set: a Spanish
    tournament on TWL06 (its words with K or W), an English one on a Catalan list (L·L, NY, Ç)."""
    if name in BUILTIN_LEXICONS:
        own = "english"  # TWL06 and SOWPODS are English lists
    else:
        row = Lexicon.objects.filter(name=name).only("tileset").first()
        own = row.tileset if row is not None else tileset
    if own == tileset:
        return
    unwritable, total, example = _unwritable(name, words.sha256, own, tileset)
    allowed = getattr(settings, "LEXICON_UNWRITABLE_PER_MILLE", 10)
    if total and unwritable * 1000 > allowed * total:
        raise ServiceError("tileset_mismatch", fields={"tileset": ["does not fit the lexicon"]}, params={
            "lexicon": name, "tileset": tileset, "own": own, "unwritable": unwritable, "words": total,
            "share": f"{100 * unwritable / total:.1f}%", "allowed": f"{allowed / 10:g}%", "example": example})


@functools.lru_cache(maxsize=32)
def _unwritable(name: str, sha256: str, own: str, tileset: str) -> tuple[int, int, str]:
    """(words of the list that the set ``tileset`` cannot write, words, the first of them as labels): each
    word read in its own set's labels, then spelled with the other set."""
    from engine.tiles import load_tileset

    source, target = load_tileset(own), load_tileset(tileset)
    unwritable, total, example = 0, 0, ""
    for stored in get_lexicon(name).words():
        total += 1
        written = source.show(stored)
        if target.spell(written) is None:
            unwritable += 1
            example = example or written
    return unwritable, total, example


def tournament_settings(
    *,
    name: str,
    lexicon: str = "TWL06",
    tileset: str = "english",
    ruleset: str = "fisf",
    round_seconds: int | None = None,
    coordinates: str = "rows-letters",
    language: str = "en",
    variant: str = "duplicate",
    timing: str = "normal",
    **overrides,
) -> dict:
    """A tournament's settings checked, as its fields (the lexicon's SHA-256 added, the overrides as
    ``rule_overrides``): what tournament_create stores, and what services.tournament_update changes."""
    from engine.notation import LABELLINGS
    from engine.rules import TIMINGS, VARIANTS, variant_rules
    from engine.tiles import load_tileset

    name = _clean_name(name, "name", TOURNAMENT_NAME_MAX)
    try:
        load_tileset(tileset)
    except ValueError:
        raise ServiceError("unknown_tileset", fields={"tileset": ["unknown"]},
                           params={"tileset": str(tileset)}) from None
    if variant not in VARIANTS:
        raise ServiceError("bad_variant", fields={"variant": ["unknown"]},
                           params={"variant": str(variant)[:20], "choices": ", ".join(VARIANTS)})
    if timing not in TIMINGS:
        raise ServiceError("bad_timing", fields={"timing": ["unknown"]},
                           params={"timing": str(timing)[:20], "choices": ", ".join(TIMINGS)})
    if round_seconds is None:  # the timing's round time (180, 120 or 60 s)
        round_seconds = TIMINGS[timing]["round_seconds"]
    try:
        variant_rules(variant, ruleset=ruleset, timing=timing, **overrides)
    except (ValueError, TypeError) as error:
        raise ServiceError("bad_rules", str(error), fields={"ruleset": [str(error)]},
                           params={"ruleset": str(ruleset), "detail": str(error)}) from None
    if coordinates not in LABELLINGS:
        raise ServiceError("bad_coordinates", fields={"coordinates": ["unknown"]},
                           params={"choices": ", ".join(LABELLINGS)})
    if language not in Tournament.Language.values:
        raise ServiceError("bad_language", fields={"language": ["unknown"]},
                           params={"language": str(language)[:20], "choices": ", ".join(Tournament.Language.values)})
    if isinstance(round_seconds, bool) or not isinstance(round_seconds, int) or not 0 < round_seconds <= MAX_ROUND_SECONDS:
        raise ServiceError("bad_round_seconds", fields={"round_seconds": ["out of range"]},
                           params={"max": MAX_ROUND_SECONDS})
    if not isinstance(lexicon, str) or len(lexicon) > LEXICON_NAME_MAX:
        raise ServiceError("unknown_lexicon", fields={"lexicon": ["unknown"]}, params={"why": "unnamed"})
    try:
        words = get_lexicon(lexicon)
    except (LookupError, ValueError):
        raise ServiceError("unknown_lexicon", fields={"lexicon": ["unknown"]},
                           params={"lexicon": lexicon, "why": "unknown"}) from None
    if lexicon in BUILTIN_LEXICONS:
        Lexicon.objects.get_or_create(
            name=lexicon, defaults={"sha256": words.sha256, "word_count": len(words), "tileset": "english"}
        )
    _check_list_fits_set(lexicon, words, tileset)
    return {"name": name, "lexicon": lexicon, "lexicon_sha256": words.sha256, "tileset": tileset,
            "ruleset": ruleset, "rule_overrides": dict(overrides), "round_seconds": round_seconds,
            "coordinates": coordinates, "language": language, "variant": variant, "timing": timing}


def _new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def game_create(*, tournament: Tournament, seed: int | None = None, actor=None) -> Game:
    """A new game of the tournament with a full bag, an empty board and a join code for phones. Created by a
    head arbitrator of the tournament (services.roles.tournament_role; ``actor`` None: the server itself),
    who is recorded as its head (with no actor, the tournament's creator: services.roles.record_creator)."""
    if actor is not None:
        require_tournament_head(tournament.pk, actor)
    if seed is None:
        seed = secrets.randbits(62)
    if isinstance(seed, bool) or not isinstance(seed, int) or not -(2**63) <= seed < 2**63:
        raise ServiceError("bad_seed", fields={"seed": ["out of range"]})
    bag = sorted_letters(tournament.tiles.full_bag())
    for _ in range(10):
        try:
            with transaction.atomic():
                Tournament.objects.select_for_update().get(pk=tournament.pk)
                number = (tournament.games.aggregate(n=Max("number"))["n"] or 0) + 1
                game = Game.objects.create(
                    tournament=tournament, number=number, seed=seed, join_code=_new_join_code(), bag=bag
                )
                record_creator(game, actor)
            game_created(game.pk)
            return game
        except IntegrityError:  # join code already taken: draw another
            continue
    raise Conflict("join_code_exhausted")


def player_register(*, game: Game, name: str, table: int | None = None, series: str = "",  # noqa: PLR0913 - keyword-only: each argument is named at the call
                    by_phone: bool = False, actor=None, language: str = "", licence: str = "", club: str = "",
                    category: str = "", birth_date=None) -> tuple[Player, str]:
    """Register a player in the game; return (player, token). The token is shown once: only its hash is kept.

    ``by_phone``: the player joins with the game's code (``joined_by_phone``) and gets a table of their own:
    the one asked for when it is free (409 ``table_taken``), else the next free one (services.paper).

    A player arriving after some rounds closed scores 0 for them (§6.2): their results are written now.

    ``actor``: the arbitrator registering the player, who needs a role in the game (head or assistant); the
    log names them, or the player when they joined by phone (None: the server itself, e.g. a restore).

    ``language``: the language the player joined in, which their phone keeps ("": the tournament's).

    ``licence``, ``club``, ``series``, ``category``, ``birth_date``: the federation's identity, each optional,
    checked against the federation's lists (tournaments/federation.py); the category is derived from the date
    of birth when only that is given. A licence number is one player's in a tournament (409 ``licence_taken``).
    """
    if actor is not None and not by_phone:
        require_arbitrator(game.pk, actor)
    if language not in ("", *Tournament.Language.values):
        raise ServiceError("bad_language", fields={"language": ["unknown"]},
                           params={"language": str(language)[:20], "choices": ", ".join(Tournament.Language.values)})
    name = _clean_name(name, "name", PLAYER_NAME_MAX)
    if table is not None and (isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= 10_000):
        raise ServiceError("bad_table", fields={"table": ["out of range"]}, params={"why": "below_one"})
    if len(clean_name(series)) > SERIES_MAX:
        raise ServiceError("series_too_long", fields={"series": ["too long"]}, params={"field": "series", "max": SERIES_MAX})
    found = identity(licence=licence, club=club, series=series, category=category, birth_date=birth_date,
                     today=timezone.localdate())
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.status == Game.Status.OVER:
            raise Conflict("game_over")
        closed = list(game.rounds.filter(status=Round.Status.CLOSED).order_by("number"))
        if found["licence"]:
            holder = Player.objects.filter(tournament_id=game.tournament_id, licence=found["licence"]).first()
            if holder is not None:
                raise Conflict("licence_taken", fields={"licence": ["taken"]},
                               params={"licence": found["licence"], "name": holder.name})
        if by_phone:
            table = seat_for_phone(tournament_id=game.tournament_id, table=table)
        player = Player.objects.create(
            tournament_id=game.tournament_id,
            first_game=game,
            name=name,
            table=table,
            **found,
            token_hash=hash_token(token),
            arrival_round=closed[-1].number if closed else 0,
            joined_by_phone=by_phone,
            language=language,
        )
        Result.objects.bulk_create(
            Result(round=r, player=player, paid=0, outcome="zero", reason="absent",
                   message="the player arrived after this round")
            for r in closed
        )
        absent = Result.objects.filter(player=player, round__in=closed) if closed else ()
        log(game=game, action="player_register", player=player, actor=actor, by="player" if by_phone else "server",
            after={"name": name, "table": table, **_identity_logged(found), "arrival_round": player.arrival_round},
            rows=rows_of(results=absent))
        notify_game_changed(game.pk)
    return player, token


def _identity_logged(found: dict) -> dict:
    """The identity as the log keeps it: the series always (as before), the other fields when given."""
    logged = {"series": found["series"]}
    logged.update({key: (value.isoformat() if key == "birth_date" else value)
                   for key, value in found.items() if key != "series" and value})
    return logged


def player_token_reissue(*, game: Game, player: Player, actor=None) -> str:
    """A new token for a registered player (e.g. registered at the console, now moving to a phone).

    The earlier token stops working; only the new token's hash is kept, and the change is logged. Only the
    head arbitrator of the player's game does it (``roles.act_on_player``: the token plays every game of the
    player, so it is given through the one they play, never through another game of the tournament); the
    new token acts as the player (``actor`` None: the server itself).
    """
    game = act_on_player(require_head, game, player, actor)
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        updated = Player.objects.filter(pk=player.pk).update(token_hash=hash_token(token))
        if not updated:
            raise NotFound("unknown_player", fields={"player": ["unknown"]}, params={"why": "in_game"})
        log(game=game, action="player_token_reissue", actor=actor, player=player,
            after={"name": player.name, "table": player.table})
    return token


def player_join(*, join_code: str, name: str, table: int | None = None, language: str = "") -> tuple[Player, str]:
    """A player joins a game with its join code (case and spaces ignored), at the table they give when it is
    free, else at the next free table; ``language``: the one they joined in, kept by their phone."""
    code = "".join(str(join_code or "").split()).upper()
    game = Game.objects.filter(join_code=code).first() if code else None
    if game is None:
        raise NotFound("unknown_join_code", fields={"join_code": ["unknown"]})
    if game.archived_at is not None:
        raise Conflict("game_archived", fields={"join_code": ["archived"]})
    return player_register(game=game, name=name, table=table, by_phone=True, language=language)


def game_screen_key_renew(*, game: Game, actor=None) -> str:
    """A new key for the game's projector link: the earlier link answers 404 from now on (a link that left the
    room). Logged; the key itself is not written in the log. Only the game's head arbitrator does it (a new
    key blanks the hall's screen until it is opened again; ``actor`` None: the server itself)."""
    if actor is not None:
        require_head(game.pk, actor)
    key = new_screen_key()
    with transaction.atomic():
        if not Game.objects.filter(pk=game.pk).update(screen_key=key):
            raise NotFound("not_found", params={"game": game.pk, "why": "game"})
        log(game=game, action="screen_key_renew", actor=actor)
    game.screen_key = key
    return key


def lexicon_import(*, name: str, words: Iterable[str], tileset: str = "english") -> tuple[Lexicon, list[str]]:
    """Import a club's word list under ``name``; return (the stored lexicon, the entries rejected)."""
    from engine.lexicon import import_lexicon
    from engine.tiles import load_tileset

    if not isinstance(name, str) or not 0 < len(name) <= LEXICON_NAME_MAX:
        raise ServiceError("bad_lexicon_name", fields={"name": ["bad length"]}, params={"max": LEXICON_NAME_MAX})
    if name in BUILTIN_LEXICONS:
        raise Conflict("lexicon_builtin", fields={"name": ["built in"]},
                       params={"name": name})
    try:
        tiles = load_tileset(tileset)
    except ValueError:
        raise ServiceError("unknown_tileset", fields={"tileset": ["unknown"]},
                           params={"tileset": str(tileset)}) from None
    if isinstance(words, str):
        words = words.split()
    try:
        result = import_lexicon(name, words, tiles, cache_dir=cache_dir())
    except ValueError as error:
        raise ServiceError("bad_lexicon", str(error), fields={"words": [str(error)]},
                           params={"detail": str(error)}) from None
    lexicon = result.lexicon
    held = Lexicon.objects.filter(name=name).values_list("sha256", flat=True).first()
    if held is not None and held != lexicon.sha256 and Tournament.objects.filter(lexicon=name).exists():
        # Another arbitrator's tournament judges with these words: replacing them would change its results.
        raise Conflict("lexicon_in_use", fields={"name": ["in use"]}, params={"name": name})
    accepted = list(lexicon.words())
    row, _ = Lexicon.objects.update_or_create(
        name=name,
        defaults={"sha256": lexicon.sha256, "tileset": tileset, "word_count": len(lexicon),
                  "words": "\n".join(accepted), "imported": True},
    )
    remember(lexicon)
    return row, list(result.rejected)
