"""Admin pages for looking into an event, read-only for everything a game is made of.

Tournaments, games, players, rounds, slips, late slips, results, arbitrators' roles and the log change only
through the services (console and API), which check the caller's role and write each change to the
arbitration log: an edit here would change a total with no entry saying who did it and why. The admin
shows them and refuses to add, change or delete them, even for a superuser (403). Lexicons stay editable:
a word list is not game data (a tournament keeps the SHA-256 of the one it was played with).
"""

from django.contrib import admin

from tournaments.models import (
    Game,
    GameArbitrator,
    LateSlip,
    Lexicon,
    LogEntry,
    Player,
    Result,
    Round,
    Slip,
    Tournament,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shows the rows; no add, change or delete, whoever asks."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Lexicon)
class LexiconAdmin(admin.ModelAdmin):
    list_display = ["name", "tileset", "word_count", "imported", "sha256"]
    exclude = ["words"]


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ["name", "lexicon", "tileset", "ruleset", "round_seconds", "coordinates", "created_at"]


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = ["tournament", "number", "status", "created_at"]
    list_filter = ["status"]
    exclude = ["join_code", "screen_key", "seed", "bag", "kept"]  # secrets while the game is played


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    list_display = ["name", "tournament", "first_game", "table", "series", "licence", "club", "category", "arrival_round"]
    search_fields = ["name", "licence", "club"]
    exclude = ["token_hash"]


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ["game", "number", "status", "deadline"]
    list_filter = ["status"]
    exclude = ["rack", "kept", "drawn", "bag_after", "tops", "top_score", "master"]  # an open round's secrets


@admin.register(Slip)
class SlipAdmin(ReadOnlyAdmin):
    list_display = ["round", "player", "received_at", "current"]
    exclude = ["word", "ref", "claimed", "key"]  # an open round's slips stay unseen


@admin.register(LateSlip)
class LateSlipAdmin(ReadOnlyAdmin):
    list_display = ["round", "player", "received_at", "late_by", "admitted"]
    exclude = ["word", "ref", "claimed", "key"]


@admin.register(Result)
class ResultAdmin(ReadOnlyAdmin):
    list_display = ["round", "player", "paid", "outcome", "reason", "corrected"]


@admin.register(GameArbitrator)
class GameArbitratorAdmin(ReadOnlyAdmin):
    list_display = ["game", "user", "role", "created_at"]


@admin.register(LogEntry)
class LogEntryAdmin(ReadOnlyAdmin):
    list_display = ["at", "game", "seq", "round", "action", "actor", "reason"]
    exclude = ["before", "after"]  # a slip's word and the round's tops are in them
