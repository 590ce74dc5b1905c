"""The fast index scores exactly what rank-bm25's BM25Okapi scores, on the same tokens: each
field bit for bit, and a paper's score as the fields' scores weighted and added."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from rank_bm25 import BM25Okapi
from reference import FieldedBM25Okapi, document_tokens

from bot.papers.corpus import LoadedCorpus, load_corpus
from bot.papers.paper import Paper
from bot.search import bm25 as bm25_module
from bot.search import indexing, ranker
from bot.search import pruned as pruning
from bot.search.bm25 import K1, B, BM25Index, _BlockDocs, _PairCodes, top_k
from bot.search.engine import SearchIndex
from bot.search.fielded import FieldedBM25
from bot.search.pruned import PrunedRanking

Fields = list[list[list[str]]]  # per field, every document's tokens


def ranked(index: BM25Index | FieldedBM25, query: list[str], k: int) -> list[tuple[int, float]]:
    """The ``k`` best documents holding a query token, by full scoring: (document, score)."""
    scores = index.scores(query)
    docs = top_k(scores, k, candidates=np.flatnonzero(index.matches(query)))
    return [(int(doc), float(scores[doc])) for doc in docs]


def fielded(
    fields: Fields, weights: tuple[float, ...], k1: tuple[float, ...], b: float = B
) -> FieldedBM25:
    indexes = [BM25Index(documents, k1=k, b=b) for documents, k in zip(fields, k1, strict=True)]
    return FieldedBM25(indexes, weights)


def assert_same_as_rank_bm25(documents: list[list[str]], queries: list[list[str]]) -> None:
    """One field, weighing 1: the index's scores are BM25Okapi's own."""
    assert_fields_same_as_rank_bm25([documents], (1.0,), (K1,), queries)


def assert_fields_same_as_rank_bm25(
    fields: Fields,
    weights: tuple[float, ...],
    k1: tuple[float, ...],
    queries: list[list[str]],
    b: float = B,
) -> None:
    """Every field's scores are BM25Okapi's over that field's documents, bit for bit; a
    paper's score is theirs weighted and added in field order, and the full and the pruned
    rankings both list the documents holding a query token in some field by it."""
    reference = FieldedBM25Okapi(fields, weights, k1, b)
    index = fielded(fields, weights, k1, b)
    pruned = PrunedRanking(index)
    size = len(fields[0])
    for query in queries:
        for field, field_reference in zip(index.fields, reference.fields, strict=True):
            # Weights are added in query order, as rank-bm25 does, so not a bit may differ.
            expected = field_reference.get_scores(query)
            assert field.scores(query).tobytes() == expected.tobytes(), query
        expected = reference.get_scores(query)
        assert index.scores(query).tobytes() == expected.tobytes(), query
        best = ranked(index, query, 10)
        matching = [
            doc for doc in range(size) if any(set(query) & set(field[doc]) for field in fields)
        ]
        reference_top = sorted(matching, key=lambda doc: (-expected[doc], doc))[:10]
        assert [doc for doc, _ in best] == reference_top
        assert [score for _, score in best] == [expected[doc] for doc in reference_top]
        for k in (1, 10):
            ranking = pruned.best(query, k)
            if ranking is not None:  # None sends the caller to the full scoring above
                assert ranking.docs.tolist() == reference_top[:k], query
                assert ranking.scores.tobytes() == expected[reference_top[:k]].tobytes()
                assert ranking.total == len(matching)


def random_corpus(rng: random.Random, size: int) -> list[list[str]]:
    vocabulary = [f"w{i}" for i in range(60)]
    return [
        [rng.choice(vocabulary[: rng.randint(1, 60)]) for _ in range(rng.randint(0, 40))]
        for _ in range(size)
    ]


def zipf_corpus(
    rng: random.Random, size: int, shortest: int = 5, longest: int = 150
) -> list[list[str]]:
    """Documents of 5-150 words drawn from a Zipf-like vocabulary, as real text is, with
    every tenth document a copy of another so that equal scores must be tie-broken."""
    vocabulary = [f"w{i}" for i in range(3000)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    documents: list[list[str]] = []
    for number in range(size):
        if number % 10 == 9:
            documents.append(list(rng.choice(documents)))
        else:
            documents.append(rng.choices(vocabulary, weights, k=rng.randint(shortest, longest)))
    return documents


def zipf_papers(rng: random.Random, size: int, blank_share: float = 0.3) -> Fields:
    """Titles of 3-15 words and abstracts of 5-150 from one Zipf-like vocabulary; a
    ``blank_share`` of the papers (every tenth a copy of another) have an empty abstract."""
    titles = zipf_corpus(rng, size, 3, 15)
    abstracts = [[] if rng.random() < blank_share else doc for doc in zipf_corpus(rng, size)]
    for number in range(9, size, 10):  # whole copies, so that papers tie on both fields
        titles[number] = list(titles[number - 9])
        abstracts[number] = list(abstracts[number - 9])
    return [titles, abstracts]


TEST_WEIGHTS = (1.7, 0.9)  # not the engine's: any positive weights must score exactly
TEST_K1 = (1.2, 0.4)


def test_the_pruned_ranking_is_the_full_one_and_is_usually_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``best`` scores only the documents that can make the cut: whenever it answers, it must
    give the full ranking's documents, order, bit-identical scores and match count. (Pruning
    is allowed whatever it saves, so that most queries of this small corpus take it.)"""
    monkeypatch.setattr(pruning, "_SMALL_QUERY", 1 << 30)
    monkeypatch.setattr(pruning, "_FEW_CONTENDERS", 0)  # candidates always thinned first
    monkeypatch.setattr(pruning, "_SKETCHED", 40)  # frequent terms' counts read off sketches
    rng = random.Random(2025)
    fields = zipf_papers(rng, 3000)
    reference = FieldedBM25Okapi(fields, TEST_WEIGHTS, TEST_K1)
    index = PrunedRanking(fielded(fields, TEST_WEIGHTS, TEST_K1))
    tiebreak = np.array(rng.sample(range(3000), 3000))
    words = [f"w{i}" for i in range(3000)] + ["unknown"]
    weights = [1 / (rank + 1) ** 0.7 for rank in range(len(words))]
    answered = asked = 0
    for _ in range(150):
        query = rng.choices(words, weights, k=rng.randint(1, 6))
        expected = reference.get_scores(query)
        matching = [doc for doc in range(3000) if set(query) & {*fields[0][doc], *fields[1][doc]}]
        ranked = sorted(matching, key=lambda doc: (-expected[doc], tiebreak[doc]))
        for k in (1, 5, 10, 40):
            asked += 1
            ranking = index.best(query, k, tiebreak)
            if ranking is None:
                continue
            answered += 1
            assert ranking.docs.tolist() == ranked[:k], (query, k)
            assert ranking.scores.tobytes() == expected[ranked[:k]].tobytes(), (query, k)
            assert ranking.total == len(matching), (query, k)
    assert answered >= 0.8 * asked


