"""Who is knocking: the client's address, failed logins (django-axes) and arbitrators' API tokens
(django-rest-knox).

Arbitrators' API tokens use django-rest-knox rather than DRF's authtoken. DRF's authtoken keeps the token
itself in the database (whoever reads a backup or the table holds every arbitrator's key), one per user and
forever. Knox stores only a SHA-512 digest of each token (with its first 15 characters, to find it), gives
each token an expiry, and lets an arbitrator hold several tokens (a laptop, a results tool), each revocable
on its own. A token lasts ``ARBITER_API_TOKEN_HOURS`` (a tournament day) and is revoked as soon as its
arbitrator's password changes or their staff rights or active flag are removed.

Failed logins use django-axes: every ``django.contrib.auth.authenticate`` call with a request (the console's
login, the admin's, ``POST /api/auth/token``) is counted in the database, so the limit holds on PostgreSQL
and on the embedded SQLite alike, across processes, and does not lapse when the cache is down. After
``AXES_FAILURE_LIMIT`` failures an account (from any address) or an address (on any accounts) is locked for
``AXES_COOLOFF_TIME``: the right password is refused too, with 429 and a clear message.

The client address is the connection's; ``X-Forwarded-For`` is read only when ``TRUSTED_PROXIES`` (DRF's
``NUM_PROXIES``) says reverse proxies of ours stand in front, exactly as the API's rate limits read it.
"""

from __future__ import annotations

import ipaddress
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render, resolve_url
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.settings import api_settings

logger = logging.getLogger(__name__)


# ---- the client's address --------------------------------------------------------------------------------


def _address(text: str | None) -> str | None:
    try:
        return ipaddress.ip_address((text or "").strip()).compressed
    except ValueError:
        return None


def client_address(request: HttpRequest) -> str | None:
    """The caller's address: the connection's, or with ``TRUSTED_PROXIES=N`` the address N hops back in
    ``X-Forwarded-For`` (the one our outermost proxy saw). Anything in that header that is not an address
    counts as the connection's (the proxy's): a forged header never gives a fresh identity."""
    meta = getattr(request, "META", {})
    remote = _address(meta.get("REMOTE_ADDR")) or meta.get("REMOTE_ADDR") or None
    proxies = api_settings.NUM_PROXIES or 0
    forwarded = meta.get("HTTP_X_FORWARDED_FOR")
    if proxies <= 0 or not forwarded:
        return remote
    hops = forwarded.split(",")
    return _address(hops[-min(proxies, len(hops))]) or remote


# ---- failed logins ---------------------------------------------------------------------------------------


def cool_off() -> timedelta:
    from axes.helpers import get_cool_off

    return get_cool_off() or timedelta(0)


def locked_out_message() -> str:
    minutes = max(1, round(cool_off().total_seconds() / 60))
    return _(
        "Too many failed logins: this account or this address is locked for %(minutes)s minutes, even with "
        "the right password. Try again later, or ask the tournament's organiser."
    ) % {"minutes": minutes}


def locked_out_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """django-axes' answer to a locked-out login (``AXES_LOCKOUT_CALLABLE``): 429 with ``Retry-After``, in
    the API's error shape under /api/, else a page in the visitor's language."""
    from tournaments.errors import error_body

    message = locked_out_message()
    if request.path.startswith("/api/"):
        response = JsonResponse(error_body("locked_out", message), status=429)
    else:
        login_path = request.path if request.path.endswith("/login/") else resolve_url(settings.LOGIN_URL)
        response = render(request, "registration/locked_out.html",
                          {"message": message, "login_path": login_path}, status=429)
    response["Retry-After"] = str(int(cool_off().total_seconds()))
    return response


def _door(path: str) -> str:
    if path.startswith("/api/"):
        return "api"
    if path.startswith("/admin/"):
        return "admin"
    return "console"


