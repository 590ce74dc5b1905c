"""When and how much the model is asked (``bot.search.model_rule``, declared in
``bench/round4.md``): decided from BM25's first two scores and the query's words alone."""

from __future__ import annotations

from bot.search.model_rule import (
    DECISIVE_RATIO,
    KEYWORDS_BETA,
    SENTENCE_BETA,
    ModelSay,
    copies_title,
    model_say,
    reads_as_sentence,
)

TITLE = ["graph", "sparsif", "mixtur"]
LONG_TITLE = ["spike", "neural", "network", "robust", "encod"]


def say(
    first: float = 10.0,
    second: float = 9.9,
    tokens: tuple[str, ...] = ("spike", "encod"),
    words: str = "spike encoding",
    title: list[str] = LONG_TITLE,
) -> ModelSay | None:
    return model_say(tokens, words, title, first, second)


def asked(**query: object) -> ModelSay:
    """How much the model is asked about a query it must be asked about."""
    result = say(**query)  # type: ignore[arg-type]
    assert result is not None
    return result


# --- a copied title --------------------------------------------------------------------------


def test_a_query_of_the_titles_own_tokens_copies_it() -> None:
    assert copies_title(["sparsif", "graph", "mixtur"], TITLE)
    assert copies_title(["lora", "drop"], ["drop", "lora"])  # two tokens are enough


def test_a_one_token_title_is_not_copied_by_its_one_word() -> None:
    assert not copies_title(["transformer"], ["transformer"])


def test_a_query_holding_every_token_of_a_long_title_copies_it() -> None:
    assert copies_title([*LONG_TITLE, "paper", "2025"], LONG_TITLE)
    assert not copies_title([*LONG_TITLE[:4], "paper"], LONG_TITLE)  # one missing
    assert copies_title([*LONG_TITLE[:4], "paper"], LONG_TITLE[:4])  # four are enough


def test_a_short_title_inside_a_longer_question_is_no_copy() -> None:
    """A question that happens to hold a two- or three-word title asks about more than it."""
    assert not copies_title(["how", "graph", "sparsif", "mixtur", "train"], TITLE)
    assert not copies_title(["label", "nois", "annot"], ["label", "nois"])


def test_a_copied_title_is_not_asked_about() -> None:
    assert say(tokens=tuple(LONG_TITLE), words="spiking neural network robust encoding") is None


# --- how decisive BM25 is --------------------------------------------------------------------


def test_a_second_paper_far_behind_the_first_leaves_bm25s_answer() -> None:
    assert say(first=10.0, second=6.9) is None
    assert say(first=10.0, second=0.0) is None  # only one paper matched


def test_from_the_decisive_ratio_up_the_model_has_its_full_say() -> None:
    """No ramp: a post whose BM25 is barely undecided weighs the model as a flat one does
    (the ramp cost long thread posts most, ``bench/round5.md``)."""
    assert asked(second=10 * DECISIVE_RATIO) == asked(second=10.0)
    assert asked(second=10 * DECISIVE_RATIO, words="spike encoding") == ModelSay(KEYWORDS_BETA)


def test_with_no_score_at_all_bm25_is_flat_and_the_model_decides() -> None:
    assert say(first=0.0, second=0.0) == ModelSay(KEYWORDS_BETA)


# --- how the query reads ---------------------------------------------------------------------


def test_a_sentence_leans_on_the_model_and_keywords_on_bm25() -> None:
    assert asked(words="how do spikes encode robustness?").beta == SENTENCE_BETA
    assert asked(words="spike encoding robustness").beta == KEYWORDS_BETA
    assert SENTENCE_BETA < KEYWORDS_BETA


def test_a_stopword_with_punctuation_or_capitals_still_makes_a_sentence() -> None:
    assert reads_as_sentence("Why (the) spikes?")
    assert reads_as_sentence("HOW spikes encode")
    assert not reads_as_sentence("spiking-networks, robustness: encoding!")


# --- nothing to rank by ----------------------------------------------------------------------


def test_a_query_without_tokens_is_not_asked_about() -> None:
    assert say(tokens=()) is None