def test_every_split_of_theta_keeps_every_document_that_reaches_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However θ is split among the terms (all on one term, in proportion to the bounds, or
    by the Lagrangian search over sketched counts), a document scoring at least θ is always a
    candidate, and the candidates' exact scores are the full scoring's."""
    monkeypatch.setattr(pruning, "_SKETCHED", 40)
    rng = random.Random(7)
    index = fielded(zipf_papers(rng, 3000), TEST_WEIGHTS, TEST_K1)
    words = [f"w{i}" for i in range(400)]
    for _ in range(120):
        query = rng.choices(words, k=rng.randint(2, 7))
        pruned = pruning._PrunedQuery(PrunedRanking(index), query)
        if len(pruned.terms) < 2:
            continue
        scores = index.scores(query)
        for theta in np.quantile(scores[scores > 0], [0.5, 0.9, 0.99, 1.0]):
            reaching = set(np.flatnonzero(scores >= theta).tolist())
            target = theta - pruned._slack * (1 + len(pruned.terms))
            size, allocation = pruned._balanced(target)
            chosen = set()
            for term, code in allocation.items():
                chosen |= set(pruned._selected(term, code).docs.tolist())
            assert reaching <= chosen, (query, theta)
            assert len(chosen) <= size
            found = pruned.candidates(theta, pruned.leaders(1, 64))  # maybe those leaders
            if found is not None:
                assert reaching <= set(found.docs.tolist())
                exact = pruned.exact_scores(found)
                assert exact.tobytes() == scores[found.docs].tobytes()


def test_pairs_of_equal_weight_tie_in_the_pruned_ranking_too() -> None:
    """With an average length of exactly 3, one "a" in a 1-token document weighs exactly what
    two do in a 3-token one: the pruned ranking must see the tie and break it by document."""
    documents = [["a"], ["a", "a", "b0"], [f"f{i}" for i in range(5)]]
    documents += [[f"g{i}_{j}" for j in range(3)] for i in range(40)]
    index = BM25Index(documents)
    assert index.avgdl == 3.0
    assert index.scores(["a"])[0] == index.scores(["a"])[1]
    assert_same_as_rank_bm25(documents, [["a"], ["a", "b0"], ["a", "a"]])


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7, 50, 400])
def test_random_corpora_score_identically(size: int) -> None:
    rng = random.Random(size)
    documents = random_corpus(rng, size)
    if not any(documents):
        documents[0] = ["w0"]
    queries = [
        [rng.choice([f"w{i}" for i in range(62)]) for _ in range(rng.randint(1, 8))]
        for _ in range(60)
    ]
    assert_same_as_rank_bm25(documents, queries)


@pytest.mark.parametrize("size", [1, 2, 3, 7, 50, 400])
@pytest.mark.parametrize("weights", [TEST_WEIGHTS, (0.25, 4.0)])
def test_each_field_scores_as_rank_bm25_over_it_with_empty_abstracts(
    size: int, weights: tuple[float, float]
) -> None:
    """Titles and abstracts are two corpora with their own lengths and idfs; a paper
    without an abstract is an empty abstract document (40% of them here). Weights that are
    powers of two scale each posting's weight instead of the scores, with the same bits."""
    rng = random.Random(100 + size)
    titles = [document[:12] for document in random_corpus(rng, size)]
    abstracts = [[] if rng.random() < 0.4 else doc for doc in random_corpus(rng, size)]
    for field in (titles, abstracts):  # rank-bm25 divides by a zero average length
        if not any(field):
            field[0] = ["w0"]
    queries = [
        [rng.choice([f"w{i}" for i in range(62)]) for _ in range(rng.randint(1, 8))]
        for _ in range(60)
    ]
    assert_fields_same_as_rank_bm25([titles, abstracts], weights, TEST_K1, queries)


