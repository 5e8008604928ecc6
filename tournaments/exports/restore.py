"""Play a game record (``record.export_record``) back into a tournament through the services.

Every step goes through the same services as a live game, with the recorded times: players register
when they arrived, each rack is drawn again (a recorded random draw is drawn again from the game's seed,
which gives the same rack and the same rejected draws; if it does not, the recorded rack is typed
instead), slips are handed in, the round closes, a master the arbitrator picked is picked again, and the
corrections are made again with their reasons; the slips that came late are kept on record again at their
times, and those the arbitrator admitted are admitted again. The whole restore is one transaction: any
refusal leaves nothing behind.

Players are known by their id in the record, never by their name: two players of one name stay two. A
player restored once keeps where they came from (``Player.origin``: the record's signer, tournament and
id), so that a tournament's later games restored into the same tournament find them again.

The record's seal is checked first (tournaments/seal.py): a seal that does not match the record (edited
since it was written) is refused, 400 ``bad_seal``; a record sealed by this server or a trusted one is
restored as such, one without a seal or sealed by an unknown key is restored and the game says so
(``Game.record_seal``). The game is marked as restored; its roles are given back to the arbitrators who
have an account here, and the record's log is kept whole in the restore's own log entry.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from tournaments import seal, services
from tournaments.errors import Conflict, ServiceError
from tournaments.federation import series_code
from tournaments.limits import SERIES_MAX
from tournaments.models import Game, GameArbitrator, LateSlip, Player, Round, Slip, Tournament
from tournaments.names import clean_name
from tournaments.selectors import RECORD_IDENTITY
from tournaments.services import log

from . import incidents
from .record import RECORD_FORMAT, RECORD_VERSION, SEAL_KEY

UNSIGNED = "unsigned"
SEED_MAX = 2**63 - 1

SETTINGS_THAT_JUDGE = ("lexicon", "lexicon_sha256", "tileset", "ruleset", "rule_overrides", "coordinates", "variant")


def _when(text: str | None) -> datetime | None:
    """A recorded time; one written without a zone is taken as UTC (incidents.when: within its years)."""
    return incidents.when(text)


def _invalid(message: str, field: str = "record") -> ServiceError:
    return ServiceError("bad_record", message, fields={field: [message]})


def _unstorable(text: str) -> str | None:
    """Why a text of the record cannot be stored: a NUL (no PostgreSQL text holds one) or a lone surrogate
    (no UTF-8 text holds one)."""
    if "\x00" in text:
        return "a NUL character"
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        return "a lone surrogate"
    return None


def _check_texts(record) -> None:
    """Every key and text of the record can be stored (400 bad_record naming where it is, else the database
    would fail on it halfway)."""
    stack = [(record, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                why = _unstorable(key) if isinstance(key, str) else None
                if why:
                    raise _invalid(f"{where or 'the record'}: a key holds {why}",
                                   where.split(".")[0].split("[")[0] or "record")
                stack.append((item, f"{where}.{key}" if where else str(key)))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{index}]") for index, item in enumerate(value))
        elif isinstance(value, str):
            why = _unstorable(value)
            if why:
                raise _invalid(f"{where} holds {why}", where.split(".")[0].split("[")[0] or "record")


def _check_seed(record: dict) -> None:
    seed = record["game"].get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX):
        raise ServiceError("bad_seed", fields={"seed": ["out of range"]}, params={"why": "record", "max": SEED_MAX})


def check_record(record) -> None:
    """Refuse what is not a game record this version can play back (400 bad_record, bad_seed)."""
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
    if any(isinstance(key, bool) or not isinstance(key, int | str) for key in keys):
        raise _invalid("a player's 'key' is a number or a text", "players")
    listed = keys
    keys = set(listed)  # looked up for every slip (in the list, 20,000 players' slips took 2 s to check)
    if len(listed) != len(record["players"]) or len(keys) != len(listed):
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
        for name in ("drawn_at", "started_at", "deadline", "closed_at"):
            try:
                _when(round.get(name))
            except (TypeError, ValueError) as error:
                raise _invalid(f"round {round['number']}: {name}: {error}", "rounds") from None
        late = round.get("late_slips", [])
        if not isinstance(late, list) or any(not isinstance(slip, dict) or slip.get("player") not in keys
                                             or not slip.get("received_at") for slip in late):
            raise _invalid(f"round {round['number']}: every late slip names a player and when it came", "rounds")
    if not isinstance(record.get("arbitrators", []), list) or not isinstance(record.get("log", []), list):
        raise _invalid("'arbitrators' and 'log' are lists", "record")
    _check_texts(record)
    _check_seed(record)


def check_seal(record: dict) -> tuple[str, str]:
    """Whose seal the record bears: (``this_server``/``trusted``/``unknown_key``/``unsigned``, the signer's
    key). A seal that does not match the record: 400 ``bad_seal``, nothing restored."""
    mark = record.get(SEAL_KEY)
    if mark is None:
        return UNSIGNED, ""
    body = {key: value for key, value in record.items() if key != SEAL_KEY}
    try:
        found = seal.verify(body, mark)
    except (seal.BadSeal, ValueError) as error:  # ValueError: what canonical JSON cannot write
        raise ServiceError("bad_seal", fields={SEAL_KEY: ["does not match"]}, params={"detail": str(error)}) from None
    return found, str(mark.get("key", ""))

def _tournament_settings(tournament: Tournament) -> dict:
    return {
        "lexicon": tournament.lexicon,
        "lexicon_sha256": tournament.lexicon_sha256,
        "tileset": tournament.tileset,
        "ruleset": tournament.ruleset,
        "rule_overrides": dict(tournament.rule_overrides),
        "coordinates": tournament.coordinates,
        "round_seconds": tournament.round_seconds,
        "variant": tournament.variant,
        "timing": tournament.timing,
    }


def _check_settings(tournament: Tournament, wanted: dict) -> None:
    have = _tournament_settings(tournament)
    differ = {
        name: [f"the record has {wanted.get(name)!r}, the tournament {have[name]!r}"]
        for name in SETTINGS_THAT_JUDGE
        if name in wanted and (wanted.get(name) or ({} if name == "rule_overrides" else "")) != have[name]
    }
    if differ:
        raise Conflict("settings_mismatch", fields=differ, params={"settings": ", ".join(sorted(differ))})


def _new_tournament(settings: dict, actor) -> Tournament:
    return services.tournament_create(
        name=settings.get("name") or "Restored tournament",
        lexicon=settings.get("lexicon", "TWL06"),
        tileset=settings.get("tileset", "english"),
        ruleset=settings.get("ruleset", "fisf"),
        round_seconds=settings.get("round_seconds", 180),
        coordinates=settings.get("coordinates", "rows-letters"),
        variant=settings.get("variant", "duplicate"),
        timing=settings.get("timing", "normal"),
        created_by=actor,
        **(settings.get("rule_overrides") or {}),
    )


def _origin(record: dict, signer: str, key) -> str:
    """Who a player of the record is, wherever it is restored: its signer, tournament and id ('' when the
    record does not name its tournament)."""
    tournament = record["tournament"].get("id")
    if tournament is None:
        return ""
    return f"{signer or UNSIGNED}/{tournament}/{key}"[:120]


class _Playback:
    def __init__(self, record: dict, tournament: Tournament, actor, signer: str = "", found: str = UNSIGNED,
                 progress: Callable[[int, int], None] | None = None):
        self.record = record
        self.actor = actor
        self.tournament = tournament
        self.signer = signer
        self.progress = progress
        self.game = services.game_create(tournament=tournament, seed=record["game"].get("seed"), actor=actor)
        existing = {player.origin: player for player in Player.objects.filter(tournament=tournament).exclude(origin="")}
        # A record this server sealed, played back into the tournament it came from: its players are these.
        here = {}
        if found == seal.THIS_SERVER and record["tournament"].get("id") == tournament.pk:
            keys = [entry["key"] for entry in record["players"] if isinstance(entry["key"], int)]
            here = {player.pk: player for player in Player.objects.filter(tournament=tournament, pk__in=keys)}
        self.players: dict = {}
        self.waiting = []
        for entry in record["players"]:
            origin = _origin(record, signer, entry["key"])
            if entry["key"] in here:
                self.players[entry["key"]] = here[entry["key"]]
            elif origin and origin in existing:
                self.players[entry["key"]] = existing[origin]
            else:
                self.waiting.append(entry)
        self.last_closed = 0
        self.rounds_done = 0
        self._report()

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(len(self.players), self.rounds_done)

    def _refresh(self) -> None:
        self.game = Game.objects.get(pk=self.game.pk)

    def register_arrived(self) -> None:
        still = []
        for entry in self.waiting:
            if (entry.get("arrival_round") or 0) <= self.last_closed:
                series = entry.get("series") or ""
                try:
                    series_code(series)
                except ServiceError:  # a record from before the federation's list: its series kept as written
                    listed = ""
                else:
                    listed = series
                player, _ = services.player_register(
                    game=self.game,
                    name=entry["name"],
                    table=entry.get("table"),
                    series=listed,
                    **{key: entry[key] for key in RECORD_IDENTITY if isinstance(entry.get(key), str) and entry[key]},
                )
                kept = {"origin": _origin(self.record, self.signer, entry["key"])}
                if series and not listed:
                    kept["series"] = clean_name(series)[:SERIES_MAX]
                if any(kept.values()):
                    Player.objects.filter(pk=player.pk).update(**{key: value for key, value in kept.items() if value})
                self.players[entry["key"]] = player
                if len(self.players) % 500 == 0:
                    self._report()
            else:
                still.append(entry)
        self.waiting = still
        self._report()

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

    def late(self, round: Round, slip: dict) -> LateSlip:
        """A slip that came after the end call, kept on record again as it came: by phone through the same
        service (refused as late), on paper as the arbitrator entered it."""
        player, arrived = self.players[slip["player"]], _when(slip["received_at"])
        if slip.get("entered"):
            return services.slip_enter_late(round=round, player=player, word=slip["word"], ref=slip.get("ref") or "",
                                            score=slip.get("claimed"), actor=self.actor, received_at=arrived)
        key = slip.get("key") or f"restored-late:{slip['player']}:{slip['received_at']}"
        sent = _when(slip.get("sent_at"))  # the phone's word, checked again as when it came
        try:
            services.slip_submit(round=round, player=player, word=slip["word"], ref=slip.get("ref") or "",
                                 score=slip.get("claimed"), key=key, now=arrived, seq=slip.get("seq"),
                                 sent_ms=None if sent is None else int(sent.timestamp() * 1000))
        except Conflict as refused:
            if refused.code != "round_closed":
                raise
        else:
            raise _invalid(f"round {round.number}: a late slip came in time", "rounds")
        return LateSlip.objects.get(round=round, player=player, key=key)

    def after_close(self, round: Round, entry: dict, corrections: list[dict]) -> None:
        """What happened once the round was closed, in order of time: late slips arriving, the arbitrator's
        admissions of them and corrections."""
        closed_at = _when(entry.get("closed_at"))
        events = []
        for correction in corrections:
            events.append((_when(correction.get("at")) or closed_at, 2, len(events), "correct", correction))
        for slip in entry.get("late_slips") or []:
            arrived = _when(slip["received_at"])
            events.append((arrived, 0, len(events), "late", slip))
            admitted = slip.get("admitted")
            if isinstance(admitted, dict):
                events.append((max(_when(admitted.get("at")) or arrived, arrived), 1, len(events), "admit", slip))
        kept: dict[int, LateSlip] = {}
        for _at, _order, _index, kind, item in sorted(events, key=lambda event: event[:3]):
            if kind == "correct":
                self.correct(round, item)
            elif kind == "late":
                kept[id(item)] = self.late(round, item)
            else:
                services.late_slip_admit(late=kept[id(item)], reason=item["admitted"].get("reason") or "restored",
                                         actor=self.actor)

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
        self.after_close(round, entry, after_close)

    def roles(self) -> None:
        """The record's roles, for the arbitrators who have an account here (staff), logged. The arbitrator
        who restores the game is its head too when others have roles in it (else nobody here might run it)."""
        users = get_user_model().objects
        given = []
        for row in self.record.get("arbitrators") or []:
            if not isinstance(row, dict) or row.get("role") not in GameArbitrator.Role.values:
                continue
            user = users.filter(username=str(row.get("user") or ""), is_staff=True, is_active=True).first()
            if user is not None:
                GameArbitrator.objects.update_or_create(game=self.game, user=user, defaults={"role": row["role"]})
                given.append({"user": user.get_username(), "role": row["role"]})
        actor = self.actor if getattr(self.actor, "is_staff", False) else None
        if given and actor is not None and not any(row["user"] == actor.get_username() for row in given):
            GameArbitrator.objects.update_or_create(game=self.game, user=actor,
                                                    defaults={"role": GameArbitrator.Role.HEAD})
            given.append({"user": actor.get_username(), "role": GameArbitrator.Role.HEAD})
        if given:
            log(game=self.game, action="arbitrator_role", actor=self.actor, before={"arbitrators": []},
                after={"arbitrators": given, "restored": True})

    def finish(self, found: str) -> Game:
        self._refresh()
        if self.game.status != Game.Status.OVER:
            self.register_arrived()
        if self.record["game"].get("status") == Game.Status.OVER and self.game.status != Game.Status.OVER:
            services.game_end(game=self.game, actor=self.actor)
        self.roles()
        recorded = self.record["game"]
        log(game=self.game, action="game_restore", actor=self.actor,
            after={"seal": found, "signer": self.signer, "exported_at": self.record.get("exported_at"),
                   "from": {"tournament": self.record["tournament"].get("id"), "game": recorded.get("id"),
                            "number": recorded.get("number")},
                   "log": self.record.get("log") or []})
        Game.objects.filter(pk=self.game.pk).update(restored_at=timezone.now(), record_seal=found,
                                                    record_signer=self.signer[:64])
        self._refresh()
        return self.game


class _Redraw(Exception):
    """The random draw gave another rack than the record's: undo it and type the recorded rack."""


