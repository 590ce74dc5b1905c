"""The analyzer: one set of rules that makes a word typed one way meet it written another."""

from __future__ import annotations

import gc
import random
import string
import sys
from dataclasses import replace

from bot.papers.corpus import LoadedCorpus
from bot.search.analyzer import (
    CorpusAnalyzer,
    analyze,
    analyze_phrase,
    fold,
    words,
)
from bot.search.defined_acronyms import find_acronyms, mine_acronyms
from bot.search.engine import SearchIndex
from bot.search.indexing import field_tokens
from bot.search.matched_words import marked_words


def shares_a_token(query: str, text: str) -> bool:
    return bool(set(analyze(query)) & set(analyze(text)))


def test_nfkc_lets_plain_digits_find_superscripts() -> None:
    assert analyze("HGM3") == analyze("HGM³") == ["hgm3"]


def test_accents_are_folded_in_tokens_and_kept_in_the_text() -> None:
    assert analyze("Schrödinger bridges") == analyze("Schrodinger bridge") == ["schroding", "bridg"]
    assert analyze("Schro\u0308dinger") == analyze("Schrodinger")  # a combining mark
    assert analyze("naïve café") == analyze("naive cafe")
    assert [word.surface for word in words("Schrödinger bridges")] == ["Schrödinger", "bridges"]
    flagged = marked_words("Feedback Schrödinger Bridge", analyze("schrodinger"))
    assert [piece for piece, bold in flagged if bold] == ["Schrödinger"]


def test_letters_nfkd_cannot_decompose_are_spelt_as_typed_without_them() -> None:
    assert (
        fold("Søren Łukasz Straße Cæsar Œuvre Ðorđe") == "soren lukasz strasse caesar oeuvre dorde"
    )
    assert analyze("Łukasz") == analyze("Lukasz")


def test_case_and_inflection_do_not_matter() -> None:
    assert analyze("Sparsifying Graphs") == analyze("sparsification graph")
    assert analyze("PRUNED layers") == analyze("pruning layer")


def test_generalization_is_not_conflated_with_general() -> None:
    assert analyze("generalization") == analyze("generalisation") == analyze("generalizes")
    assert not shares_a_token("generalization", "a general method")


def test_alphanumeric_tokens_stay_whole() -> None:
    assert analyze("GSM8K with Llama3.1 at 1024x1024") == ["gsm8k", "llama3.1", "1024x1024"]


def test_hyphenated_words_give_parts_and_joined_form() -> None:
    tokens = analyze("auto-regressive")
    assert tokens == ["auto", "regress", "autoregress"]
    assert shares_a_token("autoregressive", "auto-regressive")
    assert shares_a_token("auto-regressive", "autoregressive")
    assert shares_a_token("mixture of experts", "Mixture-of-Experts")


def test_phrase_tokens_leave_out_the_joined_form() -> None:
    assert analyze_phrase("auto-regressive models") == ["auto", "regress", "model"]


def test_acronym_plurals_fold_to_the_singular() -> None:
    assert analyze("MLLMs") == analyze("MLLM") == analyze("mllms") == ["mllm"]
    assert analyze("SDEs") == analyze("SDE")
    assert analyze("LoRAs") == analyze("LoRA")
    assert analyze("GNNs") == analyze("gnn")


def test_stopwords_punctuation_emoji_and_control_characters_give_nothing() -> None:
    assert analyze("what is the of and") == []
    assert analyze("?!... -- ()") == []
    assert analyze("🙂🔥🚀") == []
    assert analyze("\x00\x07\x1b[0m") == ["0m"]
    assert analyze("") == []


def test_latex_is_stripped_before_tokenising() -> None:
    assert analyze(r"$\mathsf{LSI}$ measure") == ["lsi", "measur"]


def test_words_keep_the_text_as_written_for_bolding() -> None:
    found = {word.surface for word in words("A Mixture-of-Graphs (MoG) sparsifies GNNs.")}
    assert found == {"A", "Mixture-of-Graphs", "MoG", "sparsifies", "GNNs"}


def test_acronyms_defined_in_text_are_found_with_their_long_forms() -> None:
    text = (
        "Multimodal Large Language Models (MLLMs) fail on Out-of-distribution (OOD) data; "
        "we use Mixed Integer Linear Programming (MILP) and a Mixture-of-Experts (MoE)."
    )
    pairs = {acronym.token: acronym.long_form for acronym in find_acronyms(text)}
    assert pairs == {
        "mllm": "Multimodal Large Language Models",
        "ood": "Out-of-distribution",
        "milp": "Mixed Integer Linear Programming",
        "moe": "Mixture-of-Experts",
    }


def test_parenthesised_words_that_are_not_acronyms_are_ignored() -> None:
    assert list(find_acronyms("results (see Table 2) and (P1) and (e.g., this) (CIFAR)")) == []


def test_mining_keeps_each_acronyms_most_common_long_form() -> None:
    texts = [
        "Reinforcement Learning (RL) is used.",
        "Robust Learning (RL) appears once.",
        "We study Reinforcement Learning (RL).",
    ]
    assert mine_acronyms(texts)["rl"].long_form == "Reinforcement Learning"


def test_indexing_chunk_by_chunk_gives_the_same_tokens_as_analyze(
    seed_corpus: LoadedCorpus,
) -> None:
    analyzer = CorpusAnalyzer({})
    odd = "HGM³ (MLLMs) \u03b1-entmax, e.g. GPT-4o's"
    for paper in seed_corpus.papers:
        for text in (paper.title, paper.plain_abstract, odd):
            assert analyzer.tokens(text) == analyze(text)


