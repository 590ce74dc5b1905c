"""``python -m bot search``: the search layer from a terminal, for people and for scripts.

Readable output is for a person trying queries; ``--json`` prints only hits, one JSON array
per query, and with ``-`` reads one query per line from standard input, flushing after each
line so an evaluation script can drive one long-lived process. The index is the bot's: opened
from the snapshot in ``PAPERBOT_INDEX_DIR`` (saved there when there is none), so both rank alike.
Neither embeds a paper: papers without a stored vector rank by BM25 alone, and standard error
says once how to embed them, so an answer never waits minutes for a model run per paper.
"""

from __future__ import annotations

import argparse
import json
import logging
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

from bot.arguments import ArgumentParser, program
from bot.papers.corpus import CorpusError
from bot.search.engine import SearchIndex
from bot.search.query_vectors import always_quiet
from bot.search.results import FILTERS, OPERATORS, Hit, SearchResult, written
from bot.search.semantic import share_host_files
from bot.search.snapshot import index_of
from bot.settings import Settings

logger = logging.getLogger(__name__)

_VALUE_OPTIONS = {"-k", "--limit", "--offset", "--corpus"}
_FLAG_OPTIONS = {"--json", "-h", "--help"}


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog=f"{program()} search",
        description="Search the papers. The query is everything after the options "
        '(use -- before a query that starts with "-"); "-" reads one query per line '
        "from standard input.",
        epilog=f"Query language: words, {', '.join(op.syntax for op in OPERATORS)}, "
        "a paper id or OpenReview URL. Filters, e.g. "
        + " ".join(written(op, op.examples[0]) for op in FILTERS)
        + ", narrow a search; alone, they list the papers they allow, newest first.",
    )
    parser.add_argument("-k", "--limit", type=int, default=5, help="hits to show (default 5)")
    parser.add_argument("--offset", type=int, default=0, help="skip this many hits first")
    parser.add_argument("--json", action="store_true", help="print a JSON array of hits")
    parser.add_argument(
        "--corpus", help="seeds, catalogue or a path (default: PAPERBOT_CORPUS or seeds)"
    )
    return parser


def _is_short_limit(arg: str) -> bool:
    return arg.startswith("-k") and arg[2:].isdigit()


def _split_options(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Options first, then the query: everything from the first non-option word on (or after
    ``--``) is the query, so ``-diffusion`` in it is not mistaken for an option."""
    options: list[str] = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            return options, list(argv[index + 1 :])
        name = arg.split("=", 1)[0]
        if arg in _VALUE_OPTIONS:
            options.extend(argv[index : index + 2])
            index += 2
        elif name in _VALUE_OPTIONS or arg in _FLAG_OPTIONS or _is_short_limit(arg):
            options.append(arg)
            index += 1
        else:
            break
    return options, list(argv[index:])


def hit_json(hit: Hit, rank: int) -> dict[str, object]:
    """One hit for machines: ``abstract`` is the text as read (LaTeX and markup resolved,
    like ``title``), ``abstract_source`` the author's original with its ``$\\varepsilon$``.
    ``score`` is what the ranking sorted by: BM25's score, or where the model re-ranked, the
    mix of BM25 standardised over the query's candidates and the model's evidence, which can
    be negative and compares only within one query; ``semantic_score`` is that evidence."""
    paper = hit.paper
    return {
        "rank": rank,
        "id": paper.id,
        "title": paper.title,
        "score": hit.score,
        "bm25_score": hit.bm25_score,
        "semantic_score": hit.semantic_score,
        "abstract": paper.plain_abstract or None,
        "abstract_source": paper.abstract,
        "url": paper.url,
        "code_urls": list(paper.code_urls),
        "matched_terms": list(hit.matched_terms),
    }


def result_json(result: SearchResult) -> str:
    hits = [hit_json(hit, result.offset + i) for i, hit in enumerate(result.hits, start=1)]
    return json.dumps(hits, ensure_ascii=False)


def _lines(stdin: TextIO) -> Iterator[str]:
    """Standard input line by line; a line that is not UTF-8 has those bytes replaced, with a
    warning, so one bad line costs its own answer at most and the batch goes on."""
    raw = getattr(stdin, "buffer", None)
    if raw is None:
        yield from stdin
        return
    for number, line in enumerate(raw, start=1):
        try:
            yield line.decode("utf-8")
        except UnicodeDecodeError:
            logger.warning("standard input line %d is not UTF-8; those bytes were replaced", number)
            yield line.decode("utf-8", errors="replace")


def _tell_unembedded(index: SearchIndex, spec: str) -> None:
    """Say on standard error how many papers have no stored vector and the command that
    embeds them: this command does not (for a corpus nobody embedded that takes minutes), and
    without the line a reader would not know those papers are ranked by BM25 alone."""
    if index.unembedded:
        print(
            f"paperbot search: {index.unembedded} of {len(index.papers)} papers have no stored "
            "vector and rank by BM25 alone; to embed them: "
            f"{program()} embed --corpus {shlex.quote(spec)}",
            file=sys.stderr,
            flush=True,
        )


ResultText = Callable[[SearchResult], str]
"""A result as readable lines: render's (``bot.render.notes.result_text``), handed in by the
command line, since search writes no sentence itself."""


def _answer(
    index: SearchIndex, query: str, args: argparse.Namespace, out: TextIO, text: ResultText
) -> None:
    result = index.search(query, limit=args.limit, offset=args.offset)
    out.write((result_json(result) if args.json else text(result)) + "\n")
    out.flush()


def main(
    argv: Sequence[str], settings: Settings, result_text: ResultText, out: TextIO | None = None
) -> int:
    out = out or sys.stdout
    options, words = _split_options(argv)
    args = _parser().parse_args(options)
    if args.limit < 0 or args.offset < 0:
        print("paperbot search: -k and --offset must not be negative", file=sys.stderr)
        return 2
    spec = args.corpus or settings.corpus_for(slack=False)
    share_host_files(settings.index_dir)
    try:
        index, _ = index_of(spec, settings.index_dir, semantic=settings.semantic)
    except CorpusError as error:
        print(f"paperbot search: {error}", file=sys.stderr)
        return 2
    _tell_unembedded(index, spec)
    if words == ["-"]:
        index.prepare(embed=False, quiet=always_quiet)
        for line in _lines(sys.stdin):
            query = line.strip()
            if not query:
                out.write(("[]" if args.json else "") + "\n")
                out.flush()
                continue
            _answer(index, query, args, out, result_text)
            if not args.json:
                out.write("\n")
        return 0
    _answer(index, " ".join(words), args, out, result_text)
    return 0
