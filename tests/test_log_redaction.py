"""No log record names a URL that works as a key: a ``response_url`` lets anyone post into
its conversation for 30 minutes, an upload URL lets them send the file's bytes."""

from __future__ import annotations

import logging

import pytest

from bot.shell.fake_slack import RESPONSE_URL
from bot.slack.redaction import REDACTED, redacted

PAPER_ID = "7ANDviElAo"


def test_a_search_and_a_bib_export_at_debug_leave_no_response_or_upload_url_in_the_log(bot, caplog):
    secret_prefixes = (f"{bot.recorder.root_url}/response/", f"{bot.recorder.root_url}/upload/")
    with caplog.at_level(logging.DEBUG):
        assert bot.slash("graph sparsification").status == 200
        bot.recorder.wait_for(RESPONSE_URL)
        bot.services.store.save_paper(bot.workspace.team_id, bot.workspace.user_id, PAPER_ID)
        assert bot.slash("saved export").status == 200
        bot.recorder.wait_for(RESPONSE_URL, 2)
        bot.drain()
    assert len(bot.recorder.files) == 1
    messages = [record.getMessage() for record in caplog.records]
    leaked = [text for text in messages if any(prefix in text for prefix in secret_prefixes)]
    assert leaked == []
    assert any(REDACTED in text for text in messages)  # the webhook and upload were logged


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("POST https://hooks.slack.com/commands/T0/1/abc failed", "POST (redacted) failed"),
        (
            "body: {'ok': True, 'upload_url': 'https://files.slack.com/upload/v1/AbC', 'x': 1}",
            "body: {'ok': True, 'upload_url': '(redacted)', 'x': 1}",
        ),
        ('{"response_url": "http://127.0.0.1:9/response/4"}', '{"response_url": "(redacted)"}'),
        ("response_url=https%3A%2F%2Fhooks.slack.com%2Fx&text=a", "response_url=(redacted)&text=a"),
        (
            "calling https://slack.com/api/chat.postMessage",
            "calling https://slack.com/api/chat.postMessage",
        ),
    ],
)
def test_secret_urls_are_redacted_and_api_urls_kept(message, kept):
    assert redacted(message) == kept


def test_every_url_the_webhook_client_names_is_a_response_url():
    message = "Sending a request - url: http://127.0.0.1:9/response/4, body: {}"
    assert redacted(message, from_webhook=True) == "Sending a request - url: (redacted), body: {}"


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("token xoxb-17-T0ALPHA-abc rejected", "token (redacted) rejected"),
        ("rotating xoxe.xoxb-1-MS0xLTE and xoxp-2-a-b", "rotating (redacted) and (redacted)"),
        ("refresh with xoxe-1-My0xLTI2", "refresh with (redacted)"),
        (
            "body: {'ok': True, 'access_token': 'abc', 'refresh_token': 'def', 'expires_in': 1}",
            "body: {'ok': True, 'access_token': '(redacted)', 'refresh_token': '(redacted)', "
            "'expires_in': 1}",
        ),
        (
            "Failed to fetch oauth.v2.access result with code: 123.456.abc - error: x",
            "Failed to fetch oauth.v2.access result with code: (redacted) - error: x",
        ),
        (
            "code=123.456&state=s&client_secret=abc",
            "code=(redacted)&state=s&client_secret=(redacted)",
        ),
        ("status_code=200 for chat.postMessage", "status_code=200 for chat.postMessage"),
    ],
)
def test_tokens_codes_and_client_secrets_are_redacted(message, kept):
    assert redacted(message) == kept


def test_the_client_secret_is_redacted_wherever_it_appears():
    from bot.slack.redaction import install

    install("0f1e2d3c4b5a69788796a5b4c3d2e1f0")
    assert redacted("secret 0f1e2d3c4b5a69788796a5b4c3d2e1f0 sent") == "secret (redacted) sent"
