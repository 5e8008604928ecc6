"""Play a game record (``record.export_record``) back into a tournament through the services.

Every step goes through the same services as a live game, with the recorded times: players register
when they arrived, each rack is drawn again (a recorded random draw is drawn again from the game's seed,
which gives the same rack and the same rejected draws; if it does not, the recorded rack is typed
instead), slips are handed in, the round closes, a master the arbitrator picked is picked again, and the
corrections are made again with their reasons. The whole restore is one transaction: any refusal leaves
nothing behind.

Players already in the target tournament under the same name are the same people (a tournament's
later games are restored into it that way); the others are registered.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction

from tournaments import services
from tournaments.errors import Conflict, ServiceError
from tournaments.models import Game, Player, Round, Slip, Tournament
from tournaments.names import clean_name

from . import incidents
from .record import RECORD_FORMAT, RECORD_VERSION

SETTINGS_THAT_JUDGE = ("lexicon", "lexicon_sha256", "tileset", "ruleset", "rule_overrides", "coordinates")


def _when(text: str | None) -> datetime | None:
    """A recorded time; one written without a zone is taken as UTC."""
    if not text:
        return None
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _invalid(message: str, field: str = "record") -> ServiceError:
    return ServiceError("bad_record", message, fields={field: [message]})


def check_record(record) -> None:
    """Refuse what is not a game record this version can play back (400 bad_record)."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise _invalid(f"not a game record: 'format' must be {RECORD_FORMAT!r}", "format")
    if record.get("version") != RECORD_VERSION:
        raise _invalid(
            f"unknown record version {record.get('version')!r}; this server reads {RECORD_VERSION}", "version"
        )
    for key, kind in (("tournament", dict), ("game", dict), ("players", list), ("rounds", list)):
        if not isinstance(record.get(key), kind):
            raise _invalid(f"'{key}' is missing or not a{'n object' if kind is dict else ' list'}", key)
    keys = [player.get("key") for player in record["players"] if isinstance(player, dict)]
    if len(keys) != len(record["players"]) or len(set(keys)) != len(keys):
        raise _invalid("every player needs a distinct 'key'", "players")
    for round in record["rounds"]:
        if not isinstance(round, dict) or not isinstance(round.get("number"), int) or not round.get("rack"):
            raise _invalid("every round needs a 'number' and a 'rack'", "rounds")
        slips, corrections = round.get("slips", []), round.get("corrections", [])
        if not isinstance(slips, list) or not isinstance(corrections, list):
            raise _invalid(f"round {round['number']}: 'slips' and 'corrections' are lists", "rounds")
        for slip in slips + corrections:
            if not isinstance(slip, dict) or slip.get("player") not in keys:
                raise _invalid(f"round {round['number']}: a slip names an unknown player", "rounds")


def _tournament_settings(tournament: Tournament) -> dict:
    return {
        "lexicon": tournament.lexicon,
        "lexicon_sha256": tournament.lexicon_sha256,
        "tileset": tournament.tileset,
        "ruleset": tournament.ruleset,
        "rule_overrides": dict(tournament.rule_overrides),
        "coordinates": tournament.coordinates,
        "round_seconds": tournament.round_seconds,
    }


def _check_settings(tournament: Tournament, wanted: dict) -> None:
    have = _tournament_settings(tournament)
    differ = {
        name: [f"the record has {wanted.get(name)!r}, the tournament {have[name]!r}"]
        for name in SETTINGS_THAT_JUDGE
        if name in wanted and (wanted.get(name) or ({} if name == "rule_overrides" else "")) != have[name]
    }
    if differ:
        raise Conflict(
            "settings_mismatch",
            "the tournament's settings differ from the record's: " + ", ".join(sorted(differ)),
            fields=differ, params={"settings": ", ".join(sorted(differ))},
        )


def _new_tournament(settings: dict, actor) -> Tournament:
    return services.tournament_create(
        name=settings.get("name") or "Restored tournament",
        lexicon=settings.get("lexicon", "TWL06"),
        tileset=settings.get("tileset", "english"),
        ruleset=settings.get("ruleset", "fisf"),
        round_seconds=settings.get("round_seconds", 180),
        coordinates=settings.get("coordinates", "rows-letters"),
        created_by=actor,
        **(settings.get("rule_overrides") or {}),
    )


