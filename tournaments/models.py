"""What a duplicate event stores: tournaments, games, players, rounds, slips, results and the log.

The engine decides the game; these rows keep what happened. Boards are 15 strings (row A first,
``.`` empty, lowercase a blank), bags and racks are strings of letters with ``?`` for a blank.
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.limits import MESSAGE_MAX


class Lexicon(models.Model):
    """A word list a tournament can use: the built-in ones and those a club imports."""

    name = models.CharField(max_length=40, unique=True)
    sha256 = models.CharField(max_length=64)
    tileset = models.CharField(max_length=20, default="english")
    word_count = models.PositiveIntegerField(default=0)
    # Imported lists keep their words so that any process (web, worker) can rebuild the word graph.
    words = models.TextField(blank=True, default="")
    imported = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Tournament(models.Model):
    class Coordinates(models.TextChoices):
        ROWS_LETTERS = "rows-letters", _("Rows A-O, columns 1-15")
        ROWS_NUMBERS = "rows-numbers", _("Rows 1-15, columns A-O")

    class Ruleset(models.TextChoices):
        FISF = "fisf", _("FISF competition rules")
        CLASSIC = "classic", _("Booklet rules")

    class Language(models.TextChoices):
        ENGLISH = "en", _("English")
        FRENCH = "fr", "Français"

    # The variants and timings of engine.rules (VARIANTS, TIMINGS; docs/rules.md section 7).
    class Variant(models.TextChoices):
        DUPLICATE = "duplicate", _("Classic duplicate")
        JOKER = "joker", _("Joker")
        EXPLOSIVE = "explosive", _("Explosive")
        SEVEN_OF_EIGHT = "seven_of_eight", _("7 out of 8")
        SEVEN_AND_EIGHT = "seven_and_eight", _("7 and 8")
        TOPPING = "topping", _("Topping")

    class Timing(models.TextChoices):
        NORMAL = "normal", _("Normal")
        SEMI_RAPID = "semi_rapid", _("Semi-rapid")
        BLITZ = "blitz", _("Blitz")

    name = models.CharField(max_length=200)
    lexicon = models.CharField(max_length=40, default="TWL06")
    lexicon_sha256 = models.CharField(max_length=64, blank=True, default="")
    tileset = models.CharField(max_length=20, default="english")
    ruleset = models.CharField(max_length=20, choices=Ruleset.choices, default=Ruleset.FISF)
    # Fields of engine.rules.Rules that differ from the preset (solo threshold and bonus, warning cost...).
    rule_overrides = models.JSONField(default=dict, blank=True)
    # The variant played and its timing: the rules are engine.rules.variant_rules(variant, ruleset=, timing=,
    # **rule_overrides); the tournament's round_seconds is the round's time (the timing's by default).
    variant = models.CharField(max_length=20, choices=Variant.choices, default=Variant.DUPLICATE)
    timing = models.CharField(max_length=20, choices=Timing.choices, default=Timing.NORMAL)
    round_seconds = models.PositiveIntegerField(default=180)
    # The language of its sheets and projector, and its phones' first language (each phone can switch).
    language = models.CharField(max_length=5, choices=Language.choices, default=Language.ENGLISH)
    coordinates = models.CharField(max_length=20, choices=Coordinates.choices, default=Coordinates.ROWS_LETTERS)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(round_seconds__gt=0), name="tournament_round_seconds_positive"),
            models.CheckConstraint(
                condition=Q(coordinates__in=["rows-letters", "rows-numbers"]), name="tournament_coordinates_known"
            ),
            models.CheckConstraint(condition=Q(ruleset__in=["fisf", "classic"]), name="tournament_ruleset_known"),
            models.CheckConstraint(condition=Q(language__in=["en", "fr"]), name="tournament_language_known"),
            models.CheckConstraint(
                condition=Q(variant__in=["duplicate", "joker", "explosive", "seven_of_eight", "seven_and_eight",
                                         "topping"]), name="tournament_variant_known"),
            models.CheckConstraint(condition=Q(timing__in=["normal", "semi_rapid", "blitz"]),
                                   name="tournament_timing_known"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def rules(self):
        from engine.rules import variant_rules

        return variant_rules(self.variant, ruleset=self.ruleset, timing=self.timing,
                             **{"round_seconds": self.round_seconds, **self.rule_overrides})

    @property
    def tiles(self):
        from engine.tiles import load_tileset

        return load_tileset(self.tileset)


def empty_board() -> list[str]:
    return ["." * 15] * 15


def new_screen_key() -> str:
    """The projector's link key: 128 random bits, so that no game's projector (which shows the join code) can
    be found by trying addresses. Only the console gives it out."""
    return secrets.token_urlsafe(16)


def hash_token(token: str) -> str:
    """How a player token is stored: its SHA-256, unsalted, on purpose.

    Player tokens are ``secrets.token_urlsafe(32)``: 256 random bits, never chosen by a person. Salting or a
    slow hash protects guessable secrets (passwords) against dictionaries; nothing can be guessed here, so
    a plain SHA-256 is as strong as the token itself while letting every slip find its player by one indexed
    lookup (tests/tournaments/test_player_tokens.py checks the tokens' length and randomness)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Game(models.Model):
    class Status(models.TextChoices):
        READY = "ready", _("Ready (no round drawn yet)")
        PLAYING = "playing", _("Playing")
        OVER = "over", _("Over")

    class Training(models.TextChoices):
        CLOSED = "closed", _("Closed to training")
        EVERYONE = "everyone", _("Open to everyone")
        MEMBERS = "members", _("Open to club members")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField()  # order of the game in its tournament, from 1
    seed = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.READY)
    join_code = models.CharField(max_length=12, unique=True)
    screen_key = models.CharField(max_length=32, unique=True, default=new_screen_key, editable=False)
    bag = models.CharField(max_length=200)  # the letters still in the bag, sorted, '?' a blank
    kept = models.CharField(max_length=20, blank=True, default="")  # unplayed letters for the next draw
    board = models.JSONField(default=empty_board)  # after every closed round's master
    draws = models.PositiveIntegerField(default=0)  # random draws so far: each uses its own seeded generator
    # Physical draws typed and rejected by the vowel/consonant rule, waiting for the round's accepted rack.
    pending_rejected = models.JSONField(default=list, blank=True)
    end_reason = models.CharField(max_length=20, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    # Who may replay the game alone once it is over (/games/<id>/train): nobody, anyone, the club's members
    # (tournaments.training_selectors.is_member).
    training = models.CharField(max_length=10, choices=Training.choices, default=Training.CLOSED)
    # A game played back from a record (tournaments/exports/restore.py): when, and whose seal the record bore
    # (``this_server``, ``trusted``, ``unknown_key``: a sound seal by a key this server does not know, or
    # ``unsigned``), with the signer's public key. Empty for a game played here.
    restored_at = models.DateTimeField(null=True, blank=True)
    record_seal = models.CharField(max_length=12, blank=True, default="")
    record_signer = models.CharField(max_length=64, blank=True, default="")
    # When an arbitrator put the game away (services/setup.py game_archive): an archived game is no longer
    # listed on the home page nor the phones' list of games in play; the console, its sheets and exports
    # still reach it. None: not archived.
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="game_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="game_number_positive"),
            models.CheckConstraint(condition=Q(status__in=["ready", "playing", "over"]), name="game_status_known"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} — game {self.number}"


class PlayerQuerySet(models.QuerySet):
    def in_game(self, game: Game) -> PlayerQuerySet:
        """Every player taking part in ``game``: registered in it or in an earlier game of its tournament."""
        return self.filter(tournament_id=game.tournament_id, first_game__number__lte=game.number).order_by("id")


class Player(models.Model):
    """A player of a tournament: plays the game they registered in and the tournament's later games."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="players")
    first_game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="arrivals")
    name = models.CharField(max_length=100)
    table = models.PositiveIntegerField(null=True, blank=True)
    series = models.CharField(max_length=20, blank=True, default="")  # a series of the federation's list (tournaments/federation.py)
    # The federation's identity, every field optional (tournaments/federation.py reads and checks them): the
    # licence number (one player per licence in a tournament), the club, the age category (as given, or
    # derived from the date of birth on the season's reference date) and the date of birth.
    licence = models.CharField(max_length=20, blank=True, default="")
    club = models.CharField(max_length=100, blank=True, default="")
    category = models.CharField(max_length=20, blank=True, default="")
    birth_date = models.DateField(null=True, blank=True)
    token_hash = models.CharField(max_length=64, unique=True)  # sha256 of the bearer token, never the token
    # Rounds of first_game already closed when the player arrived: scored 0 (§6.2).
    arrival_round = models.PositiveIntegerField(default=0)
    # Joined with the game's code on a phone: their slips arrive by themselves. Players registered by the
    # arbitrator may hand in paper slips, which keep a round's standings provisional until entered.
    joined_by_phone = models.BooleanField(default=False)
    # The language the player joined in (the join page's, or their phone's choice): their phone's pages and
    # feeds speak it. "" (registered by the arbitrator, or joined without saying): the tournament's.
    language = models.CharField(max_length=8, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    # A player restored from a game record: who they were there (the record's signer, tournament and player
    # id). A later game of the same tournament restored here finds them by it, never by their name.
    origin = models.CharField(max_length=120, blank=True, default="")

    objects = PlayerQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(table__isnull=True) | Q(table__gte=1), name="player_table_positive"),
            models.UniqueConstraint(fields=["tournament", "origin"], condition=~Q(origin=""),
                                    name="player_origin_unique"),
            models.UniqueConstraint(fields=["tournament", "licence"], condition=~Q(licence=""),
                                    name="player_licence_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class RoundQuerySet(models.QuerySet):
    """What every reader asks of rounds: those that count (a cancelled round is replayed under its number
    and counts for nothing), the current one, the one in play."""

    def counting(self) -> RoundQuerySet:
        return self.exclude(status=Round.Status.CANCELLED)

    def current(self) -> RoundQuerySet:
        """The rounds that count, the newest first: ``.first()`` is the current round."""
        return self.counting().order_by("-number")

    def in_play(self) -> RoundQuerySet:
        """Drawn or open: at most one per game."""
        return self.filter(status__in=[Round.Status.DRAWN, Round.Status.OPEN])


class Round(models.Model):
    class Status(models.TextChoices):
        DRAWN = "drawn", _("Drawn")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")
        CANCELLED = "cancelled", _("Cancelled (no play possible)")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAWN)
    rack = models.CharField(max_length=20)  # display order: kept letters, then the drawn ones
    kept = models.CharField(max_length=20, blank=True, default="")
    drawn = models.CharField(max_length=20, blank=True, default="")
    rejected = models.JSONField(default=list, blank=True)  # rejected draws, e.g. ["-AEIOUU+"]
    typed = models.BooleanField(default=False)  # typed from a physical bag rather than drawn at random
    # Explosive: the letter that took the new blank's place (typed: the arbitrator takes it out of the bag and
    # puts the blank back); "" when the blank stayed or in any other game.
    replaced = models.CharField(max_length=4, blank=True, default="")
    board = models.JSONField(default=empty_board)  # the board the rack is played on
    bag_after = models.CharField(max_length=200, blank=True, default="")  # the bag once this rack was drawn
    drawn_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    # Tops are computed when the rack is drawn so they are ready at the deadline.
    tops_ready = models.BooleanField(default=False)
    top_score = models.PositiveIntegerField(null=True, blank=True)  # None: no play possible (or not computed)
    tops = models.JSONField(default=list, blank=True)  # every tied top: {word, row, col, horizontal, score, tiles}
    master = models.JSONField(null=True, blank=True)  # one of tops, placed on the board at the close
    # The clock stopped by the arbitrator: when, and the seconds that were left (the deadline is set anew
    # from them on resuming). A paused round never closes.
    paused_at = models.DateTimeField(null=True, blank=True)
    time_left = models.FloatField(null=True, blank=True)
    extended_seconds = models.PositiveIntegerField(default=0)  # added to the clock by the arbitrator
    # Pauses, resumes, extensions, a fixed rack, a cancellation: {"action", "at", "by", "reason", ...}.
    incidents = models.JSONField(default=list, blank=True)
    cancel_reason = models.TextField(blank=True, default="")  # why the arbitrator cancelled the round
    # The arbitrator has entered every paper slip of the closed round: its standings are final.
    slips_complete = models.BooleanField(default=True)

    objects = RoundQuerySet.as_manager()

    class Meta:
        ordering = ["game_id", "number", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "number"], condition=~Q(status="cancelled"), name="round_number_unique"
            ),
            models.UniqueConstraint(
                fields=["game"], condition=Q(status__in=["drawn", "open"]), name="round_one_in_play_per_game"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
            models.CheckConstraint(
                condition=Q(status__in=["drawn", "open", "closed", "cancelled"]), name="round_status_known"
            ),
            models.CheckConstraint(
                condition=~Q(status="open") | Q(deadline__isnull=False), name="round_open_has_deadline"
            ),
        ]
        indexes = [models.Index(fields=["status", "deadline"], name="round_status_deadline")]

    def __str__(self) -> str:
        return f"{self.game} — round {self.number}"


class Slip(models.Model):
    """A slip exactly as handed in. A later slip of the same player in the round replaces it (kept, linked)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="slips")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="slips")
    word = models.CharField(max_length=60)  # as written: up to 4 characters a tile (engine.notation)
    ref = models.CharField(max_length=8, blank=True, default="")
    claimed = models.IntegerField(null=True, blank=True)
    key = models.CharField(max_length=100)  # idempotency key chosen by the sender
    # The order in which the sending device made its slips (compared only between slips of one player and
    # round): a slip made before the one held never replaces it, however late it arrives. None: no order.
    seq = models.BigIntegerField(null=True, blank=True)
    received_at = models.DateTimeField()
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    replaces = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="replaced_by"
    )
    current = models.BooleanField(default=True)  # the slip that counts for this player and round
    # A second, different paper slip of the player in the round (the arbitrator's finding, §4 "several
    # slips"): it counts, and pays 0.
    several = models.BooleanField(default=False)
    # The log chain's head when the slip arrived (its last entry's place and hash; 0 and the genesis value for
    # an empty log), carried by the slip's receipt (tournaments/receipts.py): a player's proof of the log up to
    # there. None and "" on a slip kept before heads were.
    chain_seq = models.PositiveIntegerField(null=True, blank=True)
    chain_hash = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["round_id", "player_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "player", "key"], name="slip_key_unique"),
            models.UniqueConstraint(
                fields=["round", "player"], condition=Q(current=True), name="slip_one_current_per_player"
            ),
            models.CheckConstraint(
                condition=Q(claimed__isnull=True) | Q(claimed__gte=0), name="slip_claimed_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.word} {self.ref} {self.claimed}"


class LateSlip(models.Model):
    """A slip that reached the server after the deadline or the end call: refused, never judged, kept on
    record (who, when, what) so that a dispute is settled from it. The arbitrator may admit it when the
    fault was the venue's: the slip then made from it is ``admitted``."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="late_slips")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="late_slips")
    word = models.CharField(max_length=60)  # as written: up to 4 characters a tile (engine.notation)
    ref = models.CharField(max_length=8, blank=True, default="")
    claimed = models.IntegerField(null=True, blank=True)
    key = models.CharField(max_length=100)
    seq = models.BigIntegerField(null=True, blank=True)
    received_at = models.DateTimeField()
    late_by = models.FloatField()  # seconds after the end call (the deadline, or an earlier close)
    # When the phone says it sent the slip, on its server-corrected clock (the optional sent_ms of the
    # request): information for the arbitrator only, never what decides; null when not said or not plausible.
    sent_at = models.DateTimeField(null=True, blank=True)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    admitted = models.OneToOneField(Slip, null=True, blank=True, on_delete=models.SET_NULL, related_name="late")

    class Meta:
        ordering = ["round_id", "received_at", "id"]
        constraints = [models.UniqueConstraint(fields=["round", "player", "key"], name="late_slip_key_unique")]

    def __str__(self) -> str:
        return f"{self.word} {self.ref} {self.claimed} (+{self.late_by:.1f} s)"


class Result(models.Model):
    class Outcome(models.TextChoices):
        OK = "ok", _("OK")
        WARNING = "warning", _("Warning")
        PENALTY = "penalty", _("Penalty")
        ZERO = "zero", _("Zero")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="results")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="results")
    slip = models.ForeignKey(Slip, null=True, blank=True, on_delete=models.PROTECT, related_name="results")
    paid = models.PositiveIntegerField(default=0)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    reason = models.CharField(max_length=30)
    message = models.CharField(max_length=MESSAGE_MAX, blank=True, default="")
    # The reference of the placement paid (``H4``), which may differ from the slip's (round 1's best
    # placement, a reversed reference, a penalty's reachable placement); "" when nothing was placed.
    placement = models.CharField(max_length=8, blank=True, default="")
    corrected = models.BooleanField(default=False)

    class Meta:
        ordering = ["round_id", "player_id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "player"], name="result_one_per_player_and_round"),
            models.CheckConstraint(
                condition=Q(outcome__in=["ok", "warning", "penalty", "zero"]), name="result_outcome_known"
            ),
            models.CheckConstraint(condition=~Q(outcome="zero") | Q(paid=0), name="result_zero_pays_nothing"),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.paid} ({self.outcome})"


class GameArbitrator(models.Model):
    """An arbitrator's role in one game. The head runs the clock, the racks and the master; assistants
    enter and correct slips. A game with no roles recorded lets every staff arbitrator act as its head."""

    class Role(models.TextChoices):
        HEAD = "head", _("Head arbitrator")
        ASSISTANT = "assistant", _("Assistant arbitrator")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="arbitrators")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.ASSISTANT)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="arbitrator_one_role_per_game"),
            models.CheckConstraint(condition=Q(role__in=["head", "assistant"]), name="arbitrator_role_known"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) — {self.game}"


class RecordImport(models.Model):
    """A game record being played back by the worker (a record too large to answer within one request):
    its progress, then the game made or the refusal. The record's text waits in ``record`` meanwhile (in the
    database, which the web and worker containers share; emptied once played back)."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        REFUSED = "refused", _("Refused")

    id = models.UUIDField(primary_key=True)
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    record = models.TextField(blank=True, default="")
    size = models.PositiveBigIntegerField(default=0)
    players_total = models.PositiveIntegerField(default=0)
    players_done = models.PositiveIntegerField(default=0)
    rounds_total = models.PositiveIntegerField(default=0)
    rounds_done = models.PositiveIntegerField(default=0)
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    error = models.JSONField(null=True, blank=True)  # the refusal: {"code", "message", "fields", "params"}
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"record import {self.pk} ({self.status})"


class LogEntry(models.Model):
    """Append-only record of every arbitration action and correction: who, when, before, after, why.

    On PostgreSQL a trigger refuses UPDATE, DELETE and TRUNCATE on this table; the model refuses them too.
    Each game's entries form a chain (``tournaments.logchain``): ``seq`` numbers them 1, 2, 3…, ``prev_hash``
    is the hash of the one before, ``hash`` covers the entry's content and that link. Appended by
    ``services.log`` (services/logbook.py) only, under the game's lock, so the chain never forks.
    """

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="log")
    round = models.ForeignKey(Round, null=True, blank=True, on_delete=models.PROTECT, related_name="log")
    slip = models.ForeignKey(Slip, null=True, blank=True, on_delete=models.PROTECT, related_name="log")
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="log")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    at = models.DateTimeField(default=timezone.now, editable=False)  # set before the hash is computed
    action = models.CharField(max_length=30)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True, default="")
    # The digests of the rows that decide a score written with this entry (logchain.rows_of), covered by its hash.
    rows = models.JSONField(null=True, blank=True, editable=False)
    seq = models.PositiveIntegerField(default=0, editable=False)
    prev_hash = models.CharField(max_length=64, default="", editable=False)
    hash = models.CharField(max_length=64, default="", editable=False)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "log entries"
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="logentry_one_per_seq")]

    def __str__(self) -> str:
        return f"{self.at:%H:%M:%S} {self.action}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("the arbitration log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("the arbitration log is append-only")


