"""The bounds of every input, in one place: the API's serializers, the fast slip path, the console's forms
and the services all read them from here, so that no two layers disagree."""

PLAYER_NAME_MAX = 60  # long enough for "Marie-Christine Delacroix-Beaumont"
TOURNAMENT_NAME_MAX = 200
SERIES_MAX = 20
LEXICON_NAME_MAX = 40
SLIP_KEY_MAX = 64  # an idempotency key: a phone's or the console's random key fits with room to spare
WORD_MAX = 15  # the board's width
RACK_MAX = 15  # the largest rack_size the rules take (8 in 7 sur 8 and 7 et 8); the engine checks the tournament's
REF_MAX = 8  # a grid reference, its spaces collapsed: "1 5 H" is the longest way to write one
SCORE_MAX = 5000  # far above any real play (the best known is under 2,000)
SEQ_MAX = 2**53 - 1  # the largest whole number a page's JavaScript holds exactly (time in ms fits)
# A phone's claimed send time of a slip (sent_ms, ms since the epoch; year 9999 at most, what a time holds).
SENT_MS_MAX = 253_402_300_799_999
# A claimed send time later than the slip's arrival by more than this is not a real one (the phone's clock
# correction is off by half a round trip at most): kept as absent.
SENT_AHEAD_MAX_SECONDS = 2
TABLE_MAX = 10000
TRAINEE_NAME_MAX = 40  # the name a trainee gives their result
TRAINEE_KEY_MAX = 40  # the key a training visitor's browser keeps in its cookie (``a`` and 24 hex digits)
TYPED_RACK_MAX = 40  # a typed rack's characters before its letters are read (blanks, spaces, signs)
REASON_MAX = 500  # an arbitrator's reason, kept in the log and the game record
LATE_REASON_MAX = 300  # the reason a late slip is admitted
MESSAGE_MAX = 300  # a result's message (Result.message's column)
# The federation's identity of a player (tournaments/federation.py) and a centre's file of licensees.
LICENCE_MAX = 20  # a licence number: letters, digits and hyphens
CLUB_MAX = 100
CATEGORY_MAX = 20
BIRTH_YEAR_MIN = 1900  # an earlier date of birth is a typing mistake
LICENSEES_BYTES_MAX = 2 * 1024 * 1024  # a federation's export of a whole region fits with room to spare
LICENSEES_ROWS_MAX = 5000
LICENSEES_ERRORS_SHOWN = 50  # a refused file lists at most this many bad rows (and says how many more)
EVENT_NAME_MAX = 200  # a simultaneous event's name, as its packs and results files carry it
CENTRE_CODE_MAX = 100  # a centre's id in its results files
CENTRE_NAME_MAX = 200
# A centre's results file, pushed (arbiter/bodies.py lets it through on its route) or uploaded: about 120 bytes per
# player per round (2,000 players x 20 rounds weigh 4.8 MB: tests/tournaments/test_results_push_http.py), so this
# carries 2,000 players x 20 rounds at up to 200 bytes each.
RESULTS_FILE_MAX_BYTES = 8 * 1024 * 1024
PUSH_ANSWER_MAX = 500  # characters of the organiser's answer to a centre's push kept and shown (centre_results.py)
RESULTS_VERSIONS_SHOWN = 50  # the console's Results file tab lists a game's latest versions, at most this many
