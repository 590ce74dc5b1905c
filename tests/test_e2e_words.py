"""End to end, ``/paper`` with a word written another way than the papers write it: a
hyphenated compound the papers write apart, a name or word without its accents, a prefixed
word the typo corrector must leave alone and a typo its stem hides (issue 34)."""

from __future__ import annotations

from slack_harness import LiveBot, all_text

from bot.render.blocks import validate
from bot.render.message import Message
from bot.shell.fake_slack import RESPONSE_URL

DROP_UPCYCLING = "Drop-Upcycling: Training Sparse Mixture of Experts"
COUNTERFACTUALS = "Rethinking Visual Counterfactual Explanations"  # writes "Schrödinger"


def answer(bot: LiveBot, query: str) -> str:
    """The text of the reply to ``/paper query``, validated as Slack would."""
    bot.slash(query)
    call = bot.recorder.wait_for(RESPONSE_URL, 1)[0]
    validate(Message(call.text, tuple(call.blocks)))
    return all_text(call.blocks)


def test_the_readme_s_hyphenated_query_finds_the_paper_writing_it_apart(bot):
    text = answer(bot, "mixture-of-experts routing")
    assert DROP_UPCYCLING in text
    assert text.index(DROP_UPCYCLING) < text.index("Self-MoE")


def test_a_word_typed_without_its_accent_finds_the_paper_writing_it(bot):
    text = answer(bot, "Schrodinger")
    assert COUNTERFACTUALS in text
    assert "No paper mentions" not in text


def test_an_author_typed_without_the_letter_s_mark_is_found(bot):
    text = answer(bot, "author:Lukasz")
    assert "Łukasz Staniszewski" in text


def test_a_prefixed_word_is_not_corrected_into_its_opposite(bot):
    text = answer(bot, "unlabeled data")
    assert "Showing results for" not in text
    assert "labeled data" not in text.replace("unlabeled data", "")


def test_a_typo_the_stem_hides_is_shown_corrected(bot):
    text = answer(bot, "reinforcment learning")
    assert "reinforcement learning" in text
