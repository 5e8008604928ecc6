"""The federation's identity of a player: licence number, club, series, age category, date of birth.

The federation's lists (its series, its age categories with their bounds, its season and reference date) are
data: tournaments/data/federation.toml, or the file the setting ARBITER_FEDERATION_FILE names. Every field is
optional; what is given is checked here and refused with a code of tournaments/licensee_refusals.py.

A category is kept as given. When only the date of birth is given, the category is derived from it: the
player's age in whole years on the season's reference date (the setting ARBITER_FEDERATION_REFERENCE_DATE, or
the data's rule: the first reference day on or after the start of the season the game is played in), and the
last category whose ``min_age`` that age reaches.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings

from tournaments.errors import ServiceError
from tournaments.limits import BIRTH_YEAR_MIN, CATEGORY_MAX, CLUB_MAX, LICENCE_MAX, SERIES_MAX
from tournaments.names import clean_name

DEFAULT_FILE = Path(__file__).resolve().parent / "data" / "federation.toml"
LICENCE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?")
# The ways a date of birth is written: ISO (1960-03-14) and the French day first (14/03/1960, 14.03.1960).
DATE_FORMATS = ("%Y-%m-%d", "%d/%m/%Y", "%d.%m.%Y", "%d-%m-%Y")


@dataclass(frozen=True)
class Federation:
    name: str
    series: tuple[str, ...]  # the codes, in the file's order
    categories: tuple[tuple[str, int], ...]  # (code, min_age), youngest first
    aliases: dict  # ("series" | "category", folded text) -> code
    season_start: tuple[int, int]  # (month, day)
    reference: tuple[int, int]


def _fold(text: str) -> str:
    return "".join(clean_name(text).split()).casefold()


def _month_day(text: str) -> tuple[int, int]:
    month, day = (int(part) for part in text.split("-"))
    dt.date(2000, month, day)  # a real day (29 February included)
    return month, day


@lru_cache(maxsize=4)
def _load(path: str) -> Federation:
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    aliases = {}
    for kind, entries in (("series", data["series"]), ("category", data["categories"])):
        for entry in entries:
            for text in (entry["code"], *entry.get("aliases", ())):
                aliases[(kind, _fold(text))] = entry["code"]
    categories = tuple((entry["code"], int(entry["min_age"])) for entry in data["categories"])
    if [age for _, age in categories] != sorted(age for _, age in categories):
        raise ValueError(f"{path}: the categories are listed youngest first")
    return Federation(
        name=data.get("federation", ""),
        series=tuple(entry["code"] for entry in data["series"]),
        categories=categories,
        aliases=aliases,
        season_start=_month_day(data["season"]["season_start"]),
        reference=_month_day(data["season"]["reference"]),
    )


def federation() -> Federation:
    return _load(str(getattr(settings, "ARBITER_FEDERATION_FILE", "") or DEFAULT_FILE))


def reference_date(on: dt.date) -> dt.date:
    """The reference date of the season ``on`` falls in: the setting, else the data's rule."""
    fixed = getattr(settings, "ARBITER_FEDERATION_REFERENCE_DATE", "")
    if fixed:
        return dt.date.fromisoformat(str(fixed))
    fed = federation()
    start_year = on.year if (on.month, on.day) >= fed.season_start else on.year - 1
    day = dt.date(start_year, *fed.reference)
    if day < dt.date(start_year, *fed.season_start):
        day = dt.date(start_year + 1, *fed.reference)
    return day


def age_on(birth_date: dt.date, day: dt.date) -> int:
    return day.year - birth_date.year - ((day.month, day.day) < (birth_date.month, birth_date.day))


def category_for(birth_date: dt.date, on: dt.date) -> str:
    """The age category of a player born on ``birth_date``, for a game played on ``on``."""
    age = age_on(birth_date, reference_date(on))
    found = ""
    for code, min_age in federation().categories:
        if age >= min_age:
            found = code
    return found


def _choices(codes) -> str:
    return ", ".join(codes)


def series_code(value) -> str:
    """The series' code ('' for none); refused (``bad_series``) when it is not in the federation's list."""
    text = clean_name(value)
    if not text:
        return ""
    fed = federation()
    code = fed.aliases.get(("series", _fold(text)))
    if code is None:
        raise ServiceError("bad_series", fields={"series": ["not in the federation's list"]},
                           params={"series": text[:SERIES_MAX * 2], "choices": _choices(fed.series)})
    return code


def category_code(value) -> str:
    text = clean_name(value)
    if not text:
        return ""
    fed = federation()
    code = fed.aliases.get(("category", _fold(text)))
    if code is None or len(code) > CATEGORY_MAX:
        raise ServiceError("bad_category", fields={"category": ["not in the federation's list"]},
                           params={"category": text[:CATEGORY_MAX * 2],
                                   "choices": _choices(code for code, _ in fed.categories)})
    return code


def licence_number(value) -> str:
    text = clean_name(value).replace(" ", "")
    if not text:
        return ""
    if len(text) > LICENCE_MAX or not LICENCE.fullmatch(text):
        raise ServiceError("bad_licence", fields={"licence": ["letters, digits and hyphens"]},
                           params={"licence": text[:LICENCE_MAX * 2], "max": LICENCE_MAX})
    return text.upper()


def club_name(value) -> str:
    text = clean_name(value)
    if len(text) > CLUB_MAX:
        raise ServiceError("club_too_long", fields={"club": ["too long"]}, params={"max": CLUB_MAX})
    return text


def birth_date_of(value, today: dt.date) -> dt.date | None:
    """A date of birth (a date, or text in ISO or day-first form); refused when unreadable, in the future or
    before BIRTH_YEAR_MIN."""
    if value in (None, ""):
        return None
    if isinstance(value, dt.datetime):
        value = value.date()
    if not isinstance(value, dt.date):
        text = clean_name(value)
        if not text:
            return None
        for form in DATE_FORMATS:
            try:
                value = dt.datetime.strptime(text, form).date()  # noqa: DTZ007 (a day, no time)
                break
            except ValueError:
                continue
        else:
            raise ServiceError("bad_birth_date", fields={"birth_date": ["not a date"]},
                               params={"why": "shape", "text": text[:40]})
    if value > today:
        raise ServiceError("bad_birth_date", fields={"birth_date": ["in the future"]},
                           params={"why": "future", "date": value.isoformat()})
    if value.year < BIRTH_YEAR_MIN:
        raise ServiceError("bad_birth_date", fields={"birth_date": ["too early"]},
                           params={"why": "too_early", "date": value.isoformat(), "year": BIRTH_YEAR_MIN})
    return value


def identity(*, licence="", club="", series="", category="", birth_date=None, today: dt.date) -> dict:
    """The identity as stored: each field checked (the first refused raises), the category derived from the
    date of birth when only that is given."""
    born = birth_date_of(birth_date, today)
    found = {
        "licence": licence_number(licence),
        "club": club_name(club),
        "series": series_code(series),
        "category": category_code(category),
        "birth_date": born,
    }
    if not found["category"] and born is not None:
        found["category"] = category_for(born, today)
    return found
