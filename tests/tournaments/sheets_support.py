"""Fixtures shared by the sheets and exports tests (imported by test_sheets*.py and test_exports*.py).

``played_game`` plays a short game through the services with players whose names need more than ASCII:
a typed first rack, random racks after it, tops, a master the arbitrator picks among the tied tops, a wrong score, a reversed reference, a missing slip, a
late arrival, a correction with its reason, and the end of the game.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.utils import timezone

from engine.board import Board
from engine.movegen import generate_plays
from engine.notation import format_ref
from tournaments import services
from tournaments.lexicons import get_lexicon
from tournaments.models import Game, LateSlip, LogEntry, Player, Result, Round, Slip

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

ZOE, LUKASZ, JEAN, ANNA, PAUL = "Zoé Lefèvre", "Łukasz Żmuda", 'Jean "Le Roi" Dupont', "Анна Петрова", "Paul Martin"
FIRST_RACK = "AEINRST"
ROUNDS = 4


def pdf_text(pdf: bytes, tmp_path: Path, name: str = "sheet") -> str:
    """The text of a PDF as ``pdftotext -layout`` reads it."""
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(pdf)
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True,
                          text=True).stdout


def pdf_pages(pdf: bytes, tmp_path: Path, name: str = "sheet") -> int:
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(pdf)
    info = subprocess.run(["pdfinfo", str(path)], check=True, capture_output=True, text=True).stdout
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


def screenshot(pdf: bytes, name: str, page: int = 1) -> Path:
    """A PNG of one page at 60 dpi in test-artifacts/, to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    source = ARTIFACTS / f"{name}.pdf"
    source.write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", str(page), "-l", str(page), "-singlefile", str(source),
                    str(ARTIFACTS / name)], check=True)
    return ARTIFACTS / f"{name}.png"


@dataclass
class PlayedGame:
    game: Game
    players: dict[str, Player]
    tokens: dict[str, str]
    masters: list[dict] = field(default_factory=list)  # per round: the master as stored (word, ref, score)


def _plays(round: Round) -> list:
    tournament = round.game.tournament
    plays = generate_plays(Board.from_rows(round.board), round.rack, get_lexicon(tournament.lexicon),
                           tournament.tiles, tournament.rules)
    return sorted(plays, key=lambda play: (-play.score, play.word, play.row, play.col, play.horizontal))


def _ref(play, labelling: str, reversed_: bool = False) -> str:
    return format_ref(play.row, play.col, play.horizontal != reversed_, labelling)


def play_game(tournament, arbitrator, *, seed: int = 7, rounds: int = ROUNDS, end: bool = True,
              change_master: bool = True) -> PlayedGame:
    game = services.game_create(tournament=tournament, seed=seed)
    labelling = tournament.coordinates
    # Players of the tournament's earlier games take part in this one too.
    players = {p.name: p for p in Player.objects.filter(tournament=tournament)}
    tokens = {}
    for name, table in ((ZOE, 1), (LUKASZ, 2), (JEAN, 3), (ANNA, None)):
        if name not in players:
            players[name], tokens[name] = services.player_register(game=game, name=name, table=table,
                                                                   series="2" if table == 2 else "")
    played = PlayedGame(game, players, tokens)
    start = timezone.now() - timedelta(hours=2)
    for number in range(1, rounds + 1):
        if number == 2 and PAUL not in players:
            players[PAUL], tokens[PAUL] = services.player_register(game=game, name=PAUL, table=5)
        round = services.round_draw(game=game, rack=FIRST_RACK if number == 1 else None, actor=arbitrator)
        opened = start + timedelta(minutes=5 * number)
        round = services.round_start(round=round, actor=arbitrator, now=opened)
        round = services.round_compute_tops(round=round)
        plays = _plays(round)
        top, other = plays[0], next(p for p in plays if p.score < plays[0].score)
        received = opened + timedelta(seconds=30)

        def hand_in(name, word, ref, score, key, round=round, received=received):
            services.slip_submit(round=round, player=players[name], word=word, ref=ref, score=score, key=key,
                                 now=received)

        master = round.master
        hand_in(ZOE, master["word"], master["ref"], master["score"], f"z{number}")
        hand_in(LUKASZ, other.word, _ref(other, labelling), other.score + (3 if number == 2 else 0), f"l{number}")
        if number == 3:
            hand_in(JEAN, top.word, _ref(top, labelling, reversed_=True), top.score, f"j{number}")
        else:
            hand_in(JEAN, other.word, _ref(other, labelling), other.score, f"j{number}")
        if number != 2:
            hand_in(ANNA, other.word, _ref(other, labelling), other.score, f"a{number}")
        if number >= 2:
            hand_in(PAUL, other.word, _ref(other, labelling), other.score, f"p{number}")
        services.round_close(round=round, actor=arbitrator, now=opened + timedelta(seconds=200))
        round.refresh_from_db()
        if number == 1 and change_master:
            other_top = next(t for t in round.tops if (t["word"], t["ref"]) != (master["word"], master["ref"]))
            round = services.round_choose_master(round=round, word=other_top["word"], ref=other_top["ref"],
                                                 actor=arbitrator)
        played.masters.append(round.master)
        if number == 2:
            slip = Slip.objects.get(round=round, player=players[LUKASZ], current=True)
            services.slip_correct(slip=slip, reason="score misread from the paper slip", actor=arbitrator,
                                  score=other.score)
    if end:
        services.game_end(game=game, actor=arbitrator)
    game.refresh_from_db()
    return played


# The models of a played game, parents first, and the fields that name the tournament or the arbitrator.
_SAVED_MODELS = (Game, Player, Round, Slip, LateSlip, Result, LogEntry)
_TOURNAMENT_FIELDS = ("tournament_id",)
_ARBITRATOR_FIELDS = ("created_by_id", "entered_by_id", "actor_id")


def save_played_game(played: PlayedGame, tournament, arbitrator) -> dict:
    """Copies of a played game's rows (every field, primary keys included), to load into a later test."""
    game = played.game
    rows = {}
    for model in _SAVED_MODELS:
        rows[model] = [
            {f.attname: getattr(obj, f.attname) for f in model._meta.concrete_fields}
            for obj in (model.objects.filter(pk=game.pk) if model is Game else _of_game(model, game)).order_by("pk")
        ]
    return {
        "rows": rows, "tournament": tournament.pk, "arbitrator": arbitrator.pk, "game": game.pk,
        "players": {name: player.pk for name, player in played.players.items()},
        "tokens": dict(played.tokens), "masters": [dict(master) for master in played.masters],
    }


def _of_game(model, game):
    if model is Player:
        return Player.objects.filter(first_game=game)
    if model is Round or model is LogEntry:
        return model.objects.filter(game=game)
    return model.objects.filter(round__game=game)


def load_played_game(saved: dict, tournament, arbitrator) -> PlayedGame:
    """The saved rows inserted again, their tournament and arbitrator those of the present test."""
    for model, rows in saved["rows"].items():
        objects = []
        for row in rows:
            row = dict(row)
            for name in _TOURNAMENT_FIELDS:
                if row.get(name) == saved["tournament"]:
                    row[name] = tournament.pk
            for name in _ARBITRATOR_FIELDS:
                if name in row and row[name] == saved["arbitrator"]:
                    row[name] = arbitrator.pk
            objects.append(model(**row))
        model.objects.bulk_create(objects)
    game = Game.objects.get(pk=saved["game"])
    players = {name: Player.objects.get(pk=pk) for name, pk in saved["players"].items()}
    return PlayedGame(game, players, dict(saved["tokens"]), [dict(master) for master in saved["masters"]])
