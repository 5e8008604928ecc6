"""The settings of logins and API tokens read from the environment; bad values refused with a clear message."""

import pytest

from arbiter import env


@pytest.mark.parametrize("raw, parameters", [
    (None, ["username", "ip_address"]),
    ("", ["username", "ip_address"]),
    ("account", ["username"]),
    ("address", ["ip_address"]),
    (" address , account ", ["ip_address", "username"]),
    ("account+address", [["username", "ip_address"]]),
    ("account,account+address", ["username", ["username", "ip_address"]]),
])
def test_lockout_parameters_from_the_environment(raw, parameters):
    environ = {} if raw is None else {"LOGIN_LOCKOUT_BY": raw}
    assert env.get_lockout_parameters("LOGIN_LOCKOUT_BY", "account,address", environ=environ) == parameters


@pytest.mark.parametrize("raw", ["user", "account,,address", "account+account", "ip_address", "account+"])
def test_unknown_lockout_parameters_are_refused(raw):
    with pytest.raises(env.SettingError, match="LOGIN_LOCKOUT_BY"):
        env.get_lockout_parameters("LOGIN_LOCKOUT_BY", "account,address", environ={"LOGIN_LOCKOUT_BY": raw})


def test_the_defaults_in_force(settings):
    from datetime import timedelta

    assert settings.ARBITER_API_TOKEN_HOURS == 24
    assert settings.AXES_FAILURE_LIMIT == 5
    assert settings.AXES_COOLOFF_TIME == timedelta(minutes=15)
    assert settings.AXES_LOCKOUT_PARAMETERS == ["username", "ip_address"]
    assert "rest_framework.authtoken" not in settings.INSTALLED_APPS
    assert settings.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesStandaloneBackend"

