"""The organiser's side of a simultaneous event (issue 25, parts 4 and 5; tournaments/events.py, docs/packs.md):
the event, the packs' games it merges, its centres with their keys and push tokens, and the results files
received from them (every version kept, the latest of each centre's game counted)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Event(models.Model):
    """A simultaneous event as its organiser runs it. ``name`` is the event as the packs and the results files
    name it. Its organisers run it; while none is recorded, every staff arbitrator does."""

    name = models.CharField(max_length=200)
    language = models.CharField(max_length=10, default="en")
    organisers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class EventGame(models.Model):
    """One game of the event: its sealed pack (the file, its SHA-256) and, once the organiser gives the key,
    the game opened (the game file's JSON), which the centres' results are judged against."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="games")
    game_id = models.CharField(max_length=100)
    pack = models.TextField()
    sha256 = models.CharField(max_length=64)
    game_text = models.TextField(blank=True, default="")
    added_at = models.DateTimeField(auto_now_add=True)
    unlocked_at = models.DateTimeField(null=True, blank=True)
    unlocked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    # A multiplex (tournaments/multiplex.py): the organiser's own game, played live and opened to the event's
    # centres, which follow it through the relay. ``pack`` is then empty and ``sha256`` the relay's id, which
    # the centres' results files name as their pack's.
    live_game = models.ForeignKey("tournaments.Game", null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")
    opened_at = models.DateTimeField(null=True, blank=True)
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["event", "game_id"], name="event_game_once")]

    def __str__(self) -> str:
        return f"{self.event.name} {self.game_id}"


class Centre(models.Model):
    """A centre of the event: ``code`` is its id in its results files. ``public_key`` is the key its files
    must be signed with (typed by the organiser, or ``key_seen`` on a first push accepted once its
    fingerprint is checked by phone). The push token is stored as its SHA-512 digest only."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="centres")
    code = models.CharField(max_length=100)
    name = models.CharField(max_length=200, blank=True, default="")
    public_key = models.CharField(max_length=64, blank=True, default="")
    key_seen = models.CharField(max_length=64, blank=True, default="")
    token_digest = models.CharField(max_length=128, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["code", "id"]
        constraints = [models.UniqueConstraint(fields=["event", "code"], name="event_centre_once")]

    def __str__(self) -> str:
        return f"{self.event.name} {self.code}"


class ResultsFile(models.Model):
    """A results file accepted from a centre, as received (canonical JSON), named by its content hash.
    ``current`` marks the latest version of the centre's game, which the standings count; the others are
    its history. ``differences`` are the verdicts the organiser's judge gives otherwise, listed for review."""

    class Via(models.TextChoices):
        API = "api"
        CONSOLE = "console"

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="results")
    centre = models.ForeignKey(Centre, on_delete=models.CASCADE, related_name="results")
    game = models.ForeignKey(EventGame, on_delete=models.CASCADE, related_name="results")
    sha256 = models.CharField(max_length=64)
    sequence = models.IntegerField()
    final = models.BooleanField(default=False)
    content = models.TextField()
    differences = models.JSONField(default=list, blank=True)
    current = models.BooleanField(default=True)
    via = models.CharField(max_length=10, choices=Via.choices)
    received_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["event", "sha256"], name="event_results_once")]

    def __str__(self) -> str:
        return f"{self.centre.code} {self.game.game_id} v{self.sequence} ({self.sha256[:16]})"


from tournaments.relay_models import RelayLink, RelayRack  # noqa: E402,F401  (the centre's side of a multiplex)