def test_tiny_corpora_keep_rank_bm25s_negative_floor() -> None:
    documents = [["graph", "graph", "node"], ["graph", "edge"]]
    index = BM25Index(documents)
    reference = BM25Okapi(documents)
    assert index.average_idf < 0
    assert index.scores(["graph"]).tobytes() == reference.get_scores(["graph"]).tobytes()
    assert (index.scores(["graph"]) < 0).all()


def test_terms_in_over_half_the_documents_all_weigh_the_same_floor() -> None:
    documents = [["model", "learn", f"topic{i}"] for i in range(10)] + [["rare"]]
    index = BM25Index(documents)
    vocabulary = index.vocabulary
    assert index.idf[vocabulary["model"]] == index.idf[vocabulary["learn"]]
    assert index.idf[vocabulary["model"]] == pytest.approx(0.25 * index.average_idf)


def test_duplicate_query_tokens_count_twice() -> None:
    documents = [["sparse", "graph"], ["dense", "graph"], ["tree"]]
    index = BM25Index(documents)
    once = index.scores(["sparse"])
    assert index.scores(["sparse", "sparse"]).tolist() == (once + once).tolist()


def test_unknown_tokens_score_nothing_and_match_nothing() -> None:
    index = BM25Index([["a1"], ["b2"]])
    assert index.scores(["zzz"]).tolist() == [0.0, 0.0]
    assert ranked(index, ["zzz"], 5) == []


