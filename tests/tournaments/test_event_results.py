"""The organiser's side of a simultaneous event, persisted (tournaments/events.py, POST /api/events/{id}/results,
GET /api/events/{id}/standings, the console's upload and CSV): centres registered with their keys and push tokens;
files from two centres pushed -> the standings equal engine.merge over the same files, the third centre listed as
missing; the same file twice is one record and 200 both times; a later version replaces the earlier, kept in the
history; forged, altered, wrong-event and unknown-token pushes refused with nothing stored; a differing verdict
listed; a key accepted on first use once its fingerprint is typed; the CSV's content."""

from __future__ import annotations

import copy
import csv
import io
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.urls import reverse
from rest_framework.test import APIClient

from engine.board import Board
from engine.search import best_plays
from engine.tiles import load_tileset
from tournaments import events, packs
from tournaments.errors import ServiceError
from tournaments.event_models import Centre, ResultsFile
from tournaments.lexicons import get_lexicon
from tournaments.results_files import ResultsInbox

from .test_results_files import EVENT, _file, _raw

CENTRES = ("A", "B", "C")

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def drawn():
    game_file = packs.draw_game_file(seed=20260314, max_rounds=6)
    pack, key = packs.seal_pack(game_file, event=EVENT, game_id="G1")
    lexicon, tileset = get_lexicon(game_file.lexicon), load_tileset(game_file.tileset)
    plays = {r.number: best_plays(Board.from_rows(r.board), r.rack, lexicon, tileset, game_file.rules, n=8)
             for r in game_file.game.rounds}
    game = {"file": game_file, "sha": packs.pack_sha256(pack), "plays": plays, "lexicon": lexicon, "tileset": tileset}
    raw = {}
    for centre in CENTRES:
        raw.update(_raw(game, centre))
    return {"pack": pack, "key": key, "game": game, "raw": raw,
            "keys": {c: Ed25519PrivateKey.generate() for c in CENTRES}}


@pytest.fixture
def organiser(django_user_model):
    return django_user_model.objects.create_user(username="organiser", password="organiser-pass-1", is_staff=True)


@pytest.fixture
def event(drawn, organiser):
    made = events.event_create(name=EVENT, language="fr", actor=organiser)
    game = events.event_game_add(event=made, raw=packs.pack_bytes(drawn["pack"]))
    events.event_game_unlock(game=game, key=packs.key_text(drawn["key"]), actor=organiser)
    made.tokens = {}
    for code in CENTRES:
        _, made.tokens[code] = events.centre_register(event=made, code=code, name=f"Club {code}",
                                                      public_key=packs.public_text(drawn["keys"][code]))
    return made


def _results(drawn, centre, **kwargs) -> dict:
    return _file("G1", drawn["game"], centre, drawn["raw"], drawn["keys"][centre], **kwargs)


def _push(event, token, body, *, raw: bytes | None = None):
    client = APIClient()
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    data = raw if raw is not None else packs.pack_bytes(body)
    return client.post(reverse("api-event-results", kwargs={"event_id": event.pk}), data=data,
                       content_type="application/json")


def _stored() -> list:
    return list(ResultsFile.objects.order_by("pk").values_list("sha256", "current"))


def test_two_centres_pushed_give_the_standings_engine_merge_gives_with_the_third_missing(drawn, event, organiser):
    files = [_results(drawn, centre) for centre in ("A", "B")]
    for code, results in zip(("A", "B"), files, strict=True):
        response = _push(event, event.tokens[code], results)
        assert response.status_code == 201, response.content
        assert response.json()["status"] == "accepted"
    inbox = ResultsInbox(EVENT)
    for code in CENTRES:
        inbox.register_centre(code, packs.public_text(drawn["keys"][code]))
    inbox.add_game("G1", drawn["game"]["file"], drawn["game"]["sha"])
    for results in files:
        inbox.accept(packs.pack_bytes(results))
    expected = inbox.standings()
    merged = events.standings(event)
    assert merged["rows"] == expected["rows"]
    assert merged["by_series"] == expected["by_series"] and merged["by_category"] == expected["by_category"]
    assert merged["by_centre"].keys() == {"A", "B"}
    assert merged["provisional"] is True and merged["missing_centres"] == ["C"]

    client = APIClient()
    client.force_login(organiser)
    answer = client.get(reverse("api-event-standings", kwargs={"event_id": event.pk}))
    assert answer.status_code == 200
    body = answer.json()
    assert body["missing_centres"] == ["C"] and body["provisional"] is True
    assert [(r["name"], r["rank"], r["total"]) for r in body["rows"]] == \
        [(r["name"], r["rank"], r["total"]) for r in expected["rows"]]
    assert len(body["rows"]) == 12