def restore_record(*, record: dict, tournament: Tournament | None = None, actor=None,
                   progress: Callable[[int, int], None] | None = None) -> Game:
    """Play ``record`` back as a new game of ``tournament`` (or of a new tournament made with the record's
    settings) and return the game. 400 ``bad_record`` for a malformed record (``bad_seed``), ``bad_seal``
    for a seal that does not match it, 409 ``settings_mismatch`` when the tournament judges differently
    (lexicon and its checksum, tile set, rules, coordinates). ``progress(players, rounds)`` is told how
    far the playback is."""
    check_record(record)
    found, signer = check_seal(record)
    try:
        return _restore(record, tournament, actor, found, signer, progress)
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        # Whatever the record holds that the checks above let through, it is the record that is wrong.
        raise _invalid(f"the record cannot be played back: {type(error).__name__}: {error}") from None


def _restore(record: dict, tournament: Tournament | None, actor, found: str, signer: str, progress) -> Game:
    settings = record["tournament"]
    with transaction.atomic():
        if tournament is None:
            tournament = _new_tournament(settings, actor)
        _check_settings(tournament, settings)
        playback = _Playback(record, tournament, actor, signer, found, progress)
        for entry in record["rounds"]:
            if playback.game.status == Game.Status.OVER:
                break
            playback.play(entry)
            playback._refresh()
            playback.rounds_done += 1
            playback._report()
        return playback.finish(found)
