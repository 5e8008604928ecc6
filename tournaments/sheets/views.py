"""Printable sheets and exports over HTTP: a game's for the arbitrators with a role in it (head or assistant),
a tournament's for those with a role in one of its games; importing a record into a tournament for its heads
(services.roles), by token or console session.

Views stay thin: find the game, read through ``sources``/selectors, render, answer with the file. Errors
leave as ServiceError, which the API's exception handler turns into the contract's error shape.
"""

from __future__ import annotations

import json

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments import selectors
from tournaments.api.parsers import TooDeep, load_json
from tournaments.api.permissions import (
    IsArbitrator,
    IsGameArbitrator,
    IsTournamentArbitrator,
    IsTournamentHead,
    ScopedUrl,
)
from tournaments.api.serializers import ErrorSerializer
from tournaments.errors import NotFound, ServiceError
from tournaments.exports import export_record, restore_record, results_file, standings_csv
from tournaments.exports.imports import inline_bytes, job_body, queue_import
from tournaments.exports.restore import check_record, check_seal
from tournaments.models import Game, Player, RecordImport, Tournament

from . import sources
from .record import render_record
from .scoresheet import render_scoresheet, render_scoresheets
from .standings import render_standings

MAX_RECORD_BYTES = 32 * 1024 * 1024

_ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Not a game record this server can play back"),
    401: OpenApiResponse(ErrorSerializer, description="No or unknown credentials"),
    403: OpenApiResponse(ErrorSerializer, description="No arbitrator's role in this game or tournament"),
    404: OpenApiResponse(ErrorSerializer, description="No such game, player or tournament"),
    409: OpenApiResponse(
        ErrorSerializer, description="The tournament judges differently, or a step was refused"
    ),
    413: OpenApiResponse(ErrorSerializer, description="The record is too large"),
}


def _file_schema(operation_id: str, media_type: str, description: str, *errors: int, chained: bool = False):
    responses = {(200, media_type): OpenApiResponse(OpenApiTypes.BINARY, description=description)}
    responses.update({code: _ERRORS[code] for code in (401, 403, 404, *errors)})
    parameters = [OpenApiParameter(
        "Arbiter-Chain", OpenApiTypes.STR, OpenApiParameter.HEADER, response=[200],
        description="The game's log chain head when the file was made (chain GAME/SEQ/HASH); the file's name "
        "carries it too (...-chain-GAME-SEQ-HASH.ext), for manage.py verifylog --held.")] if chained else []
    return extend_schema(operation_id=operation_id, responses=responses, parameters=parameters,
                         tags=["sheets and exports"])


class FilesFirstNegotiation(BaseContentNegotiation):
    """The answer is a file whatever the Accept header says; errors are JSON (the first renderer)."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class RecordParser(BaseParser):
    """A game record is far larger than the API's other bodies: its own, larger, cap (read from the stream,
    not through Django's request.body and its DATA_UPLOAD_MAX_MEMORY_SIZE; arbiter/bodies.py lets a record
    of this size through)."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read(MAX_RECORD_BYTES + 1) if stream is not None else b""
        if len(raw) > MAX_RECORD_BYTES:
            raise ServiceError("too_large", status=413, params={"max": MAX_RECORD_BYTES, "why": "record"})
        if parser_context and parser_context.get("request") is not None:
            parser_context["request"].record_bytes = len(raw)  # a large record is played back by the worker
        try:
            return load_json(raw.decode("utf-8"))
        except TooDeep as error:
            raise ServiceError("too_deep", str(error)) from None
        except (ValueError, UnicodeDecodeError) as error:
            raise ServiceError("malformed", params={"detail": str(error), "why": "body"}) from None


def _game(game_id: int) -> Game:
    game = Game.objects.select_related("tournament").filter(pk=game_id).first()
    if game is None:
        raise NotFound("not_found", params={"game": game_id, "why": "game"})
    return game


