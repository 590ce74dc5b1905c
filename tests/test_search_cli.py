"""``python -m bot search``: readable output, JSON hits, and the stdin batch mode."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys

import pytest
from project import PROJECT_ROOT

from bot.render.notes import result_text
from bot.search import semantic
from bot.search.cli import main
from bot.search.engine import SearchIndex
from bot.settings import Settings

SETTINGS = Settings(corpus="seeds")
HIT_KEYS = {
    "rank",
    "id",
    "title",
    "score",
    "bm25_score",
    "semantic_score",
    "abstract",
    "abstract_source",
    "url",
    "code_urls",
    "matched_terms",
}


def run(argv: list[str], stdin: str | None = None) -> tuple[int, str]:
    out = io.StringIO()
    if stdin is None:
        return main(argv, SETTINGS, result_text, out=out), out.getvalue()
    original = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        return main(argv, SETTINGS, result_text, out=out), out.getvalue()
    finally:
        sys.stdin = original


def test_readable_output_shows_title_status_rank_tldr_link_and_correction() -> None:
    code, out = run(["-k", "1", "spikng", "nueral", "networks"])
    assert code == 0
    assert "Showing results for: spiking neural networks" in out
    assert "1. Improving Generalization and Robustness in SNNs" in out
    assert "[Poster]\n" in out
    assert "TL;DR: " in out
    assert "https://openreview.net/forum?id=qLh6Ufvnuc" in out
    assert "2." not in out


def test_readable_output_gives_ranks_not_the_ranking_scores() -> None:
    """The re-ranked mix is standardised per query and often negative: a reader gets the
    order; the numbers are in the JSON."""
    query = ["protein", "folding"]
    _, hits = run(["--json", "-k", "10", *query])
    assert min(hit["score"] for hit in json.loads(hits)) < 0
    _, out = run(["-k", "10", *query])
    assert "score" not in out and "-0." not in out and "-1." not in out
    assert out.startswith("1. ") and "\n2. " in out


def test_k_defaults_to_five() -> None:
    _, out = run(["--json", "graph", "neural", "networks"])
    assert [hit["rank"] for hit in json.loads(out)] == [1, 2, 3, 4, 5]


def test_json_hits_have_the_documented_fields() -> None:
    code, out = run(["--json", "-k", "2", "graph", "sparsification"])
    hits = json.loads(out)
    assert code == 0 and len(hits) == 2
    first = hits[0]
    assert set(first) == HIT_KEYS
    assert first["rank"] == 1 and first["id"] == "7ANDviElAo"
    assert first["title"] == "Graph Sparsification via Mixture of Graphs"
    assert isinstance(first["score"], float) and first["score"] > hits[1]["score"]
    # BM25 is decisive ("sparsification" is rare): the model is not asked, the score is BM25's.
    assert first["bm25_score"] > 0 and first["semantic_score"] is None
    assert first["score"] == first["bm25_score"]
    assert first["abstract"].startswith("Graph Neural Networks (GNNs) have demonstrated")
    assert "\n" not in first["abstract"]
    assert first["abstract_source"].startswith("Graph Neural Networks (GNNs) have demonstrated")
    assert first["url"] == "https://openreview.net/forum?id=7ANDviElAo"
    assert first["code_urls"] == ["https://github.com/yanweiyue/MoG"]
    assert "sparsification" in first["matched_terms"]


def test_json_hits_of_a_mixed_query_carry_the_cosine() -> None:
    code, out = run(["--json", "-k", "1", "graph", "neural", "networks"])
    [hit] = json.loads(out)
    assert code == 0 and 0 < hit["semantic_score"] < 1 and hit["score"] != hit["bm25_score"]


def test_json_abstract_is_clean_text_and_the_original_is_kept_beside_it() -> None:
    code, out = run(["--json", "-k", "1", "attention", "activation", "patching", "textual"])
    [hit] = json.loads(out)
    assert code == 0 and "$1$\\%" in hit["abstract_source"]
    assert "less than 1% of diffusion models' parameters" in hit["abstract"]
    assert not any(mark in hit["abstract"] for mark in ("$", "\\", "**"))


def test_with_the_semantic_part_off_the_score_is_bm25s() -> None:
    out = io.StringIO()
    main(
        ["--json", "-k", "1", "graph", "sparsification"],
        Settings(semantic=False),
        result_text,
        out=out,
    )
    [hit] = json.loads(out.getvalue())
    assert hit["score"] == hit["bm25_score"] and hit["semantic_score"] is None


def test_a_lookup_by_id_has_a_null_score() -> None:
    _, out = run(["--json", "7ANDviElAo"])
    (hit,) = json.loads(out)
    assert hit["id"] == "7ANDviElAo" and hit["score"] is None and hit["matched_terms"] == []


def test_json_prints_only_hits_and_readable_mode_prints_the_notice() -> None:
    _, as_json = run(["--json", "the", "of"])
    assert json.loads(as_json) == []
    _, readable = run(["the", "of"])
    assert "common words" in readable


def test_double_dash_lets_a_query_start_with_a_minus() -> None:
    _, out = run(["--json", "-k", "50", "--", "-diffusion", "images"])
    hits = json.loads(out)
    assert hits
    assert all("diffusion" not in (hit["abstract"] or "").lower() for hit in hits)


def test_words_after_the_first_query_word_are_all_query() -> None:
    _, out = run(["--json", "images", "-diffusion", "-k", "3"])
    assert len(json.loads(out)) == 5  # "-k 3" is part of the query here, not the option


def test_stdin_batch_prints_one_json_array_per_line_in_order() -> None:
    code, out = run(["--json", "-k", "1", "-"], stdin="graph sparsification\n\nattention sink\n")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert json.loads(lines[0])[0]["id"] == "7ANDviElAo"
    assert json.loads(lines[1]) == []
    assert json.loads(lines[2])[0]["id"] == "78Nn4QJTEN"


def test_corpus_option_overrides_the_setting(tmp_path) -> None:
    corpus = tmp_path / "mine.jsonl"
    record = {
        "id": "abc123",
        "title": "Quokka Populations on Rottnest Island",
        "authors": ["Ann Example"],
        "abstract": "We count quokkas on an island and study their populations over years.",
        "status": "Poster",
        "url": "https://openreview.net/forum?id=abc123",
    }
    corpus.write_text(json.dumps(record) + "\n", encoding="utf-8")
    _, out = run(["--corpus", str(corpus), "--json", "quokka"])
    assert [hit["id"] for hit in json.loads(out)] == ["abc123"]


def test_an_unusable_corpus_is_an_error_not_a_traceback(tmp_path, capsys) -> None:
    code, _ = run(["--corpus", str(tmp_path / "missing.jsonl"), "graph"])
    assert code == 2
    assert "paperbot search:" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["-k", "-1", "graph"], ["--offset", "-2", "graph"]])
def test_negative_counts_are_rejected(argv: list[str]) -> None:
    assert run(argv)[0] == 2


def test_the_module_entry_point_streams_json_lines() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "search", "--json", "-k", "1", "-"],
        cwd=PROJECT_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("graph sparsification\n")
    process.stdin.flush()
    first = json.loads(process.stdout.readline())  # answered before stdin is closed
    process.stdin.write("\n")
    process.stdin.close()
    rest = process.stdout.read().splitlines()
    assert process.wait(timeout=30) == 0
    assert first[0]["id"] == "7ANDviElAo"
    assert rest == ["[]"]


def test_an_undecodable_stdin_line_is_replaced_with_a_warning_and_the_batch_goes_on() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "search", "--json", "-k", "1", "-"],
        cwd=PROJECT_ROOT,
        input=b"graph \xff sparsification\nattention sink\n",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.decode().splitlines()
    assert json.loads(first)[0]["id"] == "7ANDviElAo"
    assert json.loads(second)[0]["id"] == "78Nn4QJTEN"
    assert b"standard input line 1 is not UTF-8" in done.stderr


def test_batch_mode_prepares_the_index_before_the_first_query(monkeypatch) -> None:
    events: list[str] = []
    prepare, search = SearchIndex.prepare, SearchIndex.search

    def recorded_prepare(self, **options):
        events.append("prepare")
        return prepare(self, **options)

    def recorded_search(self, *args, **kwargs):
        events.append("search")
        return search(self, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "prepare", recorded_prepare)
    monkeypatch.setattr(SearchIndex, "search", recorded_search)
    run(["--json", "-"], stdin="graph\nattention\n")
    assert events == ["prepare", "search", "search"]


def test_a_batch_on_an_unembedded_corpus_embeds_no_paper_and_says_once_how_to(
    tmp_path, monkeypatch, capsys
) -> None:
    corpus = tmp_path / "mine.jsonl"
    records = [
        {"id": f"P{n}", "title": title, "abstract": abstract, "authors": []}
        for n, (title, abstract) in enumerate(
            [
                ("Sparse graphs", "We sparsify graphs for faster GNN training."),
                ("Label noise", "Training classifiers when annotators err."),
                ("Quokka counts", "We count quokkas on an island."),
            ]
        )
    ]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    filled: list[object] = []  # rankers asked to embed their papers
    monkeypatch.setattr(
        semantic.SemanticRanker, "fill_missing", lambda ranker: filled.append(ranker)
    )

    code, out = run(["--corpus", str(corpus), "--json", "-k", "1", "-"], "quokkas\nannotators\n")

    assert code == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert [answer[0]["id"] for answer in answers] == ["P2", "P1"]  # by BM25
    assert filled == []
    assert not (tmp_path / "mine.vectors.npz").exists()
    hint = "3 of 3 papers have no stored vector and rank by BM25 alone; to embed them: "
    hint += f"paperbot embed --corpus {corpus}"
    assert capsys.readouterr().err.count(hint) == 1


def test_the_command_opens_the_index_saved_for_the_bot_and_answers_alike(tmp_path, caplog):
    settings = Settings(corpus="seeds", semantic=False, index_dir=tmp_path)
    query = ["-k", "5", "--json", "learning", "rate", "warmup"]
    built, opened = io.StringIO(), io.StringIO()
    with caplog.at_level(logging.INFO, logger="bot.search.snapshot"):
        assert main(query, settings, result_text, out=built) == 0
        assert "building the index and saving it" in caplog.text
        caplog.clear()
        assert main(query, settings, result_text, out=opened) == 0
    assert "opened the snapshot" in caplog.text
    assert json.loads(opened.getvalue()) == json.loads(built.getvalue())
    assert len(json.loads(opened.getvalue())) == 5
