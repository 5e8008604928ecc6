"""The reasons the server writes in the log by itself, in one place beside the refusals (refusals.py).

They are kept in English, the log's language, as written here; the pages translate them
(web/console/texts.log_reason_text). A reason typed by an arbitrator is kept and shown as typed.
"""

# A paper slip handed in before the end call and typed after the close: judged at once (slip_enter_paper).
PAPER_AFTER_CLOSE = "paper slip handed in before the end call, entered after the close"
# What the arbitrator says of a paper slip when the player already holds another (slip_enter_paper).
PAPER_CHOICES = {"replace": "typing correction", "second": "second slip: paid 0"}
# A closed round's paper slips marked complete by the server: every paper player's slip is entered.
SLIPS_COMPLETE_AUTO = "automatic: every paper player's slip is entered"
# A slip that arrived before the deadline and was served after the close (slip_submit).
JUDGED_AFTER_CLOSE = "arrived before the deadline, served after the close"
# A round cancelled because no play is possible (round_close).
CANCEL_REASON = "no play possible: the letters go back into the bag"
