"""The centre's side of a multiplex (issue 26, part 1; tournaments/relay.py, docs/multiplex.md): the link of a
game to the organiser's live game, and each round's rack as the organiser sent it, beside the rack the centre
played (drawn from the relay, or typed by the arbitrator while the link was down)."""

from __future__ import annotations

from django.db import models


class RelayLink(models.Model):
    """A game of this centre following the organiser's live game (``event``, ``event_game``: the organiser's
    names; ``relay_id``: the id its results files carry as their pack's SHA-256). ``after`` is the last item of the
    relay applied; ``last_contact_at`` the last answer of the organiser, ``down_since`` set while the link is
    silent for longer than ``ARBITER_RELAY_SILENT_SECONDS`` (the console says so). ``auto_start``: the clock
    starts when the organiser's rack arrives."""

    game = models.OneToOneField("tournaments.Game", on_delete=models.CASCADE, related_name="relay_link")
    organiser_event = models.CharField(max_length=100)  # the event's number at the organiser (its URL's)
    event = models.CharField(max_length=200)
    event_game = models.CharField(max_length=100)
    relay_id = models.CharField(max_length=64)
    auto_start = models.BooleanField(default=False)
    after = models.BigIntegerField(default=0)
    last_contact_at = models.DateTimeField(null=True, blank=True)
    down_since = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.event} {self.event_game} -> game {self.game_id}"


class RelayRack(models.Model):
    """Round ``number``'s rack as the organiser sent it (``rack``, ``rejected``, at ``received_at``) and its
    master once confirmed there; ``compared``: how the rack played here compares (``""`` not yet compared,
    ``relayed`` drawn from it, ``equal`` typed by hand and the same, ``mismatch`` typed by hand and different:
    shown and logged, never replaced)."""

    class Check(models.TextChoices):
        NONE = ""
        RELAYED = "relayed"
        EQUAL = "equal"
        MISMATCH = "mismatch"

    link = models.ForeignKey(RelayLink, on_delete=models.CASCADE, related_name="racks")
    seq = models.BigIntegerField()
    number = models.IntegerField()
    rack = models.CharField(max_length=40)
    rejected = models.JSONField(default=list, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)
    master = models.JSONField(null=True, blank=True)
    master_applied = models.BooleanField(default=False)
    compared = models.CharField(max_length=10, choices=Check.choices, blank=True, default="")
    played = models.CharField(max_length=40, blank=True, default="")  # the rack played here, when compared

    class Meta:
        ordering = ["seq"]
        constraints = [models.UniqueConstraint(fields=["link", "seq"], name="relay_rack_once")]

    def __str__(self) -> str:
        return f"round {self.number}: {self.rack}"
