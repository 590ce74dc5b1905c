"""Can another way of computing the model meet issue 21's question-length bar and keep the
answers?

Run from the repository root: ``python bench/model_numerics.py [--rounds 5]``. It needs the
``onnx`` and ``sympy`` packages (``pip install -e '.[bench]'``), which the bot itself does
not: they build the variants below from the pinned model, in a temporary directory.

On one thread the model's run grows with the tokens it reads (``bench/results/batching.md``:
3.8 ms for a query of 5 tokens, 8.7 ms for one of 27, the median of a 12-25 word question), so
the run alone is most of the 10 ms that issue 21 allows the semantic part to add to a
question-length search at p50. The variants run the same int8 weights with other kernels:

- *float32, fused*: ONNX Runtime's transformer optimizer fuses each layer's bias and GELU
  and its residual adds into fewer nodes; the arithmetic stays float32, in another order.
- *MatMulNBits, float32*: the matrices stay int8 in memory (a quarter of the bytes a run
  reads) and are widened block by block inside the product.
- *MatMulNBits, int8 activations*: the same, with each row of activations quantised to int8
  too, so that the products are integer ones.

Each variant (and BM25 alone, for the *added* figure) runs in a fresh process on every core,
the variants taking turns round after round. Each process builds the catalogue's index with
the stored vectors (the papers' vectors stay the pinned model's; only queries go through the
variant) and reports: the model run alone on each question-length query; the search of each
(top 5, as ``bench/semantic.py`` times it); how many of the 606 blind queries rank another
top 10 than ``tests/data/blind_rankings.jsonl`` records; and the quality metrics by kind on
the catalogue's labelled blind sets."""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from quality import (
    CATALOGUE_SET,
    HOLDOUT_SET,
    ROUND4_SET,
    code_version,
    evaluate,
    load_queries,
    summarise,
)
from ranking_metrics import CUTOFF, METRICS
from semantic import TARGET_QUESTION_ADDED_P50_MS, question_queries, timed
from speed import WARMUP_QUERIES, machine_description
from turns import rounds_parser, rounds_taking_turns

from bot.papers.corpus import load_corpus
from bot.papers.paper import Paper
from bot.search.embedding import Embedder, model_path
from bot.search.engine import SearchIndex
from bot.search.semantic import SemanticRanker
from bot.search.vectors import read_vectors, vectors_path

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_PATH = BENCH_DIR / "results" / "model_numerics.md"
PINNED_RANKINGS = BENCH_DIR.parent / "tests" / "data" / "blind_rankings.jsonl"
ROUNDS = 5
LABELLED_SETS = (CATALOGUE_SET, HOLDOUT_SET, ROUND4_SET)
OFF = "BM25 alone"
BOT = "the pinned model's arithmetic (the bot's)"
FUSED = "float32, fused"
NBITS_FLOAT = "MatMulNBits, float32"
NBITS_INT8 = "MatMulNBits, int8 activations"
VARIANTS = (BOT, FUSED, NBITS_FLOAT, NBITS_INT8)
BLOCK = 32  # MatMulNBits' block along the shared dimension; every scale is a column's anyway
ZERO = 128  # the model's weights are signed int8; MatMulNBits stores them offset by this


# --- the variants, built from the pinned model ------------------------------------------------


def fused(source: Path, folder: Path) -> Path:
    """ONNX Runtime folds the int8 weights into float32 ones (its basic level), then its
    transformer optimizer fuses the layers' element-wise steps."""
    import onnxruntime
    from onnxruntime.transformers.optimizer import optimize_model

    folded = folder / "folded.onnx"
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    options.log_severity_level = 3
    onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    model = optimize_model(
        str(folded), model_type="bert", num_heads=12, hidden_size=384, opt_level=0
    )
    path = folder / "fused.onnx"
    model.save_model_to_file(str(path))
    return path