def _tournament(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound("not_found", params={"tournament": tournament_id, "why": "tournament"})
    return tournament


def _file(
    content: bytes | str, content_type: str, filename: str, *, attachment: bool = False
) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    disposition = "attachment" if attachment else "inline"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


CHAIN_HEADER = "Arbiter-Chain"


def _chained_file(content: bytes, content_type: str, stem: str, suffix: str, game: Game) -> HttpResponse:
    """A file whose format has no room for the log chain's head (the standings CSV, the federation's results
    file: other software reads every line of them): the head after what it shows goes in its name
    (``STEM-chain-GAME-SEQ-HASH.SUFFIX``, which ``manage.py verifylog --held`` reads) and in the
    ``Arbiter-Chain`` header (``chain GAME/SEQ/HASH``), for scripts; the content is unchanged."""
    from tournaments.logchain import head_text, name_head_text

    head = selectors.log_head(game.pk)
    response = _file(content, content_type, f"{stem}-{name_head_text(game.pk, *head)}{suffix}", attachment=True)
    response[CHAIN_HEADER] = head_text(game.pk, *head)
    return response


def _pdf(content: bytes, filename: str) -> HttpResponse:
    return _file(content, "application/pdf", filename)


class ArbitratorFileView(ScopedUrl, APIView):
    """A file of one game, for its arbitrators."""

    permission_classes = [IsGameArbitrator]
    content_negotiation_class = FilesFirstNegotiation


class TournamentFileView(ArbitratorFileView):
    """A file of a tournament, for the arbitrators with a role in one of its games."""

    permission_classes = [IsTournamentArbitrator]


class GameStandingsPdfView(ArbitratorFileView):
    @_file_schema("game_standings_pdf", "application/pdf", "The game's standings, A4")
    def get(self, request, game_id: int):
        game = _game(game_id)
        return _pdf(render_standings(sources.game_standings_sheet(game)), f"standings-game-{game.pk}.pdf")


class GameRecordPdfView(ArbitratorFileView):
    @_file_schema(
        "game_record_pdf", "application/pdf", "The game record: rounds, masters and the final board"
    )
    def get(self, request, game_id: int):
        game = _game(game_id)
        return _pdf(render_record(sources.game_record_sheet(game)), f"record-game-{game.pk}.pdf")


class GameScoresheetsPdfView(ArbitratorFileView):
    @_file_schema(
        "game_scoresheets_pdf", "application/pdf", "Every player's scoresheet, one player per page", 409
    )
    def get(self, request, game_id: int):
        game = _game(game_id)
        sheets = sources.scoresheets_for(game)
        if not sheets:
            raise ServiceError("no_players", status=409)
        return _pdf(render_scoresheets(sheets), f"scoresheets-game-{game.pk}.pdf")


class PlayerScoresheetPdfView(ArbitratorFileView):
    @_file_schema("player_scoresheet_pdf", "application/pdf", "One player's scoresheet")
    def get(self, request, game_id: int, player_id: int):
        game = _game(game_id)
        player = Player.objects.in_game(game).filter(pk=player_id).first()
        if player is None:
            raise NotFound("not_found", params={"player": player_id, "game": game.pk, "why": "player"})
        sheet = sources.scoresheet_for(game, player)
        return _pdf(render_scoresheet(sheet), f"scoresheet-game-{game.pk}-player-{player.pk}.pdf")


class TournamentStandingsPdfView(TournamentFileView):
    @_file_schema(
        "tournament_standings_pdf", "application/pdf", "The tournament's standings, one column per game"
    )
    def get(self, request, tournament_id: int):
        tournament = _tournament(tournament_id)
        sheet = sources.tournament_standings_sheet(tournament)
        return _pdf(render_standings(sheet), f"standings-tournament-{tournament.pk}.pdf")


class StandingsCsvView(ArbitratorFileView):
    @_file_schema("game_standings_csv", "text/csv", "The standings as CSV (UTF-8)", chained=True)
    def get(self, request, game_id: int):
        game = _game(game_id)
        born = selectors.birth_dates(game)
        rows = [{**row, "birth_date": born.get(row["player"], "")} for row in selectors.game_standings(game=game)]
        body = standings_csv(rows)
        return _chained_file(body.encode("utf-8"), "text/csv; charset=utf-8", f"standings-game-{game.pk}", ".csv",
                             game)


class ResultsFileView(ArbitratorFileView):
    @_file_schema("game_results_file", "text/plain", "The federation results file (Latin-1)", chained=True)
    def get(self, request, game_id: int):
        game = _game(game_id)
        body = results_file(selectors.game_standings(game=game))
        return _chained_file(body, "text/plain; charset=iso-8859-1", f"results-game-{game.pk}", ".txt", game)


class RecordJsonView(ArbitratorFileView):
    @extend_schema(
        operation_id="game_record_json",
        tags=["sheets and exports"],
        responses={
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="The complete game record (a JSON object, given as a file to download), for "
                "restoring with POST /api/tournaments/{id}/imports/record",
            ),
            **{code: _ERRORS[code] for code in (401, 403, 404)},
        },
    )
    def get(self, request, game_id: int):
        game = _game(game_id)
        body = json.dumps(export_record(game), ensure_ascii=False, indent=1)
        return _file(body.encode("utf-8"), "application/json", f"record-game-{game.pk}.json", attachment=True)