def test_holders_are_every_paper_holding_a_token_in_either_field_asked_again_and_again() -> None:
    titles = [["graph"], ["graph", "tree"], [], ["tree"], ["graph"]]
    texts = [["graph", "x"], ["graph", "tree"], ["tree"], ["y"], ["graph"]]
    index = fielded((titles, texts), (1.0, 1.0), (1.2, 1.2))
    for _ in range(3):  # the first answer is remembered; the later ones must agree
        assert sorted(index.holders("graph").tolist()) == [0, 1, 4]  # titles within texts
        assert sorted(index.holders("tree").tolist()) == [1, 2, 3]  # paper 3: title only
        assert sorted(index.holders("x").tolist()) == [0]
        assert index.holders("zzz").tolist() == []
        assert index.document_frequency("tree") == 3


def test_ties_are_broken_by_document_number_or_by_the_given_key() -> None:
    scores = np.array([1.0, 3.0, 3.0, 2.0, 3.0])
    assert top_k(scores, 2).tolist() == [1, 2]
    assert top_k(scores, 3, tiebreak=np.array([0, 9, 5, 0, 1])).tolist() == [4, 2, 1]
    assert top_k(scores, 10, candidates=np.array([0, 3])).tolist() == [3, 0]
    assert top_k(scores, 0).tolist() == []


@pytest.fixture(scope="module")
def catalogue() -> LoadedCorpus:
    return load_corpus("catalogue")


def real_queries(corpus: LoadedCorpus, index: SearchIndex, count: int) -> list[list[str]]:
    """Queries made of real paper tokens: three from each sampled paper's own text."""
    rng = random.Random(7)
    papers = rng.sample(corpus.papers, count)
    return [rng.sample([*title, *abstract], 3) for title, abstract in map(tokens_of(index), papers)]


def tokens_of(index: SearchIndex) -> Callable[[Paper], tuple[list[str], list[str]]]:
    return lambda paper: document_tokens(index, paper)


def indexed_fields(index: SearchIndex, papers: Sequence[Paper]) -> Fields:
    """Each field's token lists, as the index holds them."""
    documents = list(map(tokens_of(index), papers))
    return [[title for title, _ in documents], [abstract for _, abstract in documents]]


def test_seed_corpus_scores_identically(seed_corpus: LoadedCorpus) -> None:
    index = SearchIndex.build(seed_corpus.papers)
    queries = [*real_queries(seed_corpus, index, 40), ["graph", "sparsifi"], ["model"] * 3]
    fields = indexed_fields(index, seed_corpus.papers)
    assert_fields_same_as_rank_bm25(
        fields, indexing.FIELD_WEIGHTS, indexing.FIELD_K1, queries, indexing.FIELD_B
    )


@pytest.mark.parametrize(("counted", "stored"), [(7, 20), (4096, 1 << 16)])
def test_the_search_index_built_in_blocks_scores_identically(
    seed_corpus: LoadedCorpus, monkeypatch: pytest.MonkeyPatch, counted: int, stored: int
) -> None:
    """The search index counts papers' terms block by block from chunk numbers; every score
    must still be rank-bm25's over the token lists it reports."""
    monkeypatch.setattr(indexing, "_INDEX_BLOCK", counted)
    monkeypatch.setattr(indexing, "_RUN_BLOCK", stored)
    index = SearchIndex.build(seed_corpus.papers)
    fields = indexed_fields(index, seed_corpus.papers)
    reference = FieldedBM25Okapi(
        fields, indexing.FIELD_WEIGHTS, indexing.FIELD_K1, indexing.FIELD_B
    )
    queries = [*real_queries(seed_corpus, index, 40), ["graph", "sparsifi"], ["model"] * 3]
    for query in queries:
        expected = reference.get_scores(query).tobytes()
        assert index._bm25.scores(query).tobytes() == expected, query


