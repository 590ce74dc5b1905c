"""The distributed mode is chosen by configuration: the client credentials (with the signing
secret) make HTTP mode install the app anywhere; without them every mode is as before."""

from __future__ import annotations

import json
import os

import pytest
from project import PROJECT_ROOT

from bot.settings import DEFAULT_SCOPES, Settings, SettingsError
from bot.slack.modes import HTTP, SOCKET, ModeError, check_slack, choose_mode

CLIENT = {"SLACK_CLIENT_ID": "123.456", "SLACK_CLIENT_SECRET": "0123abcd"}


def test_the_client_credentials_and_signing_secret_choose_distributed_http():
    settings = Settings.from_env({**CLIENT, "SLACK_SIGNING_SECRET": "s"}, dotenv=False)
    assert settings.distributed
    assert choose_mode(settings, None) == HTTP
    assert check_slack(settings, HTTP) is None  # no token of its own to ask Slack about


def test_one_bot_token_stays_the_default_and_socket_mode_serves_one_workspace():
    single = Settings.from_env({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"})
    assert not single.distributed and choose_mode(single, None) == HTTP
    with pytest.raises(ModeError, match="SLACK_BOT_TOKEN is not set"):
        choose_mode(Settings.from_env({**CLIENT, "SLACK_APP_TOKEN": "xapp-1"}), SOCKET)


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"SLACK_CLIENT_ID": "123.456"}, "SLACK_CLIENT_SECRET is not set"),
        ({"SLACK_CLIENT_SECRET": "x"}, "SLACK_CLIENT_ID is not set"),
        ({**CLIENT, "SLACK_REDIRECT_URI": "paperbot.org/x"}, "SLACK_REDIRECT_URI must be"),
        ({**CLIENT, "SLACK_SCOPES": " , "}, "SLACK_SCOPES must be"),
    ],
)
def test_incomplete_or_malformed_oauth_settings_name_the_variable(environ, message):
    with pytest.raises(SettingsError, match=message):
        Settings.from_env(environ, dotenv=False)


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        (CLIENT, "SLACK_SIGNING_SECRET is not set"),
        (
            {**CLIENT, "SLACK_SIGNING_SECRET": "s", "SLACK_BOT_TOKEN": "xoxb-1"},
            "both set",
        ),
    ],
)
def test_a_distributed_app_needs_the_signing_secret_and_no_bot_token(environ, message):
    with pytest.raises(ModeError, match=message):
        choose_mode(Settings.from_env(environ, dotenv=False), None)


def test_the_secret_and_bolts_oauth_variables_leave_the_environment(monkeypatch):
    for name, value in {**CLIENT, "SLACK_SCOPES": "chat:write"}.items():
        monkeypatch.setenv(name, value)
    settings = Settings.from_env(dotenv=False)
    assert settings.slack_client_secret == "0123abcd" and settings.slack_scopes == ("chat:write",)
    assert not {"SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SCOPES"} & set(os.environ)


def test_the_default_scopes_are_both_manifests_and_only_the_distributed_one_rotates():
    single = json.loads((PROJECT_ROOT / "manifest.json").read_text())
    distributed = json.loads((PROJECT_ROOT / "manifest.distributed.json").read_text())
    for manifest in (single, distributed):
        assert tuple(manifest["oauth_config"]["scopes"]["bot"]) == DEFAULT_SCOPES
    assert not single["settings"]["token_rotation_enabled"]
    assert distributed["settings"]["token_rotation_enabled"]
    assert distributed["oauth_config"]["redirect_urls"][0].endswith("/slack/oauth_redirect")