class RecordImportView(APIView):
    """POST a game record: it is played back as a new game of this tournament (by one of its heads)."""

    permission_classes = [IsTournamentHead]
    parser_classes = [RecordParser]

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={
            201: OpenApiResponse(OpenApiTypes.OBJECT, description="Played back at once: the new game "
                                 "(tournament, game, number, status, rounds, players, record_seal)"),
            202: OpenApiResponse(OpenApiTypes.OBJECT, description="A record above ARBITER_RECORD_INLINE_BYTES: "
                                 "checked, kept and queued for the worker; follow GET /api/imports/{id} (url)"),
            **{code: _ERRORS[code] for code in (400, 401, 403, 404, 409, 413)},
        },
        tags=["sheets and exports"],
        operation_id="tournament_import_record",
        description="Play a game record (GET .../exports/record.json) back as a new game of this tournament. "
        "Its shape and seal are checked first (400 bad_record, bad_seed, bad_seal: nothing imported). A record "
        "larger than ARBITER_RECORD_INLINE_BYTES is played back by the worker: 202 with the job to follow.",
    )
    def post(self, request, tournament_id: int):
        tournament = _tournament(tournament_id)
        record = request.data
        check_record(record)
        check_seal(record)
        size = getattr(request, "record_bytes", None) or int(request.META.get("CONTENT_LENGTH") or 0)
        if size > inline_bytes():
            job = queue_import(record=record, tournament=tournament, actor=request.user, size=size)
            return Response(job_body(job), status=202, headers={"Location": f"/api/imports/{job.pk}"})
        game = restore_record(record=record, tournament=tournament, actor=request.user)
        return Response(
            {
                "tournament": tournament.pk,
                "game": game.pk,
                "number": game.number,
                "status": game.status,
                "rounds": game.rounds.filter(status="closed").count(),
                "players": Player.objects.in_game(game).count(),
                "record_seal": game.record_seal,
            },
            status=201,
        )


class RecordImportJobView(APIView):
    """A record played back by the worker: its progress, then the game made or the refusal. Seen by the
    arbitrator who sent it (and superusers); anyone else is told there is no such import."""

    permission_classes = [IsArbitrator]

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, **{code: _ERRORS[code] for code in (401, 403, 404)}},
        tags=["sheets and exports"],
        operation_id="record_import_job",
        description="status queued, running, done (game: the new game's id) or refused (error: code, message, "
        "fields, as the import's own refusal); players and rounds: done of total.",
    )
    def get(self, request, job_id):
        job = RecordImport.objects.select_related("game").defer("record").filter(pk=job_id).first()
        if job is None or not (job.actor_id == request.user.pk or request.user.is_superuser):
            raise NotFound("import_not_found", params={"job": job_id})
        return Response(job_body(job))
