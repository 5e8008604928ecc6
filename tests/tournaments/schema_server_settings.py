"""Settings of the live server the schemathesis run talks to: the test settings, with the API's rate limits
raised so that thousands of generated requests exercise the operations rather than the limits (a 429 is
documented on the operations that have a limit, and the limits have tests of their own)."""

from arbiter.settings.test import *  # noqa: F403
from arbiter.settings.test import REST_FRAMEWORK

REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {name: "100000/min" for name in REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]},
}
