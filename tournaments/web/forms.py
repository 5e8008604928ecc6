"""Forms of the arbitrator's console: they check and normalise input; the services decide."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from tournaments.lexicons import word_list_lines
from tournaments.limits import (
    CATEGORY_MAX,
    CLUB_MAX,
    LICENCE_MAX,
    PLAYER_NAME_MAX,
    REASON_MAX,
    SERIES_MAX,
    TYPED_RACK_MAX,
)
from tournaments.wording import TILESETS

BUILT_IN_LEXICONS = ("TWL06", "SOWPODS")
TILESET_CHOICES = list(TILESETS.items())
RULESET_CHOICES = [
    ("fisf", _("FISF (warnings, penalties, solos)")),
    ("classic", _("Classic (real score or 0)")),
]
COORDINATE_CHOICES = [
    ("rows-letters", _("Rows A–O, columns 1–15 (H4 across, 4H down)")),
    ("rows-numbers", _("Rows 1–15, columns A–O (English/GCG)")),
]
LANGUAGE_CHOICES = [("en", _("English")), ("fr", "Français")]
VARIANT_CHOICES = [
    ("duplicate", _("Classic duplicate")),
    ("joker", _("Joker (a blank in every rack)")),
    ("explosive", _("Explosive (the blank becomes the letter of the best top)")),
    ("seven_of_eight", _("7 out of 8 (racks of 8, at most 7 placed)")),
    ("seven_and_eight", _("7 and 8 (racks of 8; 8 placed earn 75)")),
    ("topping", _("Topping (find the top the fastest)")),
]
TIMING_CHOICES = [
    ("normal", _("Normal (3 minutes)")),
    ("semi_rapid", _("Semi-rapid (2 minutes)")),
    ("blitz", _("Blitz (1 minute)")),
]
MAX_LEXICON_BYTES = 20 * 1024 * 1024


class TournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=200)
    lexicon = forms.ChoiceField(label=_("Lexicon"))
    tileset = forms.ChoiceField(label=_("Tile set"), choices=TILESET_CHOICES, initial="english")
    ruleset = forms.ChoiceField(label=_("Rules"), choices=RULESET_CHOICES, initial="fisf")
    variant = forms.ChoiceField(label=_("Variant"), choices=VARIANT_CHOICES, initial="duplicate", required=False)
    timing = forms.ChoiceField(label=_("Timing"), choices=TIMING_CHOICES, initial="normal", required=False)
    round_seconds = forms.IntegerField(
        label=_("Round time (seconds)"), min_value=10, max_value=3600, required=False,
        help_text=_("Left empty: the timing's (180, 120 or 60 s); 150 s is common too."),
    )
    coordinates = forms.ChoiceField(label=_("Grid labelling"), choices=COORDINATE_CHOICES, initial="rows-letters")
    language = forms.ChoiceField(
        label=_("Language of the sheets, projector and phones"), choices=LANGUAGE_CHOICES, initial="en",
        required=False, help_text=_("Each phone can still switch to the other language."),
    )

    def clean_variant(self) -> str:
        return self.cleaned_data.get("variant") or "duplicate"  # not sent: the classic, as through the API

    def clean_timing(self) -> str:
        return self.cleaned_data.get("timing") or "normal"

    def clean_round_seconds(self) -> int | None:
        return self.cleaned_data.get("round_seconds")  # None: the timing's round time

    def clean_language(self) -> str:
        return self.cleaned_data.get("language") or "en"  # not sent: English, as through the API

    def __init__(self, *args, lexicons: list[str] | tuple[str, ...] = BUILT_IN_LEXICONS,
                 only: tuple[str, ...] | None = None, **kwargs):
        """``only``: the fields that can still change (a started tournament's: its name); the others are
        left out of the form."""
        super().__init__(*args, **kwargs)
        # A French console proposes a French tournament.
        if get_language() in dict(LANGUAGE_CHOICES):
            self.fields["language"].initial = get_language()
        names = list(dict.fromkeys([*BUILT_IN_LEXICONS, *lexicons]))
        self.fields["lexicon"].choices = [(name, name) for name in names]
        self.fields["lexicon"].initial = names[0]
        for name in list(self.fields):
            if only is not None and name not in only:
                del self.fields[name]


class GameForm(forms.Form):
    seed = forms.IntegerField(
        label=_("Seed (optional)"), required=False, min_value=0,
        help_text=_("Fixes the random draws so the game can be replayed; leave empty for a random seed."),
    )


class PlayerForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=PLAYER_NAME_MAX)
    table = forms.IntegerField(label=_("Table"), required=False, min_value=1, max_value=9999)
    series = forms.CharField(label=_("Series"), required=False, max_length=SERIES_MAX,
                             help_text=_("1 to 7 (or S1 to S7): the federation's list"))
    # The federation's identity, each optional (tournaments/federation.py checks them).
    licence = forms.CharField(label=_("Licence number"), required=False, max_length=LICENCE_MAX)
    club = forms.CharField(label=_("Club"), required=False, max_length=CLUB_MAX)
    category = forms.CharField(label=_("Age category"), required=False, max_length=CATEGORY_MAX,
                               help_text=_("Poussin to Diamant; left empty, derived from the date of birth"))
    birth_date = forms.DateField(label=_("Date of birth"), required=False,
                                 widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))

    IDENTITY = ("licence", "club", "category", "birth_date")

    def main_fields(self) -> list:
        return [field for field in self if field.name not in self.IDENTITY]

    def identity_fields(self) -> list:
        return [field for field in self if field.name in self.IDENTITY]

    def identity_errors(self) -> bool:
        return any(self.errors.get(name) for name in self.IDENTITY)


class LicenseesForm(forms.Form):
    """A centre's file of licensees (CSV): tournaments/services/licensees.py reads it."""

    file = forms.FileField(label=_("File of licensees (CSV)"),
                           help_text=_("Columns named in the first line: licence, name, club, series, category, "
                                       "birth date; separated by ; or ,"))


def set_rack(typed: str) -> bool:
    """Whether a typed rack is written as a tile set with tiles beyond A-Z may be (the API's rule: letters,
    ?, digits, brackets and the labels' marks Ñ Ç Ä Ö Ü ·), for that set's reading to decide."""
    from tournaments.api.serializers import _SET_RACK

    return bool(_SET_RACK.fullmatch(typed))


def draw_help(tiles) -> str:
    """The draw's help for a set with tiles beyond A-Z: what may be typed for each of them (its label,
    the label in brackets for a tile of more than one letter, its keyboard aliases), from the set's file."""
    keys = []
    for letter in tiles.letters:
        if letter.shown == letter.letter and not letter.aliases:
            continue
        typed = [letter.shown] + ([f"[{letter.shown}]"] if len(letter.shown) > 1 else []) + list(letter.aliases)
        keys.append(_("%(tile)s: %(typed)s") % {"tile": letter.shown, "typed": " ".join(dict.fromkeys(typed))})
    return _("Leave empty for a random draw. Tiles by their letters, ? for a blank; the kept tiles included. "
             "This set's tiles may be typed as %(keys)s. A rack that reads two ways is refused.") % {
        "keys": "; ".join(keys)}


class DrawForm(forms.Form):
    """Empty rack: a random draw. A typed rack comes from a physical bag; `?` is a blank."""

    rack = forms.CharField(
        label=_("Rack drawn from the bag"), required=False, max_length=TYPED_RACK_MAX,
        help_text=_("Leave empty for a random draw. Letters A–Z, ? for a blank; the kept letters included."),
    )

    def __init__(self, *args, tiles=None, **kwargs):
        super().__init__(*args, **kwargs)
        if tiles is not None and not tiles.plain:
            self.fields["rack"].help_text = draw_help(tiles)

    def clean_rack(self) -> str | None:
        rack = "".join(self.cleaned_data["rack"].split()).upper()
        if not rack:
            return None
        if any(not (ch == "?" or "A" <= ch <= "Z") for ch in rack):
            if set_rack(rack):
                return rack  # a set's labels and aliases (Ñ, [CH], 1): the game's tile set reads them
            raise forms.ValidationError(_("Only letters A–Z and ? (a blank) may be typed."))
        return rack


class SlipEntryForm(forms.Form):
    """A paper slip: the table number names the player."""

    table = forms.IntegerField(label=_("Table"), min_value=1, max_value=9999)
    word = forms.CharField(label=_("Word"), max_length=20, strip=True)
    ref = forms.CharField(label=_("Reference"), max_length=8, required=False, strip=True)
    score = forms.IntegerField(label=_("Score"), required=False, min_value=0, max_value=9999)
    key = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)


