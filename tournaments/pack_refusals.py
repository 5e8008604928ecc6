"""The texts of the sealed packs' refusals (tournaments/packs.py), merged into tournaments/refusals.py's TEXTS."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

TEXTS = {
    "bad_pack": _("this file is not a sealed pack"),
    ("bad_pack", "json"): _("this file is not a sealed pack: it is not JSON"),
    ("bad_pack", "format"): _("this file is not a sealed pack, or a part of it is missing"),
    ("bad_pack", "version"): _("this pack was made by another version: this installation reads version %(version)s"),
    ("bad_pack", "required"): _("a pack needs its %(field)s"),
    ("bad_pack", "assignment"): _("the packs and the events must be distinct, with no more events than packs"),
    "bad_game_file": _("this is not a game that can be packed: %(detail)s"),
    "pack_altered": _("the pack was changed after the organiser signed it: ask the organiser for the file again"),
    "pack_untrusted": _("the pack is signed by a key this installation does not trust (fingerprint "
                        "%(fingerprint)s): check that fingerprint with the organiser by phone before trusting it"),
    "pack_wrong_lexicon": _("the pack's game is played with the word list %(lexicon)s, and this installation's "
                            "%(lexicon)s differs from it (SHA-256 %(sha256)s…): import the organiser's %(lexicon)s"),
    ("pack_wrong_lexicon", "missing"): _("the pack's game is played with the word list %(lexicon)s, which this "
                                         "installation does not hold: import %(lexicon)s"),
    "bad_pack_key": _("this is not a pack's key"),
    ("bad_pack_key", "characters"): _("a pack's key holds no %(characters)s: read the key again"),
    ("bad_pack_key", "length"): _("the key has %(count)s characters; a pack's key has %(size)s (7 groups of 4)"),
    "pack_key_check": _("the key is mistyped: its check does not match; read it again, group by group"),
    "wrong_pack_key": _("this key does not open this pack"),
    ("wrong_pack_key", "other_pack"): _("this key is for another pack (%(pack)s…)"),
    # A centre playing a pack (tournaments/centre.py, tournaments/services/sealed.py).
    "pack_fingerprint": _("the fingerprint typed (%(typed)s) is not the one of the key that signed the pack "
                          "(%(fingerprint)s): nothing was trusted"),
    "pack_settings": _("a game of this tournament has started with other settings than the pack's "
                       "(%(settings)s): import the pack into a new tournament"),
    "pack_none": _("this game is not played from a sealed pack"),
    "pack_unlocked": _("the pack is already unlocked"),
    "pack_locked": _("the pack is still locked: type or scan its key first"),
    "pack_master": _("the master is the pack's: it cannot be changed"),
    "pack_sequence": _("the racks are the pack's: the game's sequence cannot change"),
    ("pack_sequence", "typed"): _("the racks are the pack's: no rack can be typed, draw the next one"),
    ("pack_sequence", "rejected"): _("the racks are the pack's: its rejected draws are already recorded"),
    ("pack_sequence", "fix"): _("the racks are the pack's: a rack cannot be replaced (cancel the round to "
                                "draw it again)"),
    ("pack_sequence", "bag"): _("the pack's rack of round %(round)s is not in this game's bag: the game no "
                                "longer follows the pack"),
    ("game_over", "pack_end"): _("the pack's game has no more rounds: the game is over"),
}