class PendingLogEntry(models.Model):
    """A log entry written with the change it records but not yet appended to the game's chain: a slip
    served after its round's close (a crowd at the deadline) is judged without waiting for the game's lock,
    and its entries join the chain a moment later, many in one step (``services.logbook.flush_pending``).
    Any append to the game's chain takes the pending entries first, in the order they were written; the
    entry's time in the chain is when it was appended."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="+")
    round = models.ForeignKey(Round, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    slip = models.ForeignKey(Slip, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    action = models.CharField(max_length=30)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True, default="")
    rows = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.action} (pending)"


class TrustedOrganiserKey(models.Model):
    """An organiser whose sealed packs this installation (a centre) accepts, trusted by a head arbitrator
    after checking its fingerprint by phone; beside the setting ``ARBITER_TRUSTED_ORGANISER_KEYS``."""

    key = models.CharField(max_length=64, unique=True)  # the Ed25519 public key, URL-safe base64 unpadded
    fingerprint = models.CharField(max_length=24)
    trusted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    trusted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["trusted_at", "id"]

    def __str__(self) -> str:
        return self.fingerprint


class GamePack(models.Model):
    """The sealed pack a game is played from (issue 25, the centre; tournaments/packs.py, docs/packs.md).

    ``pack`` is the pack's file as imported, its game still encrypted; ``game_text`` stays empty until the
    head arbitrator gives the key, then holds the game opened (racks, masters), which each draw reads. The
    key itself is never stored."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="sealed_pack")
    pack = models.TextField()
    sha256 = models.CharField(max_length=64)
    event = models.CharField(max_length=200)
    pack_game = models.CharField(max_length=100)  # the game's id in the pack (``G1``)
    signer = models.CharField(max_length=64)
    fingerprint = models.CharField(max_length=24)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField(auto_now_add=True)
    unlocked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    unlocked_at = models.DateTimeField(null=True, blank=True)
    game_text = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["game_id"]

    def __str__(self) -> str:
        return f"{self.event} {self.pack_game} ({self.sha256[:16]})"


