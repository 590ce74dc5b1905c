"""``python -m bot embed``: precompute the paper vectors the semantic ranking reads.

Without ``--corpus`` it embeds the configured corpus (``PAPERBOT_CORPUS``); for a built-in one,
every text the built-in corpora can show (every catalogue
record, and the seed abstracts that replace some of theirs) into the file beside the
catalogue, which is committed and shipped. With ``--corpus PATH`` it embeds an operator's
corpus into the file beside it. Vectors already in the file for the same text and model are
kept, so a rerun after a few edits embeds only those. It shows its progress on standard error
(a bar on a terminal, a line every tenth of the way in a log), since it can take minutes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO

from tqdm import tqdm

from bot.arguments import ArgumentParser, program
from bot.papers.corpus import CATALOGUE_PATH, CorpusError, load_corpus
from bot.papers.paper import Paper
from bot.search.embedding import DIMENSIONS, ModelError
from bot.search.semantic import share_host_files, shared_embedder
from bot.search.vectors import (
    embed_missing,
    empty_vectors,
    read_vectors,
    text_key,
    vector_texts,
    vectors_path,
    write_vectors,
)
from bot.settings import Settings

BUILT_IN = ("seeds", "catalogue")
_LOG_STEPS = 10  # progress lines when standard error is not a terminal


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog=f"{program()} embed",
        description="Precompute paper vectors for the semantic ranking.",
    )
    parser.add_argument(
        "--corpus",
        help="a folder of seed files or a .jsonl file; its vectors are written beside it "
        "(default: PAPERBOT_CORPUS; for seeds or catalogue, every text of the built-in "
        "corpora, into the catalogue's vector file)",
    )
    return parser


def _papers(corpus: str | None) -> list[Paper]:
    if corpus is not None:
        return list(load_corpus(corpus).papers)
    specs = (str(CATALOGUE_PATH), *BUILT_IN)  # every record, then the seed abstracts
    return [paper for spec in specs for paper in load_corpus(spec).papers]


def progress(keys: list[int], stream: TextIO) -> Iterable[int]:
    """The keys to embed, shown as they go: a bar on a terminal; elsewhere (a log, a pipe)
    a line every tenth of the way, since a bar redrawn with carriage returns is one unreadable
    line there."""
    if stream.isatty():
        return tqdm(keys, desc="embedding", unit="paper", file=stream)
    return _progress_lines(keys, stream)


def _progress_lines(keys: list[int], stream: TextIO) -> Iterator[int]:
    step = max(1, -(-len(keys) // _LOG_STEPS))
    for done, key in enumerate(keys, start=1):
        yield key
        if done % step == 0 or done == len(keys):
            print(
                f"paperbot embed: {done} of {len(keys)} papers embedded",
                file=stream,
                flush=True,
            )


def main(argv: Sequence[str], settings: Settings) -> int:
    args = _parser().parse_args(argv)
    corpus = args.corpus or settings.corpus_for(slack=False)
    try:
        papers = _papers(None if corpus.strip() in BUILT_IN else corpus)
        share_host_files(settings.index_dir)
        embedder = shared_embedder()
    except (CorpusError, ModelError) as error:
        print(f"paperbot embed: {error}", file=sys.stderr)
        return 2
    path = vectors_path(corpus)
    texts = {text_key(text): text for paper in papers for text in vector_texts(paper)}
    old = read_vectors(path, embedder.fingerprint) or empty_vectors(
        embedder.fingerprint, DIMENSIONS
    )
    stored, embedded = embed_missing(
        old.only(texts),
        texts,
        embedder.embed,
        each=lambda keys: progress(keys, sys.stderr),
    )
    write_vectors(path, stored)
    print(f"{len(texts)} texts ({embedded} embedded now), vectors in {path}")
    return 0
