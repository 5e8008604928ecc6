"""A public results link (issue 26, part 2; tournaments/public.py): the standings of a tournament or of a
simultaneous event after each closed round, for followers at home, at ``/results/<key>/``. No join code, no
token: the key in the address is the only secret, 128 random bits, so no link is found by trying addresses.
Off until a head arbitrator (an event's organiser) turns it on; off again, the address answers 404. The key
stays the same across off and on, so a link already shared works again once turned back on."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q


def new_public_key() -> str:
    return secrets.token_urlsafe(16)


class PublicLink(models.Model):
    """The public results link of one tournament or one event (exactly one of the two)."""

    key = models.CharField(max_length=32, unique=True, default=new_public_key, editable=False)
    tournament = models.OneToOneField("tournaments.Tournament", null=True, blank=True, on_delete=models.CASCADE,
                                      related_name="public_link")
    event = models.OneToOneField("tournaments.Event", null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="public_link")
    enabled = models.BooleanField(default=False)
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    changed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(tournament__isnull=False, event__isnull=True)
                           | Q(tournament__isnull=True, event__isnull=False)),
                name="public_link_one_owner"),
        ]

    def __str__(self) -> str:
        owner = f"tournament {self.tournament_id}" if self.tournament_id else f"event {self.event_id}"
        return f"public results of {owner} ({'on' if self.enabled else 'off'})"