def test_catalogue_scores_identically(catalogue: LoadedCorpus) -> None:
    index = SearchIndex.build(catalogue.papers)
    fields = indexed_fields(index, catalogue.papers)
    queries = real_queries(catalogue, index, 25)
    assert_fields_same_as_rank_bm25(
        fields, indexing.FIELD_WEIGHTS, indexing.FIELD_K1, queries, indexing.FIELD_B
    )


def test_search_pages_are_the_same_whether_pruned_or_fully_scored(
    catalogue: LoadedCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a researcher sees (papers, order, scores, match count, bolded words) must not
    depend on whether the engine pruned the query, whatever the corpus size."""
    index = SearchIndex.build(catalogue.papers)
    rng = random.Random(11)
    queries = []
    for paper in rng.sample([p for p in catalogue.papers if p.abstract], 60):
        words = paper.plain_abstract.split()
        start = rng.randrange(len(words))
        queries.append(" ".join(words[start : start + rng.randint(1, 5)]))
    queries += [p.title for p in rng.sample([p for p in catalogue.papers if not p.abstract], 20)]

    def pages() -> list[tuple[object, ...]]:
        results = [
            index.search(query, limit=10, offset=offset) for query in queries for offset in (0, 5)
        ]
        return [
            (result.total, [(hit.paper.id, hit.score, hit.matched_terms) for hit in result.hits])
            for result in results
        ]

    monkeypatch.setattr(ranker, "PRUNING_MIN_PAPERS", 0)
    pruned = pages()
    monkeypatch.setattr(ranker, "PRUNING_MIN_PAPERS", sys.maxsize)
    assert pages() == pruned


def test_a_term_repeated_beyond_two_bytes_of_tf_still_scores_identically() -> None:
    documents = [["echo"] * 70_000 + ["rare"], ["echo", "other"], ["other"], ["rare", "x"]]
    assert_same_as_rank_bm25(documents, [["echo"], ["rare", "echo"], ["other", "x"]])


def test_more_distinct_tf_and_length_pairs_than_two_byte_codes_hold() -> None:
    tfs = np.arange(1, 70_001, dtype=np.uint32)  # one posting per document, every pair new
    lengths = tfs.astype(np.int64) + 5
    docs = _BlockDocs(np.arange(len(tfs) + 1, dtype=np.int64))
    index = BM25Index([["a"]])
    codes = _PairCodes(tfs, lengths, docs, index._ratio_of)
    assert codes.dtype == np.uint32
    expected = index._ratio_of(tfs.astype(np.int64), lengths)
    assert codes.ratios[codes(0, len(tfs))].tobytes() == expected.tobytes()


def test_a_token_s_papers_are_those_holding_it_in_either_field() -> None:
    rng = random.Random(4)
    fields = zipf_papers(rng, 400)
    index = fielded(fields, TEST_WEIGHTS, TEST_K1)
    frequencies = index.document_frequencies(2)
    for token in [f"w{i}" for i in range(300)] + ["unknown"]:
        holding = [doc for doc in range(400) if any(token in field[doc] for field in fields)]
        assert index.documents(token).tolist() == holding, token
        assert index.document_frequency(token) == len(holding), token
        assert frequencies.get(token, 0) == (len(holding) if len(holding) >= 2 else 0), token
        assert (token in index) == bool(holding)


def test_a_query_holding_one_title_term_adds_the_title_only_where_it_is() -> None:
    """``FieldedBM25.scores`` adds the title's postings alone when the query holds one of its
    terms, however often: the scores stay rank-bm25's bit for bit, in any word order."""
    titles = [["graph"], ["graph", "graph", "cut"], [], ["flow"], ["cut"]]
    texts = [["graph", "flow", "cut"], ["sparse"], ["graph", "graph"], [], ["flow", "flow"]]
    queries = [
        ["graph"],
        ["graph", "graph"],
        ["sparse", "graph", "sparse"],
        ["flow", "sparse"],
        ["graph", "nothing", "graph", "sparse"],
        ["sparse"],
        ["cut", "flow"],
    ]
    assert_fields_same_as_rank_bm25([titles, texts], TEST_WEIGHTS, TEST_K1, queries)


@pytest.mark.parametrize("size", [2, 60, 800])
@pytest.mark.parametrize("weight", [0.25, 1.7, 1.0])
def test_a_fields_scores_added_where_its_postings_are_are_its_vector_added_bit_for_bit(
    size: int, weight: float
) -> None:
    """``BM25Index.add_scores`` sums each document's weights in a scratch array of zeros, in
    query order, repeats included, and adds them times ``weight`` where the postings are:
    exactly ``total + scores * weight``, with the scratch array all zeros again after, for
    terms in few documents and in most."""
    rng = random.Random(size)
    index = BM25Index(zipf_corpus(rng, size))
    words = [f"w{i}" for i in range(0, 3000, 7)] + ["nothing"]
    for _ in range(80):
        query = [rng.choice(words) for _ in range(rng.randint(1, 9))]
        query += rng.sample(query, rng.randint(0, len(query)))  # repeats, anywhere
        rng.shuffle(query)
        total = np.array([rng.uniform(0, 30) for _ in range(size)])
        expected = total + index.scores(query) * weight
        index.add_scores(total, query, weight)
        assert total.tobytes() == expected.tobytes()
        assert not any(field.any() for field in bm25_module._ZEROED)


def test_threads_adding_a_fields_scores_at_once_do_not_mix_their_sums() -> None:
    """An array of zeros serves one query at a time: two threads adding different queries
    at the same time each get their own query's scores, and the arrays kept are as many as
    scored at once."""
    rng = random.Random(3)
    index = BM25Index(zipf_corpus(rng, 3000))
    queries = [[f"w{rng.randrange(40, 3000)}" for _ in range(6)] for _ in range(40)]
    expected = [index.scores(query) * 0.25 for query in queries]

    def summed(offset: int) -> bool:
        for _ in range(30):
            for number in range(offset, len(queries), 2):
                total = np.zeros(len(index))
                index.add_scores(total, queries[number], 0.25)
                if total.tobytes() != expected[number].tobytes():
                    return False
        return True

    bm25_module._ZEROED.clear()
    with ThreadPoolExecutor(2) as pool:
        assert all(pool.map(summed, (0, 1)))
    assert 1 <= len(bm25_module._ZEROED) <= 2


def test_a_sum_that_fails_half_way_leaves_the_next_query_a_clean_scratch_array(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sums interrupted between their two steps are not added into the next query's: their
    array is not given back."""
    index = BM25Index([["graph", "cut"], ["graph"], ["flow", "cut"]] + [["sparse"]] * 9)
    query = ["graph", "cut"]

    def fails(*args: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(bm25_module, "move_postings", fails)
        with pytest.raises(KeyboardInterrupt):
            index.add_scores(np.zeros(len(index)), query, 1.0)
    total = np.zeros(len(index))
    index.add_scores(total, query, 1.0)
    assert total.tobytes() == index.scores(query).tobytes()


@pytest.mark.parametrize("size", [7, 50, 400])
def test_fields_score_as_rank_bm25_with_the_title_added_where_it_is(size: int) -> None:
    """The title added where its postings are (``BM25Index.add_scores``), a paper's score is
    still each field's rank-bm25 score weighted and added, whatever the weights."""
    rng = random.Random(300 + size)
    titles, abstracts = zipf_papers(rng, size)
    words = [f"w{i}" for i in range(0, 400, 3)]
    queries = [[rng.choice(words) for _ in range(rng.randint(1, 8))] for _ in range(60)]
    assert_fields_same_as_rank_bm25([titles, abstracts], TEST_WEIGHTS, TEST_K1, queries)
    assert_fields_same_as_rank_bm25([titles, abstracts], (0.25, 1.0), TEST_K1, queries)