def test_a_compound_hyphenated_anywhere_is_split_in_every_spelling() -> None:
    analyzer = CorpusAnalyzer.for_chunks(["an", "auto-regressive", "model", "autoregressive"])
    assert analyzer.splits == {"autoregress": ("auto", "regress")}
    hyphenated = analyzer.tokens("auto-regressive")
    joined = analyzer.tokens("autoregressive")
    assert sorted(hyphenated) == sorted(joined) == ["auto", "autoregress", "regress"]
    assert analyzer.query_word("auto-regressive").tokens == ("autoregress",)
    assert analyzer.query_word("autoregressive").tokens == ("autoregress",)


def test_a_compound_hyphenated_anywhere_is_joined_where_it_is_written_apart_too() -> None:
    analyzer = CorpusAnalyzer.for_chunks(["Mixture-of-Experts", "self-supervised", "pre-training"])
    compound = ["mixtur", "expert", "mixtureofexpert"]
    for spelling in ("mixture-of-experts", "mixtureofexperts", "mixture of experts"):
        assert sorted(analyzer.tokens(spelling)) == sorted(compound)
    assert analyzer.tokens("sparse (Mixture of Experts), routed") == ["spars", *compound, "rout"]
    assert "mixtureofexpert" in analyzer.tokens("a mixture of expert models")
    for spelling in ("self-supervised", "self supervised", "selfsupervised"):
        assert "selfsupervis" in analyzer.tokens(spelling)
    for spelling in ("pre-training", "pre training", "pretraining", "pre-trained"):
        assert "pretrain" in analyzer.tokens(spelling)
    # Apart means next to each other, with nothing but spaces between.
    assert "mixtureofexpert" not in analyzer.tokens("a mixture. Of experts")
    assert "mixtureofexpert" not in analyzer.tokens("mixture and experts")
    assert "selfsupervis" not in analyzer.tokens("self-attention, supervised")


def test_spaced_compounds_index_as_analysed_and_find_each_other_in_phrases(
    seed_corpus: LoadedCorpus,
) -> None:
    base = seed_corpus.papers[0]
    written = {
        "a": ("Sparse Mixture-of-Experts", "Routing tokens."),
        "b": ("Training sparse mixture of experts", "Upcycling (mixture of experts)."),
        "c": ("Mixtureofexperts at scale", "No routing here."),
        "d": ("A mixture of many experts", "Not the compound."),
    }
    papers = [
        replace(base, id=key, title=title, abstract=abstract, plain_abstract=abstract)
        for key, (title, abstract) in written.items()
    ]
    index = SearchIndex.build(papers)
    title = ["train", "spars", "mixtur", "expert", "mixtureofexpert"]
    assert field_tokens(index._analyzer, papers[1]) == (
        title,
        [*title, "upcycl", "mixtur", "expert", "mixtureofexpert"],
    )
    for query in ("mixture-of-experts", "mixtureofexperts", '"mixture of experts"'):
        assert {hit.paper.id for hit in index.search(query).hits} == {"a", "b", "c"}, query
    assert {hit.paper.id for hit in index.search('"mixture-of-experts"').hits} == {"a", "b", "c"}
    spaced = index.search("mixture of experts")
    assert {"a", "b", "c"} <= {hit.paper.id for hit in spaced.hits}
    shown = index.search("mixture-of-experts").hits
    assert {"mixture", "experts"} <= set(next(h for h in shown if h.paper.id == "b").matched_terms)


def test_mining_stops_reading_an_acronym_once_it_is_settled() -> None:
    texts = ["Reinforcement Learning (RL) here."] * 2 + ["Robust Learning (RL) there."] * 3
    assert mine_acronyms(texts, enough=2)["rl"].long_form == "Reinforcement Learning"
    assert mine_acronyms(texts, enough=10)["rl"].long_form == "Robust Learning"


def test_marked_words_flag_other_forms_of_a_matched_word_and_keep_the_text() -> None:
    pieces = marked_words("Sparse graphs … more", ["graph"])
    assert pieces == (("Sparse ", False), ("graphs", True), (" … more", False))
    assert marked_words("nothing matched", []) == (("nothing matched", False),)


def test_marked_words_flag_only_the_parts_of_a_hyphenated_word_that_were_searched() -> None:
    text = "We introduce Mixture-of-Graphs, from Mixture-of-Experts, via graph-feature-selection."
    flagged = [piece for piece, bold in marked_words(text, analyze("graph sparsification")) if bold]
    assert flagged == ["Graphs", "graph"]
    joined = marked_words("an auto-regressive model", analyze("autoregressive"))
    assert [piece for piece, bold in joined if bold] == ["auto-regressive"]


def test_memory_stays_flat_under_a_long_stream_of_unique_query_words(seed_corpus) -> None:
    """Anyone can type words the bot never saw: once every cache is full, thousands more
    unique words leave nothing behind (before, each one stayed for the life of the process)."""
    analyzer = CorpusAnalyzer.for_chunks(
        {chunk for paper in seed_corpus.papers for chunk in paper.plain_abstract.split()}
    )
    analyzer.forget_chunks()  # as the index does once it is built
    rng = random.Random(11)

    def query() -> str:
        return " ".join(
            "".join(rng.choice(string.ascii_lowercase) for _ in range(9)) for _ in range(3)
        )

    for _ in range(25_000):  # 75,000 unique words: more than any cache holds
        analyzer.words(query())
    gc.collect()
    full = sys.getallocatedblocks()
    for _ in range(5_000):
        analyzer.words(query())
    gc.collect()
    growth = sys.getallocatedblocks() - full
    assert growth < 1_000, f"{growth} more memory blocks after 15,000 new words"