def test_the_same_file_twice_is_one_record_and_200(drawn, event):
    results = _results(drawn, "A")
    first = _push(event, event.tokens["A"], results)
    again = _push(event, event.tokens["A"], results)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["status"] == "already_received" and again.json()["message"] == "already received"
    assert again.json()["sha256"] == first.json()["sha256"]
    assert ResultsFile.objects.count() == 1


def test_a_later_version_replaces_the_earlier_which_stays_in_the_history(drawn, event):
    early = _results(drawn, "A", sequence=1, final=False)
    late = _results(drawn, "A", sequence=2, final=True)
    assert _push(event, event.tokens["A"], early).status_code == 201
    assert _push(event, event.tokens["A"], late).status_code == 201
    rows = list(ResultsFile.objects.order_by("sequence").values_list("sequence", "current", "final"))
    assert rows == [(1, False, False), (2, True, True)]
    assert events.standings(event)["unfinished"] == []
    outdated = _push(event, event.tokens["A"], _results(drawn, "A", sequence=1, final=True))
    assert outdated.status_code == 400 and outdated.json()["error"]["code"] == "results_outdated"
    assert ResultsFile.objects.count() == 2


def _forged(drawn):
    """Centre A's results signed by another key than A's."""
    return _file("G1", drawn["game"], "A", drawn["raw"], Ed25519PrivateKey.generate())


def _altered(drawn):
    results = copy.deepcopy(_results(drawn, "A"))
    results["players"][0]["name"] = "Someone Else"
    return results


def _other_event(drawn):
    return _file("G1", drawn["game"], "A", drawn["raw"], drawn["keys"]["A"], event="Another event")


@pytest.mark.parametrize(("make", "status", "code"), [
    (_forged, 400, "results_forged"),
    (_altered, 400, "results_altered"),
    (_other_event, 400, "results_wrong_event"),
])
def test_a_forged_altered_or_other_event_file_is_refused_and_nothing_stored(drawn, event, make, status, code):
    response = _push(event, event.tokens["A"], make(drawn))
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    assert _stored() == []


def test_an_unknown_token_or_none_or_another_centres_token_is_refused_and_nothing_stored(drawn, event):
    results = _results(drawn, "A")
    assert _push(event, "not-a-token", results).status_code == 401
    assert _push(event, None, results).status_code == 401
    other = _push(event, event.tokens["B"], results)
    assert other.status_code == 400 and other.json()["error"]["code"] == "results_other_centre"
    second = events.event_create(name="Elsewhere", actor=None)
    assert _push(second, event.tokens["A"], results).status_code == 401  # a token is good for its event only
    assert _stored() == []


def test_a_differing_verdict_is_listed_for_review_and_never_changed(drawn, event, organiser):
    def tamper(index, rounds):
        if index == 1:  # the centre paid player 1's first slip 0 with a reason the judge does not give
            rounds[0]["verdict"] = {"paid": 0, "outcome": "zero", "reason": "arbitrator_zero"}

    results = _file("G1", drawn["game"], "A", drawn["raw"], drawn["keys"]["A"], tamper=tamper)
    assert _push(event, event.tokens["A"], results).status_code == 201
    listed = events.differences(event)
    assert [(d["centre"], d["name"], d["round"], d["centre_verdict"]["reason"]) for d in listed] == \
        [("A", "Player A1", 1, "arbitrator_zero")]
    row = next(r for r in events.standings(event)["rows"] if r["name"] == "Player A1")
    assert row["games"][0]["paid"] == sum(r["verdict"]["paid"] for r in results["players"][1]["rounds"])
    client = APIClient()
    client.force_login(organiser)
    page = client.get(reverse("console-event", kwargs={"event_id": event.pk}))
    assert page.status_code == 200 and "Player A1" in page.content.decode()


def test_a_key_is_accepted_on_first_use_once_its_fingerprint_is_typed(drawn, event):
    centre = Centre.objects.get(event=event, code="C")
    centre.public_key = ""
    centre.save()
    results = _results(drawn, "C")
    first = _push(event, event.tokens["C"], results)
    assert first.status_code == 409 and first.json()["error"]["code"] == "centre_key_unconfirmed"
    assert _stored() == []
    with pytest.raises(ServiceError) as wrong:
        events.centre_key_accept(centre=Centre.objects.get(pk=centre.pk), fingerprint="AAAA-BBBB-CCCC-DDDD")
    assert wrong.value.code == "centre_fingerprint"
    assert Centre.objects.get(pk=centre.pk).public_key == ""
    typed = packs.fingerprint(packs.public_text(drawn["keys"]["C"])).lower().replace("-", " ")
    events.centre_key_accept(centre=Centre.objects.get(pk=centre.pk), fingerprint=typed)
    assert _push(event, event.tokens["C"], results).status_code == 201