def _on_locked_out(sender, request=None, username=None, ip_address=None, **kwargs) -> None:
    path = getattr(request, "path", "") or ""
    failures = getattr(request, "axes_failures_since_start", None)
    logger.warning(
        "login_locked_out: account %r from address %s refused at the %s login after %s failures; "
        "locked for %s after the last failure",
        (username or "")[:150], ip_address, _door(path), failures, cool_off(),
    )


def connect_login_limits() -> None:
    from axes.signals import user_locked_out

    user_locked_out.connect(_on_locked_out, dispatch_uid="tournaments.security.locked_out")


# ---- arbitrators' API tokens -----------------------------------------------------------------------------


def api_token_lifetime() -> timedelta:
    return timedelta(hours=settings.ARBITER_API_TOKEN_HOURS)


def issue_api_token(user) -> tuple[str, datetime]:
    """A new API token for ``user`` (the token itself, shown once, and when it expires); only its digest is
    stored. The arbitrator's expired tokens are cleared on the way."""
    from knox.models import AuthToken

    AuthToken.objects.filter(user=user, expiry__lte=timezone.now()).delete()
    row, token = AuthToken.objects.create(user=user, expiry=api_token_lifetime())
    logger.info("api_token_issued: account %r, token %s, expires %s", user.get_username(),
                token_id(row), row.expiry.isoformat())
    return token, row.expiry


def token_id(row) -> str:
    """A short name for a stored token: the start of its digest (which gives nothing of the token)."""
    return row.digest[:12]


def api_tokens_of(user) -> list:
    """The user's tokens still in force, newest first."""
    from knox.models import AuthToken

    return list(AuthToken.objects.filter(user=user, expiry__gt=timezone.now()).order_by("-created"))


def api_token_of(user, ident: str):
    """One of the user's tokens in force by its short name, or None."""
    if not ident or len(ident) != 12 or any(ch not in "0123456789abcdef" for ch in ident):
        return None
    from knox.models import AuthToken

    rows = list(AuthToken.objects.filter(user=user, digest__startswith=ident, expiry__gt=timezone.now())[:2])
    return rows[0] if len(rows) == 1 else None


def revoke_api_tokens(user, row=None, reason: str = "revoked") -> int:
    """Delete one of the user's tokens (``row``) or all of them; logged. The number deleted."""
    from knox.models import AuthToken

    tokens = AuthToken.objects.filter(user=user)
    if row is not None:
        tokens = tokens.filter(digest=row.digest)
    count, _ = tokens.delete()
    if count:
        logger.warning("api_tokens_revoked: account %r, %d token(s)%s: %s", user.get_username(), count,
                       f" ({token_id(row)})" if row is not None else "", reason)
    return count


_WATCHED = {"password", "is_staff", "is_active"}


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="tournaments.security.user_before")
def _user_before_save(sender, instance, update_fields=None, **kwargs) -> None:
    """Note what a save takes away: a new password, staff rights, the active flag."""
    instance._api_token_revocations = []
    if instance.pk is None or (update_fields is not None and not _WATCHED & set(update_fields)):
        return
    before = sender._default_manager.filter(pk=instance.pk).values(*_WATCHED).first()
    if before is None:
        return
    reasons = []
    password_set = getattr(instance, "_password", None) is not None  # set_password() was called
    # A login may re-hash the same password with a newer hasher (saving the password field alone).
    rehash = update_fields is not None and set(update_fields) == {"password"} and not password_set
    if password_set or (before["password"] != instance.password and not rehash):
        reasons.append("password changed")
    if before["is_staff"] and not instance.is_staff:
        reasons.append("staff rights removed")
    if before["is_active"] and not instance.is_active:
        reasons.append("account deactivated")
    instance._api_token_revocations = reasons


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="tournaments.security.user_after")
def _user_after_save(sender, instance, created=False, **kwargs) -> None:
    reasons = instance.__dict__.pop("_api_token_revocations", None)
    if reasons and not created:
        revoke_api_tokens(instance, reason=", ".join(reasons))
