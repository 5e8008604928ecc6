"""A centre imports its players from the federation's file of licensees (tournaments/services/licensees.py):
both separators, UTF-8 with its byte order mark and Latin-1; a file with bad rows refused as a whole with the
rows' numbers and reasons (nothing changes); a licence twice refused; importing again changes nothing; the
console's upload and the management command."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import GameArbitrator, LogEntry, Player

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("isolated_cache")]

ROWS = [
    ("Licence", "Nom", "Prénom", "Club", "Série", "Catégorie", "Date de naissance"),
    ("123456", "Dupré", "Hélène", "Vichy", "S2", "", "14/03/1950"),
    ("234567", "Lefèvre", "Zoë", "Nîmes", "5", "Junior", ""),
    ("345678", "Ngô", "Bảo", "Paris", "", "", "2015-09-01"),
]


def csv_bytes(rows, separator=";", encoding="utf-8", bom=False) -> bytes:
    text = "\r\n".join(separator.join(row) for row in rows) + "\r\n"
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode(encoding)


def stored(game) -> dict:
    return {p.licence: (p.name, p.club, p.series, p.category, p.birth_date)
            for p in Player.objects.filter(tournament_id=game.tournament_id)}


@pytest.fixture
def centre(make_game, arbitrator):
    game = make_game(created_by=arbitrator)
    GameArbitrator.objects.get_or_create(game=game, user=arbitrator, defaults={"role": "head"})
    return game


@pytest.mark.parametrize(("separator", "encoding", "bom"), [
    (";", "utf-8", False), (",", "utf-8", False), (";", "utf-8", True), (";", "latin-1", False),
])
def test_a_good_file_registers_every_licensee(centre, settings, separator, encoding, bom):
    settings.ARBITER_FEDERATION_REFERENCE_DATE = "2027-01-01"
    rows = ROWS if encoding == "utf-8" else [tuple(cell.replace("ả", "a").replace("ô", "o") for cell in row)
                                              for row in ROWS]
    done = services.licensees_import(game=centre, data=csv_bytes(rows, separator, encoding, bom))
    assert (len(done.registered), len(done.updated), done.unchanged) == (3, 0, 0)
    players = stored(centre)
    assert players["123456"] == ("Hélène Dupré", "Vichy", "2", "Diamant", dt.date(1950, 3, 14))
    assert players["234567"] == ("Zoë Lefèvre", "Nîmes", "5", "Junior", None)
    # Born 2015-09-01, 11 on 2027-01-01: Benjamin.
    assert players["345678"][2:] == ("", "Benjamin", dt.date(2015, 9, 1))


def test_english_column_names_in_any_order(centre):
    data = csv_bytes([("name", "birth date", "licence", "club"), ("Ann Lee", "1990-01-31", "A-77", "Leeds")], ",")
    services.licensees_import(game=centre, data=data)
    assert stored(centre) == {"A-77": ("Ann Lee", "Leeds", "", "Senior", dt.date(1990, 1, 31))}


def test_bad_rows_refuse_the_whole_file_with_their_numbers(centre):
    rows = [*ROWS,
            ("456789", "Faux", "Série", "Vichy", "S9", "", ""),  # row 5: no series 9
            ("567890", "", "", "Vichy", "", "", ""),  # row 6: no name
            ("678901", "Futur", "Né", "Vichy", "", "", "2999-01-01"),  # row 7: born in the future
            ("", "Sans", "Licence", "Vichy", "", "", ""),  # row 8: no licence
            ("789012", "Âge", "Inconnu", "Vichy", "", "Ancêtre", "")]  # row 9: no such category
    with pytest.raises(services.LicenseesRefused) as refused:
        services.licensees_import(game=centre, data=csv_bytes(rows))
    assert [(number, error.code) for number, error in refused.value.rows] == [
        (5, "bad_series"), (6, "name_required"), (7, "bad_birth_date"), (8, "licence_required"), (9, "bad_category")]
    assert refused.value.code == "bad_licensees" and refused.value.params["count"] == 5
    assert "row 5: S9 is not a series" in refused.value.fields["rows"][0]
    assert not Player.objects.filter(tournament_id=centre.tournament_id).exists()
    assert not LogEntry.objects.filter(game=centre).exists()


def test_a_licence_twice_in_the_file_is_refused(centre):
    rows = [*ROWS, ("234567", "Autre", "Zoë", "Nîmes", "", "", "")]
    with pytest.raises(services.LicenseesRefused) as refused:
        services.licensees_import(game=centre, data=csv_bytes(rows))
    [(number, error)] = refused.value.rows
    assert (number, error.code, error.params) == (5, "licence_repeated", {"licence": "234567", "first": 3})
    assert not Player.objects.exists()


def test_a_missing_column_is_refused(centre):
    with pytest.raises(ServiceError) as refused:
        services.licensees_import(game=centre, data=csv_bytes([("Nom", "Club"), ("Ann", "Leeds")]))
    assert (refused.value.code, refused.value.params["missing"]) == ("bad_licensees", "licence")


def test_importing_again_changes_nothing_and_a_change_updates_once(centre):
    data = csv_bytes(ROWS)
    services.licensees_import(game=centre, data=data)
    before, entries = stored(centre), LogEntry.objects.filter(game=centre).count()
    again = services.licensees_import(game=centre, data=data)
    assert (len(again.registered), len(again.updated), again.unchanged) == (0, 0, 3)
    assert stored(centre) == before
    assert LogEntry.objects.filter(game=centre).count() == entries
    assert Player.objects.filter(tournament_id=centre.tournament_id).count() == 3

    moved = [ROWS[0], ("123456", "Dupré", "Hélène", "Moulins", "S2", "", "14/03/1950"), *ROWS[2:]]
    changed = services.licensees_import(game=centre, data=csv_bytes(moved))
    assert ([p.licence for p in changed.updated], changed.unchanged) == (["123456"], 2)
    assert stored(centre)["123456"][1] == "Moulins"
    entry = LogEntry.objects.filter(game=centre, action="player_update").get()
    assert (entry.before, {k: v for k, v in entry.after.items() if k != "by"}) == (
        {"club": "Vichy"}, {"club": "Moulins"})
    again = services.licensees_import(game=centre, data=csv_bytes(moved))
    assert (len(again.updated), again.unchanged) == (0, 3)


def test_a_licence_registered_by_hand_is_updated_not_registered_twice(centre):
    services.player_register(game=centre, name="H. Dupré", licence="123456")
    done = services.licensees_import(game=centre, data=csv_bytes(ROWS))
    assert (len(done.registered), [p.licence for p in done.updated]) == (2, ["123456"])
    assert Player.objects.filter(licence="123456").get().name == "Hélène Dupré"


def test_the_console_uploads_a_file(console, centre):
    GameArbitrator.objects.get_or_create(game=centre, user=console.user, defaults={"role": "head"})
    url = reverse("console-licensees-import", args=[centre.pk])
    upload = SimpleUploadedFile("licencies.csv", csv_bytes(ROWS, bom=True), content_type="text/csv")
    response = console.post(url, {"file": upload}, follow=True)
    assert response.status_code == 200
    assert "3 registered, 0 updated, 0 unchanged" in response.content.decode()
    assert len(stored(centre)) == 3


def test_the_console_lists_the_bad_rows_in_french_and_registers_nobody(console, centre):
    GameArbitrator.objects.get_or_create(game=centre, user=console.user, defaults={"role": "head"})
    url = reverse("console-licensees-import", args=[centre.pk])
    rows = [*ROWS, ("456789", "Faux", "Série", "Vichy", "S9", "", "")]
    upload = SimpleUploadedFile("licencies.csv", csv_bytes(rows), content_type="text/csv")
    response = console.post(url, {"file": upload}, HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 400
    page = response.content.decode()
    assert "rien n’a été importé" in page
    assert "ligne 5\u00a0: S9 n’est pas une série" in page
    assert not Player.objects.filter(tournament_id=centre.tournament_id).exists()


def test_the_command_imports_and_refuses_like_the_console(centre, tmp_path):
    good = tmp_path / "good.csv"
    good.write_bytes(csv_bytes(ROWS, ",", "utf-8", bom=True))
    out = io.StringIO()
    call_command("importlicensees", str(centre.pk), str(good), stdout=out)
    assert "3 registered, 0 updated, 0 unchanged" in out.getvalue()
    call_command("importlicensees", str(centre.pk), str(good), stdout=out)
    assert "0 registered, 0 updated, 3 unchanged" in out.getvalue()
    bad = tmp_path / "bad.csv"
    bad.write_bytes(csv_bytes([*ROWS, ("999", "X", "Y", "Vichy", "S0", "", "")]))
    errors = io.StringIO()
    with pytest.raises(CommandError, match="bad_licensees"):
        call_command("importlicensees", str(centre.pk), str(bad), stderr=errors)
    assert "row 5: bad_series" in errors.getvalue()
