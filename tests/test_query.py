"""Taking a typed query apart, and correcting typos against corpus words."""

from __future__ import annotations

from bot.search.query import (
    MAX_QUERY_CHARS,
    edit_distance,
    parse_query,
)
from bot.search.results import AUTHOR, EXCLUSION, FIELDS, FILTERS, LIKE, PHRASE, field_name, written
from bot.search.spelling import SpellCorrector


def test_plain_words_keep_their_positions_for_rewriting() -> None:
    parsed = parse_query("spikng neural")
    assert [(w.text, w.start, w.end) for w in parsed.words] == [
        ("spikng", 0, 6),
        ("neural", 7, 13),
    ]


def test_phrases_exclusions_authors_and_like_are_separated() -> None:
    parsed = parse_query(
        '"graph neural" -diffusion -"large language" author:"Yoshua Bengio" author:liu like:abc x'
    )
    assert parsed.phrases == ("graph neural",)
    assert parsed.excluded == ("diffusion", "large language")
    assert parsed.authors == ("Yoshua Bengio", "liu")
    assert parsed.like == "abc"
    assert [w.text for w in parsed.words] == ["x"]


def test_hyphenated_words_and_lone_dashes_are_not_exclusions() -> None:
    parsed = parse_query("state-of-the-art - --flag")
    assert parsed.excluded == ()
    assert [w.text for w in parsed.words] == ["state-of-the-art", "-", "--flag"]


def test_smart_and_unclosed_quotes_still_make_phrases() -> None:
    assert parse_query("\u201cattention sink\u201d").phrases == ("attention sink",)
    assert parse_query('"attention sink').phrases == ("attention sink",)


def test_a_link_alone_is_a_reference_by_its_openreview_id() -> None:
    for url in (
        "https://openreview.net/forum?id=7ANDviElAo",
        "<https://openreview.net/pdf?id=7ANDviElAo&amp;noteId=x>",
        "<https://openreview.net/forum?id=7ANDviElAo|the paper we discussed>",
    ):
        assert parse_query(url).reference == "7ANDviElAo"
    # Not a paper's page on OpenReview: the link itself, never a search for "https".
    elsewhere = "https://example.org/?id=7ANDviElAo"
    assert parse_query(elsewhere).reference == elsewhere
    assert parse_query(f"<{elsewhere}|a label>").reference == elsewhere


def test_control_characters_are_dropped_and_long_queries_cut() -> None:
    assert parse_query("graph\x00\x1b sparsification").words[1].text == "sparsification"
    parsed = parse_query("word " * 5000)
    assert parsed.truncated
    assert len(parsed.text) <= MAX_QUERY_CHARS


def test_empty_queries_are_empty() -> None:
    assert parse_query("").is_empty
    assert parse_query("   ").is_empty
    assert parse_query("-diffusion").is_empty


def test_edit_distance_counts_a_swap_of_neighbours_as_one() -> None:
    assert edit_distance("grpah", "graph", 2) == 1
    assert edit_distance("spikng", "spiking", 2) == 1
    assert edit_distance("kitten", "sitting", 2) == 3  # beyond the limit: limit + 1
    assert edit_distance("same", "same", 2) == 0


def test_corrector_prefers_the_closest_then_the_most_frequent_word() -> None:
    corrector = SpellCorrector({"graph": 50, "grasp": 2, "neural": 40, "natural": 3})
    assert corrector.correct("grpah") == "graph"
    assert corrector.correct("Nueral") == "neural"
    assert corrector.correct("grap") == "graph"  # graph and grasp are both 1 away
    assert corrector.correct("xylophone") is None


def test_a_word_longer_than_any_corpus_word_is_left_alone_at_once() -> None:
    corrector = SpellCorrector({"graph": 50, "sparsification": 3})
    assert corrector.correct("a" * 1000) is None
    assert "_by_deletion" not in vars(corrector)  # no deletion map was needed to say so
    assert corrector.correct("sparsificatoin") == "sparsification"


def test_short_everyday_words_are_not_turned_into_unrelated_corpus_words() -> None:
    corrector = SpellCorrector({"law": 30, "even": 40, "transformer": 20, "graph": 10})
    assert corrector.correct("saw") is None  # three letters: never corrected
    assert corrector.correct("never") is None  # two edits from "even": too far for 5 letters
    assert corrector.correct("grah") == "graph"  # one slip in a short word still is
    assert corrector.correct("transfomrer") == "transformer"  # long words allow two edits


def test_an_unquoted_author_records_the_free_words_right_after_it() -> None:
    parsed = parse_query('author:Stefanie Jegelka graphs "x y" tail author:"Le Song" z')
    assert parsed.authors == ("Stefanie", "Le Song")
    assert [parsed.words[i].text for i in parsed.author_tails[0]] == ["Jegelka", "graphs"]
    assert parsed.author_tails[1] == ()
    assert parse_query("author:Bengio -diffusion graphs").author_tails == ((),)


def test_a_field_with_nothing_after_it_is_bare_not_a_word() -> None:
    for text in ("like:", "like: 7ANDviElAo", "author:"):
        parsed = parse_query(text)
        assert parsed.bare_fields == (text.split(":")[0],)
        assert "like:" not in [word.text for word in parsed.words]
    assert parse_query("like:abc").bare_fields == ()


LINK = "https://openreview.net/forum?id=7ANDviElAo"


def test_a_query_names_one_paper_by_its_id_or_link_alone_or_one_link_among_words() -> None:
    assert parse_query(LINK).named_reference == "7ANDviElAo"
    assert parse_query("7ANDviElAo").named_reference == "7ANDviElAo"
    assert parse_query("graph sparsification").named_reference is None
    assert parse_query(f"has anyone read <{LINK}>?").linked_reference == "7ANDviElAo"
    for search in (f"author:Chen {LINK}", f'"a phrase" {LINK}', f"-graph {LINK}"):
        assert parse_query(search).linked_reference is None  # a search to run
    two = "https://openreview.net/forum?id=78Nn4QJTEN"
    assert parse_query(f"{LINK} or {two}").linked_reference is None


def test_the_parser_reads_the_operators_of_the_table() -> None:
    """Each operator of ``OPERATORS`` is what the parser reads, written as its syntax."""
    parsed = parse_query(
        f"{AUTHOR.prefix}x {LIKE.prefix}y {PHRASE.prefix}z{PHRASE.closing} {EXCLUSION.prefix}w"
    )
    assert (parsed.authors, parsed.like, parsed.phrases, parsed.excluded) == (
        ("x",),
        "y",
        ("z",),
        ("w",),
    )
    assert {field_name(field) for field in FIELDS} == {
        "author",
        "like",
        "since",
        "before",
        "source",
        "venue",
        "category",
    }
    filters = " ".join(written(operator, operator.examples[0]) for operator in FILTERS)
    assert [(typed.field, typed.value) for typed in parse_query(filters).filters] == [
        ("since", "2026-11-01"),
        ("before", "2026-11-15"),
        ("source", "arxiv"),
        ("venue", "ICLR 2026"),
        ("category", "cs.LG"),
    ]