class _Playback:
    def __init__(self, record: dict, tournament: Tournament, actor):
        self.record = record
        self.actor = actor
        self.tournament = tournament
        self.game = services.game_create(tournament=tournament, seed=record["game"].get("seed"), actor=actor)
        existing = {}
        for player in Player.objects.filter(tournament=tournament).order_by("id"):
            existing.setdefault(player.name, player)
        self.players: dict = {}
        self.waiting = []
        for entry in record["players"]:
            stored = clean_name(entry["name"])  # as the services store it
            if stored in existing:
                self.players[entry["key"]] = existing[stored]
            else:
                self.waiting.append(entry)
        self.last_closed = 0

    def _refresh(self) -> None:
        self.game = Game.objects.get(pk=self.game.pk)

    def register_arrived(self) -> None:
        still = []
        for entry in self.waiting:
            if (entry.get("arrival_round") or 0) <= self.last_closed:
                player, _ = services.player_register(
                    game=self.game,
                    name=entry["name"],
                    table=entry.get("table"),
                    series=entry.get("series") or "",
                )
                self.players[entry["key"]] = player
            else:
                still.append(entry)
        self.waiting = still

    def draw(self, entry: dict) -> Round:
        self._refresh()
        if not entry.get("typed"):
            try:
                with transaction.atomic():
                    round = services.round_draw(game=self.game, actor=self.actor)
                    if round.rack != entry["rack"] or list(round.rejected) != list(
                        entry.get("rejected") or []
                    ):
                        raise _Redraw
                    return round
            except _Redraw:
                self._refresh()
        after_rejection = not entry.get("kept") and bool(self.game.kept)
        return services.round_draw(
            game=self.game, rack=entry["rack"], actor=self.actor, after_rejection=after_rejection
        )

    def hand_in(self, round: Round, slip: dict) -> None:
        services.slip_submit(
            round=round,
            player=self.players[slip["player"]],
            word=slip["word"],
            ref=slip.get("ref") or "",
            score=slip.get("claimed"),
            key=slip.get("key") or f"restored:{slip['player']}",
            now=_when(slip.get("received_at")),
            entered_by=self.actor if slip.get("entered") else None,
        )

    def correct(self, round: Round, correction: dict) -> None:
        player = self.players[correction["player"]]
        slip = Slip.objects.filter(round=round, player=player, current=True).first()
        if slip is None:
            raise _invalid(f"round {round.number}: a correction names a player without a slip", "rounds")
        services.slip_correct(
            slip=slip,
            reason=correction.get("reason") or "restored correction",
            actor=self.actor,
            word=correction["word"],
            ref=correction.get("ref") or "",
            score=correction.get("claimed"),
        )

    def play(self, entry: dict) -> None:
        self.register_arrived()
        round = incidents.fix_racks(self.draw(incidents.as_first_drawn(entry)), entry, self.actor)
        closed_at = _when(entry.get("closed_at"))
        corrections = entry.get("corrections") or []
        before_close = [c for c in corrections if closed_at and c.get("at") and _when(c["at"]) < closed_at]
        after_close = [c for c in corrections if c not in before_close]
        if entry.get("started_at"):
            round = services.round_start(round=round, actor=self.actor, now=_when(entry["started_at"]))
            incidents.replay(round, entry, self.hand_in, self.actor)  # the slips, the clock paused or extended
            for correction in before_close:
                self.correct(round, correction)
        if incidents.cancel(round, entry, self.actor) or closed_at is None:
            return
        services.round_close(round=round, actor=self.actor, now=closed_at)
        round.refresh_from_db()
        if round.status != Round.Status.CLOSED:
            return
        self.last_closed = round.number
        master = entry.get("master")
        if (
            master
            and round.master
            and (round.master["word"], round.master["ref"]) != (master["word"], master["ref"])
        ):
            services.round_choose_master(
                round=round, word=master["word"], ref=master["ref"], actor=self.actor
            )
        for correction in after_close:
            self.correct(round, correction)

    def finish(self) -> Game:
        self._refresh()
        if self.game.status != Game.Status.OVER:
            self.register_arrived()
        if self.record["game"].get("status") == Game.Status.OVER and self.game.status != Game.Status.OVER:
            services.game_end(game=self.game, actor=self.actor)
        self._refresh()
        return self.game


class _Redraw(Exception):
    """The random draw gave another rack than the record's: undo it and type the recorded rack."""


def restore_record(*, record: dict, tournament: Tournament | None = None, actor=None) -> Game:
    """Play ``record`` back as a new game of ``tournament`` (or of a new tournament made with the record's
    settings) and return the game. 400 ``bad_record`` for a malformed record, 409 ``settings_mismatch``
    when the tournament judges differently (lexicon and its checksum, tile set, rules, coordinates)."""
    check_record(record)
    try:
        return _restore(record, tournament, actor)
    except (KeyError, TypeError, ValueError) as error:
        # Whatever the record holds that the checks above let through, it is the record that is wrong.
        raise _invalid(f"the record cannot be played back: {type(error).__name__}: {error}") from None


def _restore(record: dict, tournament: Tournament | None, actor) -> Game:
    settings = record["tournament"]
    with transaction.atomic():
        if tournament is None:
            tournament = _new_tournament(settings, actor)
        _check_settings(tournament, settings)
        playback = _Playback(record, tournament, actor)
        for entry in record["rounds"]:
            if playback.game.status == Game.Status.OVER:
                break
            playback.play(entry)
            playback._refresh()
        return playback.finish()
