"""Additions where new papers change the corpus's compound rules (a compound newly
hyphenated, one written apart too often to count as the compound): the old papers read
differently, and a search finds what a full build over every paper finds."""

from __future__ import annotations

from test_library import _papers

from bot.search.engine import SearchIndex
from bot.search.library import Library

MOE_APART = "sparse mixture of experts routing"
MOE_ONE_WORD = "a sparse mixture-of-experts model"


def _ids(index: SearchIndex, query: str) -> list[str]:
    return [hit.paper.id for hit in index.search(query, limit=20).hits]


def _grown_and_full(first: list[tuple[str, str]], added: list[tuple[str, str]]):
    papers = _papers(first, 0)
    library = Library(SearchIndex.build(papers))
    more = _papers(added, len(papers))
    assert library.add(more) == len(more)
    return library.index, SearchIndex.build(papers + more)


def _assert_same(grown: SearchIndex, full: SearchIndex, queries: list[str]) -> None:
    for query in queries:
        assert _ids(grown, query) == _ids(full, query), query
        assert grown.search(query).total == full.search(query).total, query
    for mine, theirs in zip(grown._bm25.fields, full._bm25.fields, strict=True):
        assert mine.doc_len.tolist() == theirs.doc_len.tolist()


def test_a_compound_first_hyphenated_by_a_new_paper_is_found_written_apart_in_old_ones():
    first = [("Test time adaptation", "We adapt at test time."), ("Graph models", "graphs")]
    grown, full = _grown_and_full(first, [("Test-time training", "test-time compute")])
    assert "p0" in _ids(grown, "testtime")  # the old paper, which writes it apart
    _assert_same(grown, full, ["testtime", "test-time", "test time", "adaptation"])


def test_a_compound_new_papers_write_apart_too_often_stops_counting_as_one_word():
    # One use as one word for four apart: the compound counts (indexing.ONE_WORD_SHARE) ...
    first = [("MoE", MOE_ONE_WORD)] + [("Routing", MOE_APART)] * 4
    before = SearchIndex.build(_papers(first, 0))
    assert len(_ids(before, "mixture-of-experts")) == 5
    # ... until a fifth apart tips it into a phrase, in old papers too.
    grown, full = _grown_and_full(first, [("More routing", MOE_APART)])
    assert _ids(grown, "mixture-of-experts") == ["p0"]
    _assert_same(grown, full, ["mixture-of-experts", "mixture of experts", "routing"])


def test_a_compound_new_papers_write_as_one_word_starts_counting_written_apart():
    first = [("MoE", MOE_ONE_WORD)] + [("Routing", MOE_APART)] * 5
    assert len(_ids(SearchIndex.build(_papers(first, 0)), "mixture-of-experts")) == 1
    grown, full = _grown_and_full(first, [("Experts", "mixtureofexperts layers")])
    assert len(_ids(grown, "mixture-of-experts")) == 7
    _assert_same(grown, full, ["mixture-of-experts", "mixtureofexperts", "layers"])


def test_papers_that_leave_the_rules_as_they_are_are_merged_and_rank_as_a_full_build():
    first = [("MoE", MOE_ONE_WORD)] + [("Routing", MOE_APART)] * 2
    grown, full = _grown_and_full(first, [("Sparse routing", MOE_APART)])
    assert len(_ids(grown, "mixture-of-experts")) == 4
    _assert_same(grown, full, ["mixture-of-experts", "sparse routing", "experts"])


DEFINING = [
    ("Adapting large models", "We study low rank adaptation (LoRA) for fine tuning models."),
    ("Rank of adapters", "Low rank adaptation is cheap; LoRA adapters merge into weights."),
    ("Policy learning", "Reinforcement learning (RL) trains agents from reward."),
    ("Agents", "Learning agents by reinforcement, with rewards shaped by people."),
    ("Graphs", "Graph neural networks (GNNs) pass messages between nodes."),
]
DEFINING_MORE = [
    ("More RL", "Offline reinforcement learning (RL) from logged data; RL without interaction."),
    ("Vision", "Convolutional networks for images of low rank."),
]


def test_an_addition_keeps_whether_a_long_form_is_usual_only_where_no_new_paper_changes_it():
    index = SearchIndex.build(_papers(DEFINING, 0))
    index.prepare(embed=False)
    grown = index.extended(_papers(DEFINING_MORE, len(DEFINING)))
    # New papers hold "rl" (its count changes): settled again. Not LoRA (no new paper holds
    # it, nor all of low, rank, adaptation) or GNNs: kept.
    assert grown._planner._usual_long_forms == {"lora": False, "gnn": False}
    grown.prepare(embed=False)  # the others wait for a query: the new papers first
    assert grown._planner._usual_long_forms == {"lora": False, "gnn": False}
    full = SearchIndex.build(_papers(DEFINING + DEFINING_MORE, 0))
    unprepared = [_ids(full, query) for query in ("RL agents", "LoRA", "GNNs nodes")]
    full.prepare(embed=False)
    assert set(full._planner._usual_long_forms) == {"lora", "rl", "gnn"}
    assert [_ids(full, query) for query in ("RL agents", "LoRA", "GNNs nodes")] == unprepared
    assert [_ids(grown, query) for query in ("RL agents", "LoRA", "GNNs nodes")] == unprepared
    assert grown._planner._usual_long_forms == full._planner._usual_long_forms
