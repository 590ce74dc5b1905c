"""The short replies of a conversation are written in render, word for word as before."""

from __future__ import annotations

from bot.render import replies
from bot.render.replies import RelatedTo


def test_a_related_list_names_the_message_it_is_about():
    assert [replies.related_to_words(subject) for subject in RelatedTo] == [
        "this message",
        "this thread's first message",
        "the same message",
    ]


def test_a_thread_page_says_how_to_get_more_then_the_hint():
    more = "Say `@paperbot more` for the next results."
    assert replies.thread_footer(more=True, hint=None) == more
    assert replies.thread_footer(more=True, hint="hint") == f"{more}\nhint"
    assert replies.thread_footer(more=False, hint="hint") == "hint"
    assert replies.thread_footer(more=False, hint=None) is None


def test_nothing_to_search_says_what_to_do():
    assert replies.message_without_words_message().text == (
        "That message has no words to search for. Try `/paper` with some."
    )
    assert replies.digest_unavailable_message().text == (
        "The paper of the day is not available on this bot."
    )