def test_the_console_upload_takes_a_file_and_the_csv_lists_every_ranking(drawn, event, organiser):
    client = APIClient()
    client.force_login(organiser)
    url = reverse("console-event-act", kwargs={"event_id": event.pk})
    upload = io.BytesIO(packs.pack_bytes(_results(drawn, "B")))
    upload.name = "B.results.json"
    response = client.post(url, {"action": "upload", "file": upload}, format="multipart")
    assert response.status_code == 302
    assert ResultsFile.objects.get().via == "console"
    bad = io.BytesIO(b"{not json")
    bad.name = "bad.json"
    refused = client.post(url, {"action": "upload", "file": bad}, format="multipart")
    assert refused.status_code == 302 and ResultsFile.objects.count() == 1

    answer = client.get(reverse("console-event-standings-csv", kwargs={"event_id": event.pk}))
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(answer.content.decode("utf-8"))))
    assert rows[0][:4] == ["scope", "group", "rank", "name"]
    merged = events.standings(event)
    overall = [r for r in rows[1:] if r[0] == "overall"]
    assert [(r[3], int(r[2]), int(r[9])) for r in overall] == [(r["name"], r["rank"], r["total"]) for r in merged["rows"]]
    assert {r[1] for r in rows[1:] if r[0] == "centre"} == {"B"}
    assert {r[1] for r in rows[1:] if r[0] == "series"} == {"S1", "S2", "S3"}
    assert {r[1] for r in rows[1:] if r[0] == "category"} == {"Senior", "Junior"}
    assert len(rows) == 1 + 6 * 4


def test_the_standings_api_is_the_organisers_only(event, django_user_model):
    other = django_user_model.objects.create_user(username="elsewhere", password="x-pass-1", is_staff=True)
    client = APIClient()
    client.force_login(other)
    response = client.get(reverse("api-event-standings", kwargs={"event_id": event.pk}))
    assert response.status_code == 403 and response.json()["error"]["code"] == "head_only"
    assert json.loads(APIClient().get(reverse("api-event-standings", kwargs={"event_id": event.pk})).content)[
        "error"]["code"] in ("not_authenticated", "arbitrator_only")


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_the_organiser_runs_the_event_from_the_console(drawn, organiser):
    """The console's steps: the event, its pack, a mistyped then the right key, a centre registered without its
    key (its token shown once), its first push refused with the fingerprint, which typed accepts the key; the
    push then lands; the standings page lists the centres that have not reported; the page reads in French."""
    from django.test import Client

    client = Client()
    client.force_login(organiser)
    created = client.post(reverse("console-events"), {"name": EVENT, "language": "fr"})
    event = events.Event.objects.get(name=EVENT)
    assert created.status_code == 302 and created["Location"] == reverse("console-event", args=[event.pk])
    act = reverse("console-event-act", args=[event.pk])
    pack = io.BytesIO(packs.pack_bytes(drawn["pack"]))
    pack.name = "G1.pack.json"
    client.post(act, {"action": "pack", "file": pack})
    game = event.games.get()
    refused = client.post(act, {"action": "unlock", "game": game.pk, "key": "0000-0000-0000-0000-0000-0000-0000"},
                          follow=True)
    assert refused.status_code == 200 and _messages(refused) and not type(game).objects.get(pk=game.pk).game_text
    client.post(act, {"action": "unlock", "game": game.pk, "key": packs.key_qr_text(drawn["key"], game.sha256)})
    assert type(game).objects.get(pk=game.pk).game_text
    for code in CENTRES:
        page = client.post(act, {"action": "centre", "code": code, "name": f"Club {code}"}, follow=True)
    token = _messages(page)[-1].rsplit(" ", 1)[-1]
    assert Centre.objects.get(event=event, code="C").token_digest == events.token_digest(token)

    results = _results(drawn, "C")
    assert _push(event, token, results).json()["error"]["code"] == "centre_key_unconfirmed"
    fingerprint = packs.fingerprint(packs.public_text(drawn["keys"]["C"]))
    assert fingerprint in client.get(reverse("console-event", args=[event.pk])).content.decode()
    centre = Centre.objects.get(event=event, code="C")
    client.post(act, {"action": "key", "centre": centre.pk, "fingerprint": fingerprint})
    assert Centre.objects.get(pk=centre.pk).public_key == packs.public_text(drawn["keys"]["C"])
    assert _push(event, token, results).status_code == 201

    standings = client.get(reverse("console-event-standings", args=[event.pk]))
    text = standings.content.decode()
    assert standings.status_code == 200 and "A, B" in text and "Player C0" in text
    french = client.get(reverse("console-event", args=[event.pk]), HTTP_ACCEPT_LANGUAGE="fr")
    assert "Verdicts à revoir" in french.content.decode()


