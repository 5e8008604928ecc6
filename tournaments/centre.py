"""A centre plays a sealed pack (issue 25, part 3; docs/packs.md, "At a centre"): the pack imported into a
tournament as a new game, the organiser's key trusted after a check by phone, the game unlocked with the key
at the start. Drawing, closing and the incidents of such a game are the usual services, which read the
opened game (tournaments/services/sealed.py).

This module stands beside the services rather than among them: it reads and opens packs
(tournaments/packs.py), which reads game records with the restore's checks, which call the services.

Until the key is given the game holds no rack: the pack is stored as imported, its game still encrypted,
and nothing of it but its clear part (event, game id, rules, tile set, labelling, word list, SHA-256,
signer's fingerprint) is shown or logged. The key is never stored; the game opened by it is.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace

from django.db import transaction
from django.utils import timezone

from engine.rules import VARIANTS, Rules, variant_rules
from tournaments import packs, seal, services
from tournaments.errors import Conflict, ServiceError
from tournaments.models import Game, GamePack, Tournament, TrustedOrganiserKey

logger = logging.getLogger(__name__)


def trusted_keys() -> set[str]:
    """The organisers this centre trusts: packs.trusted_keys() (its own key, ARBITER_TRUSTED_ORGANISER_KEYS)
    and those a head arbitrator trusted here (TrustedOrganiserKey)."""
    return packs.trusted_keys() | set(TrustedOrganiserKey.objects.values_list("key", flat=True))


def _same_fingerprint(typed: str, fingerprint: str) -> bool:
    def norm(text):
        return "".join(ch for ch in str(text or "").upper() if ch not in " -\t\n").translate(
            str.maketrans("OIL", "011"))

    return bool(norm(typed)) and norm(typed) == norm(fingerprint)


def verify(raw, *, trust_fingerprint: str | None = None, actor=None) -> packs.VerifiedPack:
    """The pack checked (packs.verify_pack) against the keys this centre trusts. A pack signed by a key it
    does not trust is refused (``pack_untrusted``, with the fingerprint to check by phone) unless
    ``trust_fingerprint`` is that fingerprint, as read out by the organiser: the key is then trusted from
    now on (kept in TrustedOrganiserKey, and in the server's log). 400 ``pack_fingerprint`` for another
    fingerprint; nothing is kept."""
    try:
        return packs.verify_pack(raw, trusted=trusted_keys())
    except ServiceError as error:
        if error.code != "pack_untrusted" or not str(trust_fingerprint or "").strip():
            raise
        fingerprint, key = error.params["fingerprint"], error.params["key"]
        if not _same_fingerprint(trust_fingerprint, fingerprint):
            raise ServiceError("pack_fingerprint", fields={"trust_fingerprint": ["not the signer's"]},
                               params={"typed": str(trust_fingerprint)[:40], "fingerprint": fingerprint}) from None
    verified = packs.verify_pack(raw, trusted=trusted_keys() | {key})
    user = actor if getattr(actor, "is_authenticated", False) else None
    TrustedOrganiserKey.objects.get_or_create(key=key, defaults={"fingerprint": fingerprint, "trusted_by": user})
    logger.info("organiser key trusted: %s (fingerprint %s) by %s", key, fingerprint,
                user.get_username() if user else "the server")
    return verified


def pack_settings(pack: dict) -> dict:
    """The tournament's settings the pack's clear part gives: word list, tile set, labelling, rules (as a
    preset and the fields that differ from it) and the round's time (the rules' ``round_seconds``, which the
    tournament's clock reads)."""
    try:
        rules = Rules(**pack["rules"])
        variant = pack_variant(rules)
        preset = variant_rules(variant, ruleset=rules.preset)
    except (TypeError, ValueError):
        raise ServiceError("bad_pack", params={"why": "format"}) from None
    overrides = {name: value for name, value in rules.as_dict().items()
                 if name not in ("preset", "round_seconds") and getattr(preset, name) != value}
    return {"lexicon": str(pack["lexicon"]["name"]), "tileset": str(pack["tileset"]),
            "coordinates": str(pack["labelling"]), "ruleset": rules.preset, "rule_overrides": overrides,
            "round_seconds": rules.round_seconds, "variant": variant}


def pack_variant(rules: Rules) -> str:
    """The variant a pack's rules play (engine.rules.VARIANTS): the first whose defining fields they hold (the
    warnings' threshold left aside: a setting), else the classic duplicate."""
    for name, fields in VARIANTS.items():
        defining = {field: value for field, value in fields.items() if field != "free_warnings"}
        if defining and all(getattr(rules, field) == value for field, value in defining.items()):
            return name
    return "duplicate"


def pack_import(*, tournament: Tournament, raw, trust_fingerprint: str | None = None, actor=None) -> Game:
    """A new game of ``tournament`` played from the pack ``raw`` (its file's bytes or text, or parsed), by a
    head arbitrator of the tournament. The pack is verified first (``verify``); the tournament then takes
    the pack's word list, tile set, labelling and rules, unless one of its games has started with others
    (409 ``pack_settings``, naming them). The game's racks wait, encrypted, for the key (``pack_unlock``)."""
    if actor is not None:
        services.require_tournament_head(tournament.pk, actor)
    verified = verify(raw, trust_fingerprint=trust_fingerprint, actor=actor)
    wanted = pack_settings(verified.pack)
    differ = [name for name in ("lexicon", "tileset", "coordinates", "round_seconds")
              if getattr(tournament, name) != wanted[name]]
    if replace(tournament.rules, round_seconds=0) != replace(Rules(**verified.pack["rules"]), round_seconds=0):
        differ.append("rules")
    if differ and services.tournament_started(tournament):
        raise Conflict("pack_settings", fields={name: ["the pack's differs"] for name in differ},
                       params={"settings": ", ".join(differ)})
    with transaction.atomic():
        if differ:
            tournament = services.tournament_update(tournament=tournament, changes=wanted, actor=actor)
        game = services.game_create(tournament=tournament, actor=actor)
        GamePack.objects.create(
            game=game, pack=packs.pack_bytes(verified.pack).decode(), sha256=verified.sha256,
            event=str(verified.pack["event"])[:200], pack_game=str(verified.pack["game_id"])[:100],
            signer=verified.signer, fingerprint=verified.fingerprint,
            imported_by=actor if getattr(actor, "is_authenticated", False) else None)
        services.log(game=game, action="pack_import", actor=actor,
                     after={"event": verified.pack["event"], "game_id": verified.pack["game_id"],
                            "sha256": verified.sha256, "fingerprint": verified.fingerprint})
    return game


def pack_unlock(*, game: Game, key: str, actor=None) -> GamePack:
    """Open the game's pack with the key typed or scanned (its QR text), by the game's head arbitrator.
    Refused with packs.read_key's and packs.unlock_pack's codes (``bad_pack_key``, ``pack_key_check``,
    ``wrong_pack_key``), and 409 ``pack_unlocked`` once open; a refusal changes nothing. The opened game is
    kept (the key is not); logged without a rack."""
    services.act_as(services.require_head, game.pk, actor)
    pack = GamePack.objects.filter(game_id=game.pk).first()
    if pack is None:
        raise Conflict("pack_none")
    if pack.unlocked_at is not None:
        raise Conflict("pack_unlocked")
    opened = packs.unlock_pack(pack.pack, str(key or ""), trusted=trusted_keys() | {pack.signer})
    text = seal.canonical(packs.game_payload(opened.game, opened.labelling)).decode()
    with transaction.atomic():
        locked = GamePack.objects.select_for_update().get(pk=pack.pk)
        if locked.unlocked_at is not None:
            raise Conflict("pack_unlocked")
        locked.game_text = text
        locked.unlocked_at = timezone.now()
        locked.unlocked_by = actor if getattr(actor, "is_authenticated", False) else None
        locked.save(update_fields=["game_text", "unlocked_at", "unlocked_by"])
        services.log(game=game, action="pack_unlock", actor=actor,
                     after={"sha256": pack.sha256, "rounds": len(opened.game.rounds)})
    return locked


def pack_summary(pack: GamePack | None) -> dict | None:
    """What may be shown of a game's pack, locked or not: its clear part only (never a rack)."""
    if pack is None:
        return None
    clear = json.loads(pack.pack)
    return {"event": pack.event, "game_id": pack.pack_game, "sha256": pack.sha256, "fingerprint": pack.fingerprint,
            "signer": pack.signer, "lexicon": clear["lexicon"], "tileset": clear["tileset"],
            "labelling": clear["labelling"], "sealed_at": clear["sealed_at"], "imported_at": pack.imported_at,
            "unlocked": pack.unlocked_at is not None, "unlocked_at": pack.unlocked_at}
