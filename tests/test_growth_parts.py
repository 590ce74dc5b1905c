"""An addition extends the prepared parts of the index it grows (the typo corrector and its
words, the author index and its names' corrector, the id lookups, the ties' order) instead
of building them again over every paper, and each ends as a full build's would."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_library import PAPERS, _papers

from bot.papers.corpus import LoadedCorpus, load_corpus
from bot.papers.paper import Paper
from bot.search import spelling_words
from bot.search.authors import AuthorIndex
from bot.search.engine import SearchIndex
from bot.search.mapped import Layered, MappedSlices
from bot.search.snapshot import index_key, open_snapshot, write_snapshot
from bot.search.spelling import DeletionMap, SpellCorrector
from bot.search.spelling_words import SpellingWords

TYPOS = ("spikng", "nueral", "netwroks", "difusion", "grpah", "langauge", "reinforcment")
NAMES = ("Sergei Levine", "Bengoi", "Sebastien", "Yoshau Bengio", "Jegelka", "Kaimig He")


@pytest.fixture(scope="module")
def catalogue() -> LoadedCorpus:
    return load_corpus("catalogue")


def _grown(papers: tuple[Paper, ...], first: int, sizes: list[int]) -> Iterator[SearchIndex]:
    """The index of ``papers[:first]``, prepared, then grown batch by batch, each grown
    index prepared as the library prepares it (and checked before the next: an addition's
    analyzer shares its chunks with the index it grows, ``CorpusAnalyzer.extended``)."""
    index = SearchIndex.build(papers[:first])
    index.prepare(embed=False)
    for size in sizes:
        index = index.extended(papers[len(index.papers) : len(index.papers) + size])
        assert {"spelling", "speller"} <= vars(index._planner).keys()  # extended, not built
        assert {"by_token", "_by_spelling", "speller"} <= vars(index._authors).keys()
        index.prepare(embed=False)
        yield index


def _deletion_pairs(speller: SpellCorrector) -> list[tuple[int, int]]:
    """The corrector's map as (deletion hash, word number) pairs, whatever the order of the
    words sharing a hash."""
    deletions = speller.deletions
    return sorted(zip(deletions.keys.tolist(), deletions.owners.tolist(), strict=True))


def _assert_same_corrector(grown: SpellCorrector, built: SpellCorrector, typos) -> None:
    mine, full = grown.deletions, built.deletions
    for table in ("text", "starts", "counts"):
        assert getattr(mine, table).tolist() == getattr(full, table).tolist(), table
    assert _deletion_pairs(grown) == _deletion_pairs(built)
    assert mine.longest == full.longest
    for typo in typos:
        assert grown.near(typo) == built.near(typo), typo
        assert grown.correct(typo) == built.correct(typo), typo


def _assert_same_spelling(index: SearchIndex, typos) -> None:
    built = SpellingWords.build(len(index.papers), index._bm25, index._analyzer)
    mine = index._planner.spelling
    assert mine.frequencies == built.frequencies
    assert mine.papers_of == built.papers_of
    assert {t: sorted(w) for t, w in mine.by_token.items()} == {
        t: sorted(w) for t, w in built.by_token.items()
    }
    _assert_same_corrector(index._planner.speller, SpellCorrector(built.frequencies), typos)


def _assert_same_authors(grown: AuthorIndex, papers: tuple[Paper, ...]) -> None:
    built = AuthorIndex(papers)
    assert list(grown.by_token) == list(built.by_token)  # the order too
    for token, docs in built.by_token.items():
        assert grown.by_token[token].tolist() == docs.tolist(), token
    assert grown._by_spelling == built._by_spelling
    typos = [*NAMES, *(name[::-1] for name in list(built.by_token)[:50])]
    _assert_same_corrector(grown.speller, built.speller, typos)
    for name in NAMES:
        assert grown.near_names(name) == built.near_names(name), name


def _assert_same_lookups(grown: SearchIndex, full: SearchIndex) -> None:
    assert grown._by_id == full._by_id
    assert grown._by_folded_id == full._by_folded_id
    assert grown._ranker._tiebreak.tolist() == full._ranker._tiebreak.tolist()


def test_an_addition_extends_every_prepared_part_as_a_full_build_makes_it(catalogue):
    papers = tuple(catalogue.papers)
    vocabulary_typos = [*TYPOS, "transfomer", "optimisation", "retreival", "benchmrk"]
    for index in _grown(papers, 3000, [300, 250, len(papers) - 3550]):
        _assert_same_spelling(index, vocabulary_typos)
        _assert_same_authors(index._authors, index.papers)
        _assert_same_lookups(index, SearchIndex.build(index.papers))
    assert index.search("spikng nueral netwroks").corrected_query == "spiking neural networks"
    (nobody,) = index.search("author:Sergei Levine").reasons
    assert [near.name for near in nobody.near] == ["Sergey Levine"]


def test_words_of_one_paper_join_the_corrector_once_a_second_paper_writes_them(
    catalogue, monkeypatch: pytest.MonkeyPatch
):
    """Past ``TWICE_FROM`` papers a word is a correction only once two papers hold it: an
    addition brings in the words whose token it makes common, those of old chunks too."""
    monkeypatch.setattr(spelling_words, "TWICE_FROM", 1000)
    papers = tuple(catalogue.papers)
    for index in _grown(papers, 2000, [700, 600]):
        assert index._planner.spelling.least == 2
        _assert_same_spelling(index, TYPOS)


def test_an_addition_crossing_twice_from_builds_the_corrector_again(catalogue, monkeypatch):
    monkeypatch.setattr(spelling_words, "TWICE_FROM", 2500)
    papers = tuple(catalogue.papers)
    index = SearchIndex.build(papers[:2000])
    index.prepare(embed=False)
    grown = index.extended(papers[2000:3000])
    assert "spelling" not in vars(grown._planner)  # built on first use, over every paper
    grown.prepare(embed=False)
    assert grown._planner.spelling.least == 2
    _assert_same_spelling(grown, TYPOS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    first=PAPERS.filter(len),
    batches=st.lists(PAPERS.filter(len), min_size=1, max_size=3),
    authors=st.lists(st.sampled_from(["Ada Lovelace", "Ada Byron", "Alan Turing", "Ana Müller"])),
)
def test_random_additions_extend_the_parts_as_a_full_build(first, batches, authors):
    papers = [
        _with_authors(paper, authors[at % len(authors) :][:2] if authors else ())
        for at, paper in enumerate(_papers(first, 0))
    ]
    index = SearchIndex.build(papers)
    index.prepare(embed=False)
    for batch in batches:
        added = _papers(batch, len(index.papers))
        added = [_with_authors(paper, authors[-2:]) for paper in added]
        index = index.extended(added)
        index.prepare(embed=False)
        _assert_same_spelling(index, ["graphss", "modles", "reasonng", "tokenz", "atention"])
        _assert_same_authors(index._authors, index.papers)
        _assert_same_lookups(index, SearchIndex.build(index.papers))


def _with_authors(paper: Paper, authors) -> Paper:
    return replace(paper, authors=tuple(authors))


def test_an_opened_index_grown_extends_its_mapped_corrector_as_a_full_build(catalogue, tmp_path):
    """A snapshot's corrector is a mapped ``DeletionMap``: an addition merges the new words
    into a copy; the id lookups stay mapped, the added ids beside them; the author index,
    whose name words' lists grow, becomes a dict."""
    papers = tuple(catalogue.papers)
    key = index_key("catalogue", None)
    first = LoadedCorpus(papers[:3000], (), "", "")
    write_snapshot(tmp_path, key, "catalogue", SearchIndex.build(papers[:3000]), first)
    opened, _ = open_snapshot(tmp_path, key, "catalogue", None)
    opened.prepare(embed=False)
    assert isinstance(opened._authors.by_token, MappedSlices)
    index = opened.extended(papers[3000:3400])
    assert {"spelling", "speller"} <= vars(index._planner).keys()
    assert isinstance(index._by_id, Layered) and isinstance(index._by_folded_id, Layered)
    assert isinstance(index._authors.by_token, dict)
    full = SearchIndex.build(papers[:3400])
    _assert_same_spelling(index, TYPOS)
    _assert_same_authors(index._authors, full.papers)
    assert dict(index._by_id) == full._by_id
    assert dict(index._by_folded_id) == full._by_folded_id


WORDS = st.text(alphabet="abcdeéüßz", min_size=1, max_size=9)


@settings(max_examples=60, deadline=None)
@given(
    old=st.dictionaries(WORDS, st.integers(1, 9)),
    changes=st.dictionaries(WORDS, st.integers(1, 9)),
)
def test_a_map_with_more_words_is_the_map_built_over_them_all(old, changes):
    grown = DeletionMap.build(old).with_words(changes)
    built = DeletionMap.build({**old, **changes})
    for table in ("text", "starts", "counts"):
        assert getattr(grown, table).tolist() == getattr(built, table).tolist(), table
    assert sorted(zip(grown.keys.tolist(), grown.owners.tolist(), strict=True)) == sorted(
        zip(built.keys.tolist(), built.owners.tolist(), strict=True)
    )
    assert grown.longest == built.longest