def matmul_nbits(source: Path, folder: Path, accuracy_level: int) -> Path:
    """Each ``MatMul`` by ``Cast(int8 weights) * column scales`` becomes one ``MatMulNBits``
    over the same int8 values (offset to unsigned, with that offset as every zero point) and
    the same scales, so the weights it multiplies by are the same numbers."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(source))
    graph = model.graph
    constants = {tensor.name: tensor for tensor in graph.initializer}
    made_by = {output: node for node in graph.node for output in node.output}
    nodes, dropped, added = [], set(), []
    for node in graph.node:
        scaled = made_by.get(node.input[1]) if node.op_type == "MatMul" else None
        widened = made_by.get(scaled.input[0]) if scaled and scaled.op_type == "Mul" else None
        if widened is None or widened.op_type != "Cast" or widened.input[0] not in constants:
            nodes.append(node)
            continue
        weights = numpy_helper.to_array(constants[widened.input[0]])
        scales = numpy_helper.to_array(constants[scaled.input[1]]).reshape(-1)
        rows, columns = weights.shape
        blocks = rows // BLOCK
        stored = (
            (weights.astype(np.int16) + ZERO).astype(np.uint8).T.reshape(columns, blocks, BLOCK)
        )
        name = node.output[0]
        added += [
            numpy_helper.from_array(np.ascontiguousarray(stored), f"{name}_B"),
            numpy_helper.from_array(np.repeat(scales, blocks).astype(np.float32), f"{name}_S"),
            numpy_helper.from_array(np.full(columns * blocks, ZERO, np.uint8), f"{name}_Z"),
        ]
        nodes.append(
            helper.make_node(
                "MatMulNBits",
                [node.input[0], f"{name}_B", f"{name}_S", f"{name}_Z"],
                [name],
                domain="com.microsoft",
                K=rows,
                N=columns,
                bits=8,
                block_size=BLOCK,
                accuracy_level=accuracy_level,
            )
        )
        dropped.update((id(scaled), id(widened)))
    kept = [node for node in nodes if id(node) not in dropped]
    del graph.node[:]
    graph.node.extend(kept)
    used = {name for node in graph.node for name in node.input}
    tensors = [tensor for tensor in graph.initializer if tensor.name in used] + added
    del graph.initializer[:]
    graph.initializer.extend(tensors)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    path = folder / f"nbits{accuracy_level}.onnx"
    onnx.save(model, str(path))
    return path


def build_variants(folder: Path) -> dict[str, Path | None]:
    source = model_path()
    return {
        BOT: None,
        FUSED: fused(source, folder),
        NBITS_FLOAT: matmul_nbits(source, folder, accuracy_level=0),
        NBITS_INT8: matmul_nbits(source, folder, accuracy_level=4),
    }


# --- one measurement, in its own process ------------------------------------------------------


def measure(variant: str, rewrite: Path | None) -> dict[str, object]:
    papers = load_corpus("catalogue").papers
    questions = question_queries()
    figures: dict[str, object] = {"variant": variant}
    if variant == OFF:
        index = SearchIndex.build(papers)
    else:
        embedder = Embedder(graph=rewrite.read_bytes() if rewrite else None)
        path = vectors_path("catalogue")
        stored = read_vectors(path, embedder.fingerprint)
        if stored is None:
            raise SystemExit(f"{path}: no stored vectors of the pinned model")
        ranker = SemanticRanker(embedder, papers, stored, path)
        if ranker.missing:
            raise SystemExit(f"{path}: {ranker.missing} papers have no stored vector")
        index = SearchIndex.build(papers, lambda _: ranker)
        runs = []
        for position, text in enumerate(questions):
            tokens = embedder.tokens(text)
            started = time.perf_counter_ns()
            embedder.embed_tokens([tokens])
            if position >= WARMUP_QUERIES:
                runs.append((time.perf_counter_ns() - started) / 1e6)
        figures["model_p50_ms"] = statistics.median(runs)
    wall, _ = timed(lambda query: index.search(query, limit=5), questions)
    figures["search_p50_ms"] = float(np.percentile(wall, 50))

    def ranked(query: str, thread: bool = False) -> list[Paper]:
        find = index.related if thread else index.search
        return [hit.paper for hit in find(query, limit=CUTOFF).hits]

    pinned = [json.loads(line) for line in PINNED_RANKINGS.read_text("utf-8").splitlines()]
    moved = [
        row["top10"][:1] != ids[:1]
        for row in pinned
        if (ids := [paper.id for paper in ranked(row["query"])]) != row["top10"]
    ]
    figures["rankings"] = len(pinned)
    figures["rankings_changed"] = len(moved)
    figures["first_changed"] = sum(moved)
    figures["quality"] = {
        query_set.name: summarise(
            evaluate(ranked, load_queries(query_set.path, query_set.kinds)), query_set.kinds
        )
        for query_set in LABELLED_SETS
    }
    return figures


# --- the report -------------------------------------------------------------------------------


def report(runs: dict[str, list[dict[str, object]]], rounds: int, note: str) -> str:
    off = runs[OFF]
    rows, rounds_added = [], []
    for variant in VARIANTS:
        measured = runs[variant]
        model = statistics.median(float(run["model_p50_ms"]) for run in measured)
        added = statistics.median(
            float(run["search_p50_ms"]) - float(base["search_p50_ms"])
            for run, base in zip(measured, off, strict=True)
        )
        first = measured[0]
        verdict = "met" if added <= TARGET_QUESTION_ADDED_P50_MS else "missed"
        rows.append(
            f"| {variant} | {model:.2f} ms | {added:.2f} ms ({verdict}) |"
            f" {first['rankings_changed']} of {first['rankings']}"
            f" ({first['first_changed']} at the top) |"
        )
        rounds_added.append(
            f"{variant}: "
            + ", ".join(
                f"{float(run['search_p50_ms']) - float(base['search_p50_ms']):.2f}"
                for run, base in zip(measured, off, strict=True)
            )
            + " ms"
        )
    quality_rows = []
    bot_quality = runs[BOT][0]["quality"]
    for variant in (OFF, *VARIANTS):
        cells = []
        for name, by_kind in runs[variant][0]["quality"].items():
            worst = min(
                scores[metric] - bot_quality[name][kind][metric]
                for kind, scores in by_kind.items()
                for metric in METRICS
            )
            cells.append(f"{by_kind['overall']['nDCG@10']:.3f} ({worst:+.3f})")
        quality_rows.append(f"| {variant} | {' | '.join(cells)} |")
    steady = all(
        run[key] == measured[0][key]
        for measured in runs.values()
        for run in measured
        for key in ("rankings_changed", "quality")
        if key in run
    )
    return "\n".join(
        [
            "# The model's arithmetic: faster ways, and what they change",
            "",
            f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `python bench/model_numerics.py`"
            f" ({code_version()}) on {machine_description('each variant on every CPU')}.",
            "",
            f"{rounds} rounds, {OFF} and the {len(VARIANTS)} variants taking turns, each in a"
            " fresh process with the catalogue and its stored vectors; the"
            f" {len(question_queries()) - WARMUP_QUERIES} question-length queries of"
            " `bench/semantic.py` (12-25 words) after"
            f" {WARMUP_QUERIES} to warm up. *Model run*: the median wall time of one query's"
            " run, alone, one thread (median over rounds). *Added*: the p50 of the search"
            f" (top 5) minus {OFF}'s in the same round (median over rounds); the bar is"
            f" {TARGET_QUESTION_ADDED_P50_MS:g} ms. *Rankings changed*: blind queries whose"
            " top 10 differ from `tests/data/blind_rankings.jsonl`, which issue 21 requires"
            " to stay the same; *at the top*: those whose first paper changed.",
            "",
            "| variant | model run | added to BM25's p50 | rankings changed |",
            "| --- | --- | --- | --- |",
            *rows,
            "",
            f"Added, round by round: {'; '.join(rounds_added)}.",
            "",
            "The catalogue's labelled blind sets: nDCG@10 over all queries, and in brackets"
            f" the largest loss against {BOT} of any kind of query in any of"
            f" {', '.join(METRICS)} (+0.000: no kind lost on any).",
            "",
            f"| variant | {' | '.join(bot_quality)} |",
            f"| --- |{' --- |' * len(bot_quality)}",
            *quality_rows,
            "",
            "Rankings and quality were the same in every round."
            if steady
            else "**Rankings or quality differed between rounds.**",
            "",
            *([note, ""] if note else []),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        rewrite = Path(argv[2]) if len(argv) > 2 else None
        print(json.dumps(measure(argv[1], rewrite)))
        return 0
    args = rounds_parser(__doc__, ROUNDS, RESULTS_PATH).parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        variants: dict[str, Path | None] = {OFF: None, **build_variants(Path(folder))}
        extra = {name: [str(path)] if path else [] for name, path in variants.items()}
        runs = rounds_taking_turns(Path(__file__), extra, args.rounds)
    text = report(runs, args.rounds, args.note)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
