import pytest
from faulty_slack import FaultySlackRecorder, rate_limited, server_error
from slack_sdk.errors import SlackApiError

from bot.slack.client import make_web_client


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
