import pytest
from faulty_slack import FaultySlackRecorder, rate_limited, server_error
from slack_sdk.errors import SlackApiError

from bot.settings import Settings
from bot.slack.client import digest_client, make_web_client
from bot.slack.delivery import retry


@pytest.fixture
def slack():
    with FaultySlackRecorder() as recorder:
        yield recorder


def test_rate_limits_are_always_retried(slack):
    client = make_web_client("xoxb-test", slack.base_url, retry_maybe_delivered=False)
    slack.fail_next("chat.postMessage", rate_limited(0))
    response = client.chat_postMessage(channel="C1", text="hello")
    assert response["ok"]
    assert len(slack.messages("C1")) == 1


def test_server_errors_are_retried_for_ordinary_replies(slack):
    client = make_web_client("xoxb-test", slack.base_url)
    slack.fail_next("chat.postMessage", server_error())
    assert client.chat_postMessage(channel="C1", text="hello")["ok"]
    assert len(slack.calls_to("chat.postMessage")) == 2


def test_a_server_error_is_not_blindly_retried_when_the_post_may_have_landed(slack):
    client = make_web_client("xoxb-test", slack.base_url, retry_maybe_delivered=False)
    slack.fail_next("chat.postMessage", server_error())
    with pytest.raises(SlackApiError):
        client.chat_postMessage(channel="C1", text="hello")
    assert len(slack.calls_to("chat.postMessage")) == 1


def test_a_reply_does_not_wait_a_minute_for_a_rate_limit(slack, retry_waits):
    client = make_web_client("xoxb-test", slack.base_url)
    slack.fail_next("chat.postMessage", rate_limited(60))
    with pytest.raises(SlackApiError):
        client.chat_postMessage(channel="C1", text="hello")
    assert retry_waits == []
    slack.fail_next("chat.postMessage", rate_limited(3))
    assert client.chat_postMessage(channel="C1", text="hello")["ok"]
    assert retry_waits == [3.0]


def test_the_daily_post_waits_longer_than_a_reply(slack, retry_waits):
    settings = Settings(slack_bot_token="xoxb-test", slack_api_url=slack.base_url)
    client = digest_client(settings)
    slack.fail_next("chat.postMessage", rate_limited(30))
    assert client.chat_postMessage(channel="C1", text="hello")["ok"]
    assert retry_waits == [30.0]


def test_a_call_site_narrows_the_wait_for_all_its_calls(slack, retry_waits):
    client = make_web_client("xoxb-test", slack.base_url)
    with retry.waiting_at_most(1.5):
        slack.fail_next("conversations.info", rate_limited(1))
        assert client.conversations_info(channel="C1")["ok"]
        slack.fail_next("conversations.info", rate_limited(1))
        with pytest.raises(SlackApiError):
            client.conversations_info(channel="C2")
    assert retry_waits == [1.0]
