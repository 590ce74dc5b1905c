"""The author index: name words to papers, and the tests and scores of names a query types.

Authors are a field of their own, apart from the ranked title and abstract: in the ranked
text, a paper with 80 authors would have its length doubled by names and sink for every
topical query. Names are matched without accents or case, so ``author:muller`` finds Müller,
and a name that finds nobody has near names to offer (``near_names``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache, reduce

import numpy as np

from bot.papers.paper import Paper
from bot.search.analyzer import fold, written_words
from bot.search.bm25 import K1
from bot.search.built_once import built_once
from bot.search.spelling import SpellCorrector

_NAME_TOKEN = re.compile(r"[^\W_]+")
_LEAST_NAME_IDF = 0.1
_NO_PAPERS = np.zeros(0, dtype=np.int64)
_SPELLINGS = (("ks", "x"), ("ph", "f"), ("kh", "h"), ("y", "i"), ("w", "v"))
"""How one name is written in several Latin transliterations (Aleksandr and Alexander, Sergey
and Sergei, Yuri and Iurii): each pair is made one before names are compared."""
_DOUBLED = re.compile(r"(.)\1+")
NEAR_NAMES = 3
"""How many near names a search offers for a name that finds nobody."""


@lru_cache(maxsize=1 << 16)  # a corpus names the same authors over and over
def name_tokens(name: str) -> tuple[str, ...]:
    """Author-name words without accents or case."""
    return tuple(_NAME_TOKEN.findall(fold(name)))


def _spelling_key(token: str) -> str:
    """A name word as its transliterations share it: ``sergey`` and ``sergei`` are ``sergei``,
    ``iurii`` and ``yuri`` are ``iuri``."""
    for written, shared in _SPELLINGS:
        token = token.replace(written, shared)
    return _DOUBLED.sub(r"\1", token)


def _name_distance(close: Sequence[dict[str, int]], tokens: tuple[str, ...]) -> int | None:
    """How far an author's name words are from a typed name's, each typed word taking the
    nearest word of the name not yet taken (``close`` holds each one's near words); None
    when some typed word has none."""
    free = list(tokens)
    total = 0
    for near in close:
        held = [token for token in free if token in near]
        if not held:
            return None
        best = min(held, key=near.__getitem__)
        free.remove(best)
        total += near[best]
    return total


class AuthorIndex:
    """Which papers each author-name word is on; immutable, shared by every query."""

    def __init__(
        self, papers: Sequence[Paper], by_token: Mapping[str, np.ndarray] | None = None
    ) -> None:
        """``by_token``, when known (a saved index: ``bot.search.snapshot``), is used as it
        is instead of being built from the papers' names."""
        self.papers = papers
        if by_token is not None:
            self.__dict__["by_token"] = by_token  # what ``built_once`` would have built

    @built_once
    def by_token(self) -> Mapping[str, np.ndarray]:
        """Name word → papers with an author of that name word (built by the index's
        ``prepare``, else on the first query that needs it)."""
        lists: dict[str, list[int]] = {}
        for doc, paper in enumerate(self.papers):
            for token in {t for name in paper.authors for t in name_tokens(name)}:
                lists.setdefault(token, []).append(doc)
        return {token: np.array(docs, dtype=np.int64) for token, docs in lists.items()}

    def extended(self, papers: Sequence[Paper]) -> AuthorIndex:
        """The index of ``papers``, this one's papers and more after them (an addition),
        equal to one built over all of them: the lists and names of the new papers' name
        words are extended from this index's, in time of the new papers, not the corpus.
        Parts this index has not built yet are left for the grown one to build. A mapped
        ``by_token`` (an opened snapshot's) is copied into a dict, the grown lists held
        in memory: a name word's list changes, which a mapped table cannot."""
        grown = AuthorIndex(papers)
        if "by_token" not in self.__dict__:
            return grown
        lists: dict[str, list[int]] = {}
        for doc in range(len(self.papers), len(papers)):
            for token in {t for name in papers[doc].authors for t in name_tokens(name)}:
                lists.setdefault(token, []).append(doc)
        by_token = dict(self.by_token)
        for token, docs in lists.items():
            old = by_token.get(token, _NO_PAPERS)
            by_token[token] = np.concatenate([old, np.array(docs, dtype=np.int64)])
        grown.__dict__["by_token"] = by_token
        if "_by_spelling" not in self.__dict__:
            return grown
        by_spelling = dict(self._by_spelling)
        for token in (token for token in lists if token not in self.by_token):  # new words
            key = _spelling_key(token)
            by_spelling[key] = (*by_spelling.get(key, ()), token)
        grown.__dict__["_by_spelling"] = by_spelling
        if "speller" in self.__dict__:
            papers_of = {
                key: sum(map(grown.paper_count, by_spelling[key]))
                for key in {_spelling_key(token) for token in lists}
            }
            grown.__dict__["speller"] = self.speller.extended(papers_of)
        return grown

    @built_once
    def _by_spelling(self) -> dict[str, tuple[str, ...]]:
        """Spelling key (see ``_spelling_key``) → the name words written so."""
        keys: dict[str, list[str]] = {}
        for token in self.by_token:
            keys.setdefault(_spelling_key(token), []).append(token)
        return {key: tuple(tokens) for key, tokens in keys.items()}

    @built_once
    def speller(self) -> SpellCorrector:
        """The typo corrector over the names' spelling keys, weighed by their papers (built
        by the index's ``prepare``, else when a name first finds nobody)."""
        papers = {
            key: sum(map(self.paper_count, tokens)) for key, tokens in self._by_spelling.items()
        }
        speller = SpellCorrector(papers)
        speller.prepare()
        return speller

    def _close_tokens(self, token: str) -> dict[str, int]:
        """Name words within a slip or two of ``token`` once transliterations are one, each
        with its distance (``token`` itself, if some author has it, at 0)."""
        key = _spelling_key(token)
        near = {key: 0} if key in self._by_spelling else {}
        near.update(self.speller.near(key))
        return {written: d for key, d in near.items() for written in self._by_spelling[key]}

    def near_names(self, name: str) -> tuple[str, ...]:
        """Authors' names, as their papers write them, close to ``name``, which finds
        nobody: each of its words within a slip or two of one of theirs, accents, case and
        transliteration aside (``Sergei Levine`` → ``Sergey Levine``, ``Bengoi`` →
        ``Yoshua Bengio``, ``Sebastien`` → ``Sébastien Marcel``). The nearest come first,
        then those with more papers; at most ``NEAR_NAMES``."""
        wanted = name_tokens(name)
        close = [self._close_tokens(token) for token in wanted]
        if not wanted or not all(close):
            return ()
        postings = [np.unique(np.concatenate([self.by_token[t] for t in c])) for c in close]
        found: dict[tuple[str, ...], tuple[int, Counter[str]]] = {}
        for doc in reduce(np.intersect1d, postings).tolist():
            for author in self.papers[doc].authors:
                tokens = name_tokens(author)
                distance = _name_distance(close, tokens)
                if distance is not None and tokens != wanted:
                    found.setdefault(tokens, (distance, Counter()))[1][author] += 1
        ranked = sorted(found.values(), key=lambda seen: (seen[0], -seen[1].total()))
        return tuple(written.most_common(1)[0][0] for _, written in ranked[:NEAR_NAMES])

    def paper_count(self, token: str) -> int:
        """How many papers have an author with the name word ``token``."""
        return len(self.by_token.get(token, _NO_PAPERS))

    def is_name(self, word: str) -> bool:
        """Whether every name word in ``word`` (as typed) is part of some author's name."""
        names = name_tokens(word)
        # ``map``, no generator step per name: asked of every word of every query
        return bool(names) and all(map(self.by_token.__contains__, names))

    def names_an_author(self, name: str) -> bool:
        """Whether some author's name has the words of ``name`` next to each other, in order
        (``Stefanie Jegelka``, ``Yoshua Bengio``, ``Bengio``; not ``Bengio graphs``)."""
        wanted = name_tokens(name)
        if not wanted:
            return False
        postings = [self.by_token.get(token, _NO_PAPERS) for token in set(wanted)]
        size = len(wanted)
        for doc in reduce(np.intersect1d, postings).tolist():
            for author in self.papers[doc].authors:
                tokens = name_tokens(author)
                if any(tokens[at : at + size] == wanted for at in range(len(tokens) - size + 1)):
                    return True
        return False

    def is_full_name(self, phrase: str) -> bool:
        """Whether a quoted phrase of two or more words is an author's name (``"Yoshua
        Bengio"``). It is then an ``author:`` filter, as titles and abstracts, which phrases
        are looked for in, hold no names."""
        return len(written_words(phrase)) > 1 and self.names_an_author(phrase)

    def papers_by(self, names: frozenset[str]) -> np.ndarray:
        """Papers with one author whose name holds every one of ``names`` (non-empty)."""
        postings = [self.by_token.get(token, _NO_PAPERS) for token in names]
        docs = reduce(np.intersect1d, postings)
        if len(names) == 1:
            return docs
        authors = [self.papers[doc].authors for doc in docs.tolist()]
        return docs[[any(names <= set(name_tokens(a)) for a in written) for written in authors]]

    def mask(self, names: Iterable[str]) -> np.ndarray:
        """Papers with, for each name asked for, one author carrying all of its words."""
        mask = np.ones(len(self.papers), dtype=bool)
        for name in names:
            wanted = frozenset(name_tokens(name))
            if not wanted:
                continue
            allowed = np.zeros(len(self.papers), dtype=bool)
            allowed[self.papers_by(wanted)] = True
            mask &= allowed
        return mask

    def named_authors(
        self, names: Sequence[str], runs: Sequence[frozenset[str]], doc: int
    ) -> tuple[str, ...]:
        """The paper's authors each name of the query (``author:`` ``names`` and ``runs`` of
        name words) stands for: those carrying most of its words (``Kaiming He`` himself
        where he is an author, else any He)."""
        wanted = [frozenset(name_tokens(name)) for name in names] + list(runs)
        if not wanted:
            return ()
        authors = self.papers[doc].authors
        carried = [frozenset(name_tokens(author)) for author in authors]
        named: dict[str, None] = {}
        for words in wanted:
            shared = [len(words & carried_words) for carried_words in carried]
            most = max(shared, default=0)
            pairs = zip(authors, shared, strict=True)
            named.update((author, None) for author, n in pairs if n and n == most)
        return tuple(named)

    def scores(self, runs: Sequence[frozenset[str]]) -> np.ndarray | None:
        """What naming authors adds to each paper's score. Each run of name words is one
        term of an author field: a paper scores the idf of the part of the run that one of
        its authors carries (the best author), counted as a term at its saturation, the most
        any term adds in BM25Okapi (idf * (k1 + 1)), as a name is as telling as a word can
        be, times the share of the run's words the part holds. A long author list costs
        nothing (b = 0). The idf is that of the part as a whole, so ``Wei Chen`` weighs what
        papers by a Wei Chen make rare, not what the many Chens make common, and an author
        who shares only a rare first name gets half of it; a name typed with a topic lifts
        that author's papers on the topic without hiding everyone else's. None when the
        query names nobody."""
        if not runs:
            return None
        scores = np.zeros(len(self.papers), dtype=np.float64)
        for run in runs:
            scores += self._run_scores(run)
        return scores

    def _run_scores(self, run: frozenset[str]) -> np.ndarray:
        """One run's share of ``scores``. A paper with one of the run's words is given that
        word's weight in one numpy step (the best, if its authors carry several words but no
        two in one name); only papers holding two or more of the words, few but for the
        author asked for, have their author lists read."""
        weights: dict[frozenset[str], float] = {}

        def weight(part: frozenset[str]) -> float:
            if part not in weights:
                weights[part] = self._name_weight(part) * len(part) / len(run)
            return weights[part]

        scores = np.zeros(len(self.papers), dtype=np.float64)
        postings = [self.by_token[name] for name in run]
        for name, docs in zip(run, postings, strict=True):
            scores[docs] = np.maximum(scores[docs], weight(frozenset((name,))))
        if len(run) > 1:
            docs, holding = np.unique(np.concatenate(postings), return_counts=True)
            for doc in docs[holding > 1].tolist():
                carried = {run.intersection(name_tokens(a)) for a in self.papers[doc].authors}
                scores[doc] = max(weight(part) for part in carried if part)
        return scores

    def _name_weight(self, names: frozenset[str]) -> float:
        """BM25Okapi's saturated weight of a name part over the papers with an author who
        carries all of it; a name on more than half of the papers (a tiny corpus) keeps a
        small positive weight instead of a negative one."""
        papers, holding = len(self.papers), len(self.papers_by(names))
        idf = max(math.log((papers - holding + 0.5) / (holding + 0.5)), _LEAST_NAME_IDF)
        return idf * (K1 + 1)