class CentreResults(models.Model):
    """A version of this centre's results file for a game played from a sealed pack (issue 25, part 4;
    tournaments/centre_results.py): kept after each closed round and at the end, each with a ``sequence`` one
    more than the last, and its push to the organiser (``push_state``: ``pending`` until the organiser
    acknowledges it (``sent``), ``refused`` by the organiser (4xx, not retried), ``failed`` when the retries
    ran out; ``""`` when no organiser's address is set)."""

    class Push(models.TextChoices):
        NONE = "", _("Not pushed")
        PENDING = "pending", _("Pending")
        SENT = "sent", _("Acknowledged")
        REFUSED = "refused", _("Refused")
        FAILED = "failed", _("Failed")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="centre_results")
    sequence = models.PositiveIntegerField()
    final = models.BooleanField(default=False)
    sha256 = models.CharField(max_length=64)
    text = models.TextField()  # the file's canonical JSON, signed
    made_at = models.DateTimeField(auto_now_add=True)
    push_state = models.CharField(max_length=10, choices=Push.choices, blank=True, default=Push.NONE)
    push_attempts = models.PositiveIntegerField(default=0)
    pushed_at = models.DateTimeField(null=True, blank=True)  # the last attempt
    push_answer = models.JSONField(null=True, blank=True)  # the organiser's last answer: {status, code, message}

    class Meta:
        ordering = ["game_id", "sequence"]
        constraints = [models.UniqueConstraint(fields=["game", "sequence"], name="centre_results_sequence")]

    def __str__(self) -> str:
        return f"game {self.game_id} results v{self.sequence}"


__all__ = ["Lexicon", "Tournament", "Game", "Player", "Round", "Slip", "Result", "GameArbitrator", "RecordImport",
           "LogEntry", "TrustedOrganiserKey", "GamePack", "CentreResults"]

# A simultaneous event's organiser side (its own module).
from tournaments.event_models import Centre, Event, EventGame, ResultsFile  # noqa: E402

__all__ += ["Event", "EventGame", "Centre", "ResultsFile"]

# A tournament's or an event's public results link (its own module).
from tournaments.public_models import PublicLink  # noqa: E402

__all__ += ["PublicLink"]
