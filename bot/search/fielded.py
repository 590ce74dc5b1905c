"""A paper's BM25 score over its fields: one BM25Okapi per field, weighted.

Title and abstract are scored as separate corpora, each with its own document lengths and
average length: ``BM25Index(field's token lists).scores(query)`` is rank-bm25's
``BM25Okapi.get_scores`` over that field bit for bit (a paper without an abstract is an empty
abstract document), and a paper's score is the sum of each field's score times its weight,
the fields in order. So a paper with only a title ranks by how well its title matches, like
every other paper's title, and is never lifted for being short: one text of title and
abstract made a bare title a very short document whose words weighed as if they filled a
paper.

A query token matches a paper when it is in either field, and every question about a token
(is it in the corpus, which papers hold it, how many) is answered over both fields.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import reduce

import numpy as np

from bot.search.bm25 import BM25Index


class FieldedBM25:
    """BM25Okapi per field (``fields``, each over every paper), summed with ``weights``."""

    def __init__(self, fields: Sequence[BM25Index], weights: Sequence[float]) -> None:
        if len(fields) != len(weights) or not fields:
            raise ValueError("one weight per field, and at least one field")
        if len({len(field) for field in fields}) != 1:
            raise ValueError("every field indexes the same papers")
        self.fields = tuple(fields)
        self.weights = tuple(float(weight) for weight in weights)
        self.corpus_size = len(fields[0])
        # Every weight positive (any corpus but the tiniest): scores > 0 marks the matches.
        self.idf_positive = all(field.idf_positive for field in fields) and all(
            weight > 0 for weight in self.weights
        )
        # By the first field's term id: once ``holders`` found the shorter of the token's two
        # lists inside the longer, the number of the longer's field, plus one.
        self._nested = np.zeros(len(fields[0].vocabulary), dtype=np.int8)

    def __len__(self) -> int:
        return self.corpus_size

    def __contains__(self, token: object) -> bool:
        """Whether some paper's title or abstract has ``token``."""
        return any(token in field.vocabulary for field in self.fields)

    def scores(self, query_tokens: Iterable[str]) -> np.ndarray:
        """Every paper's score: each field's BM25Okapi scores (terms added in query order)
        times its weight, added field by field. ``bot.search.pruned`` repeats these very
        operations for the papers it scores, so its scores are bit-identical.

        The second field (the text) is scored first and the first (the title) added onto
        it, which gives the same bits (adding two numbers does in either order), and the
        others after, each only where it holds a query term (``BM25Index.add_scores``: a
        paper whose field holds none gains 0.0). A weight that is a power of two (the
        text's 1) scales each posting's weight instead of every paper's score
        (``BM25Index.scores``)."""
        tokens = list(query_tokens)
        if len(self.fields) == 1:
            return _field_scores(self.fields[0], tokens, self.weights[0])
        total = _field_scores(self.fields[1], tokens, self.weights[1])
        for field, weight in [
            (self.fields[0], self.weights[0]),
            *zip(self.fields[2:], self.weights[2:], strict=True),
        ]:
            field.add_scores(total, tokens, weight)
        return total

    def matches(self, query_tokens: Iterable[str]) -> np.ndarray:
        """Which papers hold at least one query token in some field."""
        tokens = set(query_tokens)
        return reduce(np.logical_or, (field.matches(tokens) for field in self.fields))

    def documents(self, token: str) -> np.ndarray:
        """Papers holding ``token`` in some field, ascending."""
        held = [docs for docs in (field.documents(token) for field in self.fields) if len(docs)]
        if len(held) <= 1:
            return held[0] if held else self.fields[0].documents(token)
        marks = np.zeros(self.corpus_size, dtype=bool)  # no sort, unlike np.union1d
        for docs in held:
            marks[docs] = True
        return np.flatnonzero(marks)

    def document_frequency(self, token: str) -> int:
        """How many papers hold ``token`` in some field."""
        return len(self.holders(token))

    def holders(self, token: str) -> np.ndarray:
        """Papers holding ``token`` in some field, each once, in no set order: ``documents``
        without a mark per paper of the corpus. The text field holds the title's words, so
        the longer list is taken whole and only the shorter one is looked up in it, once per
        token and index: the lookup was a search's largest cost at 100,000 papers (common
        words' thousands of title papers, for every query naming them), and its answer, that
        the text holds all of them, is remembered by term id (``_nested``), so the next time
        the text's list is the answer, with no look at the title's."""
        term = self.fields[0].vocabulary.get(token)
        if term is not None and (whole := int(self._nested[term])):
            return self.fields[whole - 1].documents(token)
        held = [
            (number, docs)
            for number, field in enumerate(self.fields)
            if len(docs := field.documents(token))
        ]
        if len(held) != 2:
            return self.documents(token) if held else self.fields[0].documents(token)
        (_, fewer), (number, more) = sorted(held, key=lambda found: len(found[1]))
        positions = np.minimum(np.searchsorted(more, fewer), len(more) - 1)
        outside = fewer[more[positions] != fewer]
        if term is not None and not len(outside):
            self._nested[term] = number + 1
        return np.concatenate((more, outside)) if len(outside) else more

    def holding_every(self, tokens: Iterable[str]) -> np.ndarray:
        """Papers holding every one of ``tokens`` (at least one) in some field, each once, in
        no set order: the rarest token's papers, kept where a binary search finds the others
        (no pass over a common token's papers, as a sort or a mark per paper would make)."""
        found = {token: self.holders(token) for token in tokens}
        rarest = min(found, key=lambda token: len(found[token]))
        docs = found[rarest]
        for token in found.keys() - {rarest}:
            docs = docs[self.holds(token, docs)]
        return docs

    def holds(self, token: str, docs: np.ndarray) -> np.ndarray:
        """Whether each of ``docs`` holds ``token`` in some field."""
        found = np.zeros(len(docs), dtype=bool)
        for field in self.fields:
            held = field.documents(token)
            if len(held):
                positions = np.minimum(np.searchsorted(held, docs), len(held) - 1)
                found |= held[positions] == docs
        return found

    def document_frequencies(self, least: int) -> dict[str, int]:
        """Every token held by at least ``least`` papers, with how many hold it (a paper
        holding it in two fields counted once)."""
        counts: dict[str, int] = {}
        in_several: list[str] = []
        for field in self.fields:
            frequency_of = field.document_frequencies.tolist()
            for token, term in field.vocabulary.items():
                if token in counts:
                    in_several.append(token)
                counts[token] = frequency_of[term]
        for token in in_several:
            counts[token] = self.document_frequency(token)
        return {token: count for token, count in counts.items() if count >= least}

    def text_weight(self, token: str, frequencies: Sequence[int], lengths: Sequence[int]) -> float:
        """What ``token`` would add to the score of a paper whose fields hold it
        ``frequencies`` times in ``lengths`` tokens: a paper's own terms by weight (its
        "more like this" query), or a free text's, weighed as every field at once."""
        total = 0.0
        for field, weight, tf, length in zip(
            self.fields, self.weights, frequencies, lengths, strict=True
        ):
            if tf:
                total += weight * field.weight(token, tf, length)
        return total


def _field_scores(field: BM25Index, tokens: list[str], weight: float) -> np.ndarray:
    """``field``'s scores times ``weight``: scaled weight by weight when it is a power of two
    (``math.frexp`` gives a mantissa of 1/2 for those alone), else multiplied after."""
    if math.frexp(weight)[0] == 0.5:
        return field.scores(tokens, weight)
    return _weighted(field.scores(tokens), weight)


def _weighted(scores: np.ndarray, weight: float) -> np.ndarray:
    """``scores`` times ``weight``, in place; a weight of 1 changes no bit, so no pass."""
    if weight != 1.0:
        scores *= weight
    return scores