class CorrectionForm(forms.Form):
    word = forms.CharField(label=_("Word"), max_length=20, required=False, strip=True)
    ref = forms.CharField(label=_("Reference"), max_length=8, required=False, strip=True)
    score = forms.IntegerField(label=_("Claimed score"), required=False, min_value=0, max_value=9999)
    reason = forms.CharField(label=_("Reason (kept in the log)"), max_length=REASON_MAX)


class MasterForm(forms.Form):
    """One of the tied tops, as "WORD REF" from the list (``choice``) or as word and reference."""

    choice = forms.CharField(label=_("Pick another top"), required=False, max_length=40)
    word = forms.CharField(label=_("Word"), max_length=20, required=False)
    ref = forms.CharField(label=_("Reference"), max_length=8, required=False)

    def clean(self):
        data = super().clean()
        choice = (data.get("choice") or "").split()
        if len(choice) == 2:
            data["word"], data["ref"] = choice
        if not data.get("word") or not data.get("ref"):
            raise forms.ValidationError(_("Pick one of the tied tops."))
        return {"word": data["word"], "ref": data["ref"]}


class LexiconImportForm(forms.Form):
    name = forms.RegexField(
        label=_("Name"), max_length=40, regex=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
        help_text=_("Letters, digits, dot, dash or underscore, e.g. ODS8 or CSW21."),
        error_messages={"invalid": _("Use letters, digits, dot, dash or underscore only.")},
    )
    tileset = forms.ChoiceField(label=_("Tile set"), choices=TILESET_CHOICES, initial="english")
    file = forms.FileField(label=_("Word list (a text file, one word per line)"))

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_LEXICON_BYTES:
            raise forms.ValidationError(_("The file is too large (20 MB at most)."))
        return upload

    def words(self) -> list[str]:
        """The uploaded list's lines, read as UTF-8 (Latin-1 when that fails), blank lines dropped."""
        return word_list_lines(self.cleaned_data["file"].read())


class PlayerListForm(forms.Form):
    lines = forms.CharField(
        label=_("Several players, one per line: table number then name"),
        widget=forms.Textarea(attrs={"rows": 6, "cols": 40, "placeholder": "1 Ada Martin\n2 Ben Okafor"}),
        help_text=_("The table number may be left out."),
        max_length=20000,
    )


class ArbitratorLoginForm(AuthenticationForm):
    """The console's login: only arbitrators (staff users) get in; others are told so at once."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "not_arbitrator": _("This account has no arbitrator rights: ask the tournament's organiser."),
    }

    def confirm_login_allowed(self, user) -> None:
        super().confirm_login_allowed(user)
        if not user.is_staff:
            raise forms.ValidationError(self.error_messages["not_arbitrator"], code="not_arbitrator")