def test_the_national_standings_pdf_is_in_the_events_language_with_each_centre(drawn, event, organiser, tmp_path):
    from .sheets_support import pdf_text

    for code in ("A", "B"):
        assert _push(event, event.tokens[code], _results(drawn, code)).status_code == 201
    client = APIClient()
    client.force_login(organiser)
    answer = client.get(reverse("console-event-standings-pdf", kwargs={"event_id": event.pk}))
    assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf"
    text = pdf_text(answer.content)
    assert "Classement" in text  # the event is French
    merged = events.standings(event)
    best = merged["rows"][0]
    assert f"{best['name']} ({best['centre']})" in text
    assert "Player B5 (B)" in text and "Player A0 (A)" in text


def _pdf_groups(text: str, titles: list[str]) -> dict[str, str]:
    """The PDF's text cut at each group's title, in order: title -> the text up to the next title."""
    starts = [text.index(title) for title in titles]
    assert starts == sorted(starts), "the groups are printed in the standings' order"
    ends = starts[1:] + [len(text)]
    return {title: text[start:end] for title, start, end in zip(titles, starts, ends, strict=True)}


@pytest.mark.parametrize(("scope", "key", "heading", "label"), [
    ("centre", "by_centre", "Par centre", "Centre {group} · Club {group}"),
    ("series", "by_series", "Par série", "Série {group}"),
    ("category", "by_category", "Par catégorie", "Catégorie {group}"),
])
def test_the_standings_pdf_by_centre_series_or_category_ranks_within_each_group(drawn, event, organiser, scope, key,
                                                                                 heading, label):
    from .sheets_support import pdf_text

    for code in CENTRES:
        assert _push(event, event.tokens[code], _results(drawn, code)).status_code == 201
    client = APIClient()
    client.force_login(organiser)
    page = client.get(reverse("console-event-standings", kwargs={"event_id": event.pk}))
    link = f'{reverse("console-event-standings-pdf", kwargs={"event_id": event.pk})}?scope={scope}'
    assert f'href="{link}"' in page.content.decode()
    answer = client.get(link)
    assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf"
    assert f"standings-by-{scope}.pdf" in answer["Content-Disposition"]
    text = pdf_text(answer.content)
    assert heading in text and "Classement" in text  # the event is French
    merged = events.standings(event)
    groups = merged[key]
    assert len(groups) >= 2  # the split means something: at least two groups
    sections = _pdf_groups(text, [label.format(group=group) for group in groups])
    for group, rows in groups.items():
        section = sections[label.format(group=group)]
        assert [row[f"rank_{scope}"] for row in rows][0] == 1
        for row in rows:  # each player in their group's section, with the rank within the group
            assert f"{row[f'rank_{scope}']} {row['name']} ({row['centre']})" in section, (group, row["name"])
    assert f"{len(merged['rows'])} joueurs" in text


def test_an_unknown_scope_is_refused_in_the_events_language(event, organiser):
    client = APIClient()
    client.force_login(organiser)
    answer = client.get(reverse("console-event-standings-pdf", kwargs={"event_id": event.pk}), {"scope": "club"},
                        HTTP_ACCEPT_LANGUAGE="fr")
    assert answer.status_code == 400
    assert "par centre, par série ou par catégorie (pas club)" in answer.content.decode()


def test_the_events_federation_results_file_lists_every_player_of_every_centre_with_the_merged_totals(
        drawn, event, organiser):
    for code in CENTRES:
        assert _push(event, event.tokens[code], _results(drawn, code)).status_code == 201
    client = APIClient()
    client.force_login(organiser)
    page = client.get(reverse("console-event-standings", kwargs={"event_id": event.pk}), HTTP_ACCEPT_LANGUAGE="fr")
    url = reverse("console-event-results-file", kwargs={"event_id": event.pk})
    assert f'href="{url}"' in page.content.decode() and "Fichier de résultats pour la fédération" in page.content.decode()
    answer = client.get(url)
    assert answer.status_code == 200 and answer["Content-Type"] == "text/plain; charset=iso-8859-1"
    assert f"results-event-{event.pk}.txt" in answer["Content-Disposition"]
    merged = events.standings(event)
    lines = answer.content.decode("latin-1").split("\r\n")
    assert lines[-1] == ""  # every line ends in CR LF
    expected = [f'"","{row["name"]}","{row["total"]}"' for row in merged["rows"]]
    assert lines[:-1] == expected  # the game's format, in the merged order, with the merged totals
    assert {row["centre"] for row in merged["rows"]} == set(CENTRES) and len(expected) == 18
