"""A centre's players from the federation's file of licensees (CSV): one player per licence number.

The file names its columns in its first line (licence, name, club, series, category, birth date: English or
French names, any order; a first name column is put before the name), separated by ``;`` or ``,``, in UTF-8
(with or without its byte order mark) or Latin-1 (Windows-1252), what a federation's export gives. Every row is
checked before anything changes: a file with any bad row is refused as a whole (``bad_licensees``, with each
bad row's number and reason) and nothing is registered. A licence number twice in the file is a bad row.

A licensee already registered in the tournament (found by licence number) is updated where the file says
otherwise, and left alone when it says the same: importing the same file again changes nothing.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.federation import identity
from tournaments.limits import LICENSEES_BYTES_MAX, LICENSEES_ROWS_MAX, PLAYER_NAME_MAX
from tournaments.models import Game, Player
from tournaments.scoping import player_game
from tournaments.versions import notify_game_changed

from .logbook import log
from .roles import act_as, require_arbitrator
from .setup import _clean_name, player_register

# Each field and the header names that mean it, compared without accents, case, spaces and signs.
COLUMNS = {
    "licence": ("licence", "license", "licencenumber", "licensenumber", "numerodelicence", "numerolicence",
                "nlicence", "nolicence", "numlicence", "licenceno", "licence"),
    "name": ("name", "nom", "lastname", "surname", "nomdefamille", "fullname", "nomcomplet"),
    "first_name": ("firstname", "prenom", "givenname"),
    "club": ("club", "clubname", "nomduclub"),
    "series": ("series", "serie"),
    "category": ("category", "categorie", "agecategory", "cat"),
    "birth_date": ("birthdate", "dateofbirth", "datedenaissance", "naissance", "born", "ddn"),
}
REQUIRED = ("licence", "name")
FIELDS = ("name", "club", "series", "category", "birth_date")


class LicenseesRefused(ServiceError):
    """The file refused as a whole: ``rows`` holds (row number, the row's refusal) for each bad row."""

    def __init__(self, rows: list[tuple[int, ServiceError]]):
        self.rows = rows
        super().__init__("bad_licensees", params={"why": "rows", "count": len(rows)},
                         fields={"rows": [f"row {number}: {error.message}" for number, error in rows]})


@dataclass
class LicenseesImported:
    registered: list[Player] = field(default_factory=list)
    updated: list[Player] = field(default_factory=list)
    unchanged: int = 0


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(ch for ch in text if ch.isalnum())


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def read_licensees(data: bytes) -> list[tuple[int, dict]]:
    """The file's rows as (row number, {field: text}); the header is row 1. Refused when the file cannot be
    read as a whole (too large, no header, a missing column)."""
    if len(data) > LICENSEES_BYTES_MAX:
        raise ServiceError("bad_licensees", params={"why": "too_large", "max": LICENSEES_BYTES_MAX})
    text = _decode(data)
    lines = text.splitlines()
    header_line = next((line for line in lines if line.strip()), "")
    if not header_line:
        raise ServiceError("bad_licensees", params={"why": "empty"})
    separator = ";" if header_line.count(";") >= header_line.count(",") else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator)
    header = next(reader)
    while not any(cell.strip() for cell in header):
        header = next(reader)
    names = {alias: name for name, aliases in COLUMNS.items() for alias in aliases}
    columns = [names.get(_fold(cell)) for cell in header]
    missing = [name for name in REQUIRED if name not in columns]
    if missing:
        raise ServiceError("bad_licensees", params={"why": "header", "missing": ", ".join(missing)})
    rows = []
    for cells in reader:
        number = reader.line_num
        if not any(cell.strip() for cell in cells):
            continue
        if len(rows) >= LICENSEES_ROWS_MAX:
            raise ServiceError("bad_licensees", params={"why": "too_many_rows", "max": LICENSEES_ROWS_MAX})
        if len(cells) > len(header) and any(cell.strip() for cell in cells[len(header):]):
            raise ServiceError("bad_licensees", params={"why": "columns", "row": number, "count": len(cells),
                                                        "expected": len(header)})
        row = {}
        for column, cell in zip(columns, cells, strict=False):
            if column is not None:
                row[column] = cell.strip()
        if row.get("first_name"):
            row["name"] = f"{row['first_name']} {row.get('name', '')}".strip()
        rows.append((number, row))
    return rows


def _checked(rows: list[tuple[int, dict]]) -> list[tuple[int, dict]]:
    """Each row as it would be stored; every bad row refused at once (LicenseesRefused)."""
    today = timezone.localdate()
    good, bad, first_row = [], [], {}
    for number, row in rows:
        try:
            name = _clean_name(row.get("name", ""), "name", PLAYER_NAME_MAX)
            found = identity(licence=row.get("licence", ""), club=row.get("club", ""),
                             series=row.get("series", ""), category=row.get("category", ""),
                             birth_date=row.get("birth_date") or None, today=today)
            if not found["licence"]:
                raise ServiceError("licence_required", fields={"licence": ["required"]})
            if found["licence"] in first_row:
                raise ServiceError("licence_repeated", fields={"licence": ["repeated"]},
                                   params={"licence": found["licence"], "first": first_row[found["licence"]]})
        except ServiceError as error:
            bad.append((number, error))
            continue
        first_row[found["licence"]] = number
        good.append((number, {"name": name, **found}))
    if bad:
        raise LicenseesRefused(bad)
    return good


def licensees_import(*, game: Game, data: bytes, actor=None) -> LicenseesImported:
    """Register the file's licensees in ``game`` (see the module's text); ``actor``: the arbitrator."""
    if actor is not None:
        require_arbitrator(game.pk, actor)
    rows = _checked(read_licensees(data))
    done = LicenseesImported()
    touched: set[int] = set()
    with transaction.atomic():
        held = {p.licence: p for p in Player.objects.select_for_update().filter(
            tournament_id=game.tournament_id, licence__in=[row["licence"] for _, row in rows])}
        for _, row in rows:
            player = held.get(row["licence"])
            if player is None:
                player, _token = player_register(game=game, actor=actor, **row)
                done.registered.append(player)
                continue
            changes = {key: row[key] for key in FIELDS if getattr(player, key) != row[key]}
            if not changes:
                done.unchanged += 1
                continue
            # Their details are theirs in every game they play: changed as in their own game (its role, its
            # log), whichever game the file is imported in.
            own = player_game(player)
            act_as(require_arbitrator, own.pk, actor)
            before = {key: _logged(getattr(player, key)) for key in changes}
            for key, value in changes.items():
                setattr(player, key, value)
            player.save(update_fields=list(changes))
            log(game=own, action="player_update", player=player, actor=actor, by="server",
                before=before, after={key: _logged(value) for key, value in changes.items()})
            done.updated.append(player)
            touched.add(own.pk)
        for game_id in sorted(touched | ({game.pk} if done.updated else set())):
            transaction.on_commit(lambda game_id=game_id: notify_game_changed(game_id))
    return done


def _logged(value):
    return value.isoformat() if hasattr(value, "isoformat") else value
