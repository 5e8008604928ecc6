"""The arbitrator's API tokens: listed, and revoked one by one or all at once, after a confirmation page.

Tokens are issued by ``POST /api/auth/token``; only their digests are stored, so a token is named here by the
start of its digest, never by the token itself (tournaments/security.py)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from tournaments import security

from .access import staff_required


def _crumbs(*tail) -> list:
    return [(_("Tournaments"), reverse("console-home")), *tail]


@staff_required
def api_tokens_page(request: HttpRequest) -> HttpResponse:
    rows = [{"id": security.token_id(row), "created": row.created, "expires": row.expiry}
            for row in security.api_tokens_of(request.user)]
    return render(request, "console/api_tokens.html", {
        "section": "api-tokens",
        "tokens": rows,
        "lifetime_hours": int(security.api_token_lifetime().total_seconds() // 3600),
        "breadcrumbs": _crumbs((_("API tokens"), None)),
    })


@staff_required
@require_http_methods(["GET", "POST"])
def api_token_revoke(request: HttpRequest, token_id: str) -> HttpResponse:
    """GET: the confirmation page; POST: the token is revoked (401 for it from then on)."""
    row = security.api_token_of(request.user, token_id)
    if row is None:
        raise Http404("no such token in force")
    if request.method == "POST":
        security.revoke_api_tokens(request.user, row, reason="revoked from the console")
        messages.success(request, _("Token %(token)s revoked: it no longer works.") % {"token": token_id})
        return redirect("console-api-tokens")
    return render(request, "console/api_token_revoke.html", {
        "section": "api-tokens",
        "token": {"id": token_id, "created": row.created, "expires": row.expiry},
        "action": reverse("console-api-token-revoke", args=[token_id]),
        "breadcrumbs": _crumbs((_("API tokens"), reverse("console-api-tokens")), (_("Revoke"), None)),
    })


@staff_required
@require_http_methods(["GET", "POST"])
def api_tokens_revoke_all(request: HttpRequest) -> HttpResponse:
    """GET: the confirmation page; POST: every token of the arbitrator is revoked."""
    if request.method == "POST":
        count = security.revoke_api_tokens(request.user, reason="all revoked from the console")
        messages.success(request, ngettext("%(count)s token revoked.", "%(count)s tokens revoked.", count)
                         % {"count": count})
        return redirect("console-api-tokens")
    return render(request, "console/api_token_revoke.html", {
        "section": "api-tokens",
        "count": len(security.api_tokens_of(request.user)),
        "action": reverse("console-api-tokens-revoke-all"),
        "breadcrumbs": _crumbs((_("API tokens"), reverse("console-api-tokens")), (_("Revoke"), None)),
    })
