"""Admin pages for looking into an event. Changes go through the services (console and API); the log is
read-only."""

from django.contrib import admin

from tournaments.models import Game, Lexicon, LogEntry, Player, Result, Round, Slip, Tournament


@admin.register(Lexicon)
class LexiconAdmin(admin.ModelAdmin):
    list_display = ["name", "tileset", "word_count", "imported", "sha256"]
    exclude = ["words"]


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "lexicon", "tileset", "ruleset", "round_seconds", "coordinates", "created_at"]


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["tournament", "number", "status", "join_code", "seed", "created_at"]
    list_filter = ["status"]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "tournament", "first_game", "table", "series", "arrival_round"]
    exclude = ["token_hash"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["game", "number", "status", "rack", "top_score", "deadline"]
    list_filter = ["status"]


@admin.register(Slip)
class SlipAdmin(admin.ModelAdmin):
    list_display = ["round", "player", "word", "ref", "claimed", "received_at", "current"]


@admin.register(Result)
class ResultAdmin(admin.ModelAdmin):
    list_display = ["round", "player", "paid", "outcome", "reason", "corrected"]


@admin.register(LogEntry)
class LogEntryAdmin(admin.ModelAdmin):
    list_display = ["at", "game", "round", "action", "actor", "reason"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
