"""The planner: a parsed query, resolved against one corpus, becomes a plan.

It decides what each typed word is: a word to search (corrected if the corpus has it only
misspelt), an acronym to expand, or an author's name typed as words; a quoted phrase is a
phrase to require or an author's full name. Its inputs are the corpus's index, analyzer,
acronyms and author index; it reads nothing else.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import islice, product
from typing import NamedTuple

from bot.papers.paper import Paper
from bot.search.analyzer import (
    WORD_PATTERN,
    CorpusAnalyzer,
    WordTokens,
    word_tokens,
    written_words,
)
from bot.search.authors import AuthorIndex, name_tokens
from bot.search.built_once import built_once
from bot.search.defined_acronyms import Acronym
from bot.search.fielded import FieldedBM25
from bot.search.filtering import FilterColumns
from bot.search.indexing import field_tokens
from bot.search.lexicon import english_words, is_english
from bot.search.plan import Plan, Variants, is_known
from bot.search.query import ParsedQuery, unit_spans
from bot.search.results import Filter
from bot.search.spelling import SpellCorrector
from bot.search.spelling_words import SpellingWords

LIKE_TERMS = 25  # how many of a paper's most distinctive terms make its "more like this" query
LIKE_REPEATS = 3
"""At most how many times a term of a "more like this" query counts: as often as the paper's
text uses it, so the words a paper is about outweigh the rare ones it mentions once."""
MAX_PHRASE_VARIANTS = 16
_LETTERS = re.compile(r"[^\W\d_]+")
_SENTENCE_ENDS = (".", "?", "!", ":", ";")
_LEAST_CITED_NAME_PAPERS = 3
_HYPHENATED_LETTERS = re.compile(r"[^\W\d_]+(?:[-\u2010\u2011][^\W\d_]+)+")
_WHAT_IS_SEARCHED = frozenset({"paper", "papers"})
"""Words that name what every search finds (``papers on long-context efficiency``): typed
as a free word, they say nothing about which papers, so they are neither searched nor
echoed as searched."""


@dataclass(frozen=True)
class PlannerOptions:
    """Which of the planner's readings of a query are on: all of them in the bot; the quality
    bench (``bench/quality.py``) turns one off at a time to measure what it is worth."""

    correct_typos: bool = True
    expand_acronyms: bool = True
    find_author_names: bool = True
    """Whether free words may name authors (``Wei Chen graphs``); ``author:`` always does."""
    repeat_like_terms: bool = True
    """Whether a "more like this" query counts a term as often as the paper uses it
    (``LIKE_REPEATS``) rather than once (``bench/like.py``)."""


DEFAULT_PLANNER_OPTIONS = PlannerOptions()


class _Typed(NamedTuple):
    """A free word of a query as typed, and as searched (after typo correction), whether
    the corpus knows it as searched (asked once: every step of the plan needs it); and
    ``author_only`` when it can only mean an author (see ``QueryPlanner._is_author_word``).
    A named tuple, not a frozen dataclass: one is made for every word of every query, and
    a frozen dataclass sets each field through ``object.__setattr__``."""

    typed: str
    text: str
    known: bool
    author_only: bool = False


class QueryPlanner:
    """Plans queries over one corpus; immutable but for what it builds once on demand."""

    def __init__(
        self,
        papers: Sequence[Paper],
        bm25: FieldedBM25,
        analyzer: CorpusAnalyzer,
        acronyms: dict[str, Acronym],
        authors: AuthorIndex,
        options: PlannerOptions = DEFAULT_PLANNER_OPTIONS,
        columns: FilterColumns | None = None,
        speller: SpellCorrector | None = None,
    ) -> None:
        self._papers = papers
        self._columns = columns or FilterColumns(papers)
        self._bm25 = bm25
        self._analyzer = analyzer
        self._acronyms = acronyms
        self._authors = authors
        self._options = options
        self._usual_long_forms: dict[str, bool] = {}  # by acronym token (``prepare``)
        self._grown = False  # grown from another planner (``grow``)
        if speller is not None:  # opened with the index: as if built already
            self.__dict__["speller"] = speller

    def prepare(self) -> None:
        """Settle for every acronym whether its long form is usual (``_long_form_is_usual``):
        the first query typing an acronym otherwise pays for finding the papers that hold
        every word of its long form (0.4 ms a common one's at 100,000 papers; 0.39 s for
        the 1,624 acronyms there). Not a planner grown by new papers (``grow``): it kept
        the answers they cannot change, and settling the others before the grown index is
        swapped in delayed the new papers' first search by 2 s at 250,000 papers, 7.7 → 9.9 s
        against a bar of 10 (``bench/results/growth.md``); a query typing one settles it."""
        if self._options.expand_acronyms and not self._grown:
            for acronym in self._acronyms.values():
                self._long_form_is_usual(acronym)

    @built_once
    def speller(self) -> SpellCorrector:
        """The typo corrector, its deletion map included: opened with a saved index, else
        built by the index's ``prepare`` at the bot's start-up, else on the first unknown
        query word (a one-off search need not pay)."""
        speller = SpellCorrector(self._spelling_frequencies())
        speller.prepare()
        return speller

    def _spelling_frequencies(self) -> dict[str, int]:
        """Corpus words a typo may be corrected to, with how many papers use their stem."""
        return self.spelling.frequencies

    @built_once
    def spelling(self) -> SpellingWords:
        """The corrector's words and what an addition extends them from (see
        ``bot.search.spelling_words``)."""
        return SpellingWords.build(len(self._papers), self._bm25, self._analyzer)

    def grow(
        self, old: QueryPlanner, added: Counter[str], chunks: Mapping[str, tuple[str, ...]]
    ) -> None:
        """Take the typo corrector of ``old``, the planner of this corpus less some new papers,
        grown by them (``added``, ``chunks``: ``bot.search.growth.Extension``) rather than
        built again, where ``old`` has one: in time of the new papers, not the corpus (but
        for its words, the first time, where ``old`` was given its corrector ready-made).

        Whether an acronym's long form is usual is kept where the new papers hold neither
        the acronym nor every word of its long form, which leaves both counts as they were
        (the old papers are the same); the first query typing one of the others settles it
        (see ``prepare``)."""
        self._grown = True
        self._usual_long_forms.update(
            (token, usual)
            for token, usual in old._usual_long_forms.items()
            if (acronym := self._acronyms.get(token)) == old._acronyms.get(token)
            and acronym is not None
            and token not in added
            and not all(word in added for word in acronym.long_tokens)
        )
        if "speller" not in old.__dict__:
            return
        grown = old.spelling.extended(len(self._papers), old._bm25, self._analyzer, added, chunks)
        if grown is not None:
            before = old.spelling.frequencies
            changes = {w: n for w, n in grown.frequencies.items() if before.get(w) != n}
            self.__dict__["spelling"] = grown
            self.__dict__["speller"] = old.speller.extended(changes)

    def is_known(self, word: str) -> bool:
        return is_known(self._bm25, word)

    # --- the query's names ------------------------------------------------------------------

    def resolve(self, parsed: ParsedQuery) -> ParsedQuery:
        """``parsed`` with each unquoted ``author:`` name continued by the words after it
        while they extend a name some author has: ``author:Stefanie Jegelka graphs`` is
        Stefanie Jegelka's papers about graphs, ``author:Bengio graphs`` Bengio's."""
        if not any(parsed.author_tails):
            return parsed
        names = list(parsed.authors)
        taken: set[int] = set()
        for number, tail in enumerate(parsed.author_tails):
            for word in tail:
                longer = f"{names[number]} {parsed.words[word].text}"
                if not self._authors.names_an_author(longer):
                    break
                names[number] = longer
                taken.add(word)
        words = tuple(word for number, word in enumerate(parsed.words) if number not in taken)
        names_typed = tuple(parsed.words[number] for number in sorted(taken))
        return replace(
            parsed, words=words, authors=tuple(names), author_tails=(), name_words=names_typed
        )

    def _author_runs(self, typed: list[_Typed]) -> list[frozenset[str]]:
        """Name words of the authors a query names: each run of neighbouring words that are
        all parts of author names and either hold a word that can only mean an author, or
        are two or more words one author's name holds in full (``Wei Chen``, though ``chen``
        is in some abstract and ``wei`` in the English lexicon)."""
        runs: list[frozenset[str]] = []
        if not self._options.find_author_names:
            return runs
        run: list[_Typed] = []
        for word in [*typed, None]:
            if word is not None and (word.author_only or self._authors.is_name(word.typed)):
                run.append(word)
                continue
            if not run:  # most words end no run: no names to gather
                continue
            names = frozenset(t for member in run for t in name_tokens(member.typed))
            if any(member.author_only for member in run) or (
                len(run) > 1 and len(self._authors.papers_by(names)) > 0
            ):
                runs.append(names)
            run = []
        return runs

    def _is_author_word(self, word: str, initial: bool) -> bool:
        """A word (as typed) that can only mean an author: part of an author's name, in no
        title or abstract, not a stopword (``He`` and ``Do`` are names too, but in every
        question), and not an English word unless capitalised inside a sentence (``Young``,
        not ``young`` or a sentence's ``Young``; the lexicon lists many names as well, so
        ``Finn`` counts only when written as one). A stopword or English word still counts
        next to such a word, or as part of a full name (``Tianyu He``). Initials alone name
        nobody: ``I'm`` is the initials I. and M. of many authors."""
        return (
            bool(word_tokens(word).tokens)
            and not self.is_known(word)
            and self._authors.is_name(word)
            and any(len(name) > 1 for name in name_tokens(word))
            and (
                word.casefold() not in english_words()
                or (not initial and word[:1].isupper() and not word.isupper())
            )
        )

    def is_cited_name(self, word: str) -> bool:
        """A surname some abstracts cite (``Bengio``, ``Zhang``), typed as a name: capitalised,
        not an English word, and the name of authors of more than twice as many papers as
        use it in their title or abstract (and at least three), so it means the people."""
        if not word[:1].isupper() or word.isupper() or word.casefold() in english_words():
            return False
        names = name_tokens(word)
        if len(names) != 1 or len(names[0]) < 2:
            return False
        authored = self._authors.paper_count(names[0])
        said = max(map(self._bm25.document_frequency, word_tokens(word).tokens), default=0)
        return authored >= _LEAST_CITED_NAME_PAPERS and authored > 2 * said

    # --- planning ---------------------------------------------------------------------------

    def plan(
        self,
        parsed: ParsedQuery,
        similar_doc: int | None = None,
        filters: Sequence[Filter] = (),
    ) -> Plan:
        """The plan of a resolved query; ``similar_doc`` is the paper ``like:`` names,
        ``filters`` its filters as read (``bot.search.filtering.read_filter``)."""
        plan = Plan()
        if filters:
            plan.filters.extend(filters)
            plan.allowed = self._columns.mask(filters)
        plan.corrections.extend(parsed.field_fixes)
        typed = self._typed_words(parsed, plan.corrections)
        # Each searched word's tokens and acronyms' long forms, read once: the tokens, the
        # expansions and what holding the word means all need them.
        searched = [word for word in typed if not word.author_only]
        tokens = [self._analyzer.query_word(word.text) for word in searched]
        long_forms = [self._long_forms(word.text) for word in searched]
        for word, query_tokens in zip(searched, tokens, strict=True):
            plan.tokens.extend(query_tokens.tokens)
            if word_tokens(word.text).tokens:
                (plan.searched if word.known else plan.unmatched).append(
                    word.text if word.known else word.typed
                )
        plan.tokens.extend(_expansions(long_forms, plan.tokens))
        plan.words.extend(map(self._held_as, tokens, long_forms))
        runs = plan.author_runs = self._author_runs(typed)
        plan.author_scores = self._authors.scores(runs)
        free = {token for token in plan.tokens if token in self._bm25}
        conditions = len(free) + len(parsed.phrases) + (plan.author_scores is not None)
        # A full name also finds those who share half of it (every He for ``Kaiming He``):
        # that many papers are no count of the person's.
        whole_names = all(len(run) == 1 for run in runs)
        plan.counted = similar_doc is None and conditions <= 1 and whole_names
        plan.authors.extend(parsed.authors)
        for phrase in parsed.phrases:
            if self._authors.is_full_name(phrase):
                plan.authors.append(phrase)
                continue
            phrase_tokens = [
                token
                for word in written_words(phrase)
                for token in self._analyzer.query_word(word).tokens
            ]
            plan.tokens.extend(phrase_tokens)
            plan.words.append([tuple(phrase_tokens)])
            plan.phrases.append((phrase, self.phrase_variants(phrase)))
        for phrase in parsed.excluded:
            plan.excluded.append((phrase, self.phrase_variants(phrase)))
        if filters and not plan.tokens and not plan.authors and plan.author_scores is None:
            plan.tiebreak = self._columns.newest_first
        if similar_doc is not None:
            # The paper's own terms are the query: every paper like it is a result.
            plan.words.clear()
            plan.exclude_doc = similar_doc
            plan.tokens.extend(self.paper_terms(self._papers[similar_doc]))
        if plan.corrections:
            text = parsed.text
            for start, end, fix in sorted(plan.corrections, reverse=True):
                text = text[:start] + fix + text[end:]
            plan.corrected_text = text
        return plan

    def _typed_words(
        self, parsed: ParsedQuery, corrections: list[tuple[int, int, str]]
    ) -> list[_Typed]:
        """The query's free words, each as typed and as searched; the typo fixes made are
        added to ``corrections``."""
        typed: list[_Typed] = []
        initial = True
        for span in parsed.words:
            if "$" in span.text or "\\" in span.text:
                typed.extend(
                    _Typed(unit, unit, self.is_known(unit)) for unit in written_words(span.text)
                )
                initial = span.text.endswith(_SENTENCE_ENDS)
                continue
            # A chunk of letters alone, as most are, is one word: no regex pass for it.
            units = (
                ((span.text, span.start, span.end),)
                if span.text.isalpha()
                else unit_spans(span, WORD_PATTERN)
            )
            for unit, start, _ in units:
                if unit.casefold() in _WHAT_IS_SEARCHED:
                    continue
                known = self.is_known(unit)
                if self.is_cited_name(unit) if known else self._is_author_word(unit, initial):
                    typed.append(_Typed(unit, unit, known, author_only=True))
                else:
                    fixes = self._corrections(unit)
                    fixed = unit
                    for piece_start, piece_end, fix in reversed(fixes):
                        fixed = fixed[:piece_start] + fix + fixed[piece_end:]
                        corrections.append((start + piece_start, start + piece_end, fix))
                    typed.append(_Typed(unit, fixed, self.is_known(fixed) if fixes else known))
                initial = False
            initial = span.text.endswith(_SENTENCE_ENDS)
        if not any(word.known for word in typed):
            # Only names can find anything: ``Manning`` or ``Burns`` alone means the author,
            # however English the word and wherever it stands.
            typed = [
                word._replace(author_only=True)
                if word_tokens(word.typed).tokens and self._authors.is_name(word.typed)
                else word
                for word in typed
            ]
        return typed

    def _corrections(self, word: str) -> list[tuple[int, int, str]]:
        """Typo corrections inside a word, as (start, end, replacement) within it: the word
        itself if it is all letters, or each misspelt part of a hyphenated word
        (``text-to-moton``). Nothing is corrected that the English lexicon (prefixed words
        included, ``bot.search.lexicon.is_english``) or an author's name vouches for, nor a
        word typed with two or more capitals (an acronym or a name the corpus lacks, not a
        slip). A word the corpus does not know becomes its nearest corpus word; one it
        knows only by its stem (``reinforcment`` stems as ``reinforcement`` does) only
        becomes a word of that stem which papers write and English knows, so the fix
        changes what the reader is shown, never what is searched."""
        if not self._options.correct_typos or _capitals(word) >= 2:
            return []
        if word.isalpha():
            pieces = [(word, 0, len(word))]
        elif _HYPHENATED_LETTERS.fullmatch(word):
            pieces = [(m.group(), m.start(), m.end()) for m in _LETTERS.finditer(word)]
        else:
            return []
        fixes = []
        for piece, start, end in pieces:
            tokens = word_tokens(piece).tokens
            if not tokens or is_english(piece) or self._authors.is_name(piece):
                continue
            if not self.is_known(piece):
                fix = self.speller.correct(piece)
            elif piece.casefold() in self._analyzer.spelling_words(tokens):
                continue  # as papers write it
            else:
                fix = self._spelling_of(piece)
            if fix is not None:
                # "Showing results for" echoes the fix: ``Bengoi`` reads ``Bengio``.
                shown = fix[:1].upper() + fix[1:] if piece[:1].isupper() else fix
                fixes.append((start, end, shown))
        return fixes

    def _spelling_of(self, word: str) -> str | None:
        """The English word of the same tokens nearest ``word`` among those papers write."""
        tokens = word_tokens(word).tokens
        return self.speller.correct(
            word, lambda near: is_english(near) and word_tokens(near).tokens == tokens
        )

    def _long_forms(self, word: str) -> list[tuple[str, ...]]:
        """Long forms of the acronyms the user typed as acronyms: two or more capitals
        (``OOD``, ``MLLMs``), never a lower-case word that happens to spell one (``clips``,
        ``node``), and never the other way round (``language models`` is not ``LM``)."""
        if not self._options.expand_acronyms or _capitals(word) < 2:
            return []
        acronyms = (self._acronyms.get(token) for token in word_tokens(word).tokens)
        return [
            acronym.long_tokens
            for acronym in acronyms
            if acronym is not None and self._long_form_is_usual(acronym)
        ]

    def _held_as(
        self, tokens: WordTokens, long_forms: list[tuple[str, ...]]
    ) -> list[tuple[str, ...]]:
        """What holding a typed word (of ``tokens`` as a query word, ``long_forms`` its
        acronyms') means to ``Ranker.about``: its token; for a hyphenated word, its joined
        form where papers write it so (``in-context`` is not "context"), else every part;
        or every token of its acronym's long form."""
        if tokens.joined is not None and tokens.joined in self._bm25:
            held = [(tokens.joined,)]
        else:
            held = [tokens.parts]
        return held + long_forms

    def _long_form_is_usual(self, acronym: Acronym) -> bool:
        """Whether more papers hold every word of the long form than the acronym. Only then
        does the long form find papers the acronym would miss; where the acronym is how the
        papers say it (``LoRA``), they already match, and the long form's common words
        (``low``, ``rank``) would lift every paper on the topic over the one the rest of
        the query describes."""
        usual = self._usual_long_forms.get(acronym.token)
        if usual is None:
            holding = len(self._bm25.holding_every(acronym.long_tokens))
            usual = holding > self._bm25.document_frequency(acronym.token)
            self._usual_long_forms[acronym.token] = usual
        return usual

    def phrase_variants(self, phrase: str) -> Variants:
        """Token sequences a phrase may appear as: split into its parts (as the index stores
        every compound some paper hyphenates) or, for a hyphenated word no paper hyphenates,
        joined (``self-play`` finds ``selfplay``)."""
        options: list[list[tuple[str, ...]]] = []
        for tokens in self._analyzer.words(phrase):
            choices = [tokens.parts] if tokens.parts else []
            if tokens.joined:
                choices.append((tokens.joined,))
            if choices:
                options.append(choices)
        if not options:
            return []
        combos = islice(product(*options), MAX_PHRASE_VARIANTS)
        return [tuple(t for part in combo for t in part) for combo in combos]

    # --- papers and texts as queries --------------------------------------------------------

    def _distinctive_terms(self, fields: Sequence[list[str]]) -> list[str]:
        """The terms with the highest BM25 weight in a paper whose fields hold ``fields``."""
        frequencies = [Counter(tokens) for tokens in fields]
        lengths = [len(tokens) for tokens in fields]
        content = {token for tokens in fields for token in tokens}
        weights = {
            t: self._bm25.text_weight(t, [counts[t] for counts in frequencies], lengths)
            for t in content
        }
        ranked = sorted((t for t in content if weights[t] > 0), key=lambda t: (-weights[t], t))
        return ranked[:LIKE_TERMS]

    def paper_terms(self, paper: Paper) -> list[str]:
        """A paper's "more like this" query: its most distinctive terms, chosen by what each
        adds to the paper's own score, each repeated as often as its text uses it (up to
        ``LIKE_REPEATS``; BM25 adds a query term's score once per repeat). Counted once each,
        a term the paper names in passing (``KV cache`` in a paper on attention sinks)
        weighed as much as what it is about; on 41 papers judged blind, one at a time, the
        repeats put more related papers in the first five (``bench/results/like.md``)."""
        fields = field_tokens(self._analyzer, paper)
        uses = Counter(fields[-1])
        repeats = LIKE_REPEATS if self._options.repeat_like_terms else 1
        return [
            term
            for term in self._distinctive_terms(fields)
            for _ in range(max(1, min(uses[term], repeats)))
        ]

    def for_text(self, text: str) -> Plan:
        """The plan of a free text (a Slack message), not read as a query: quotes, hyphens
        and minus signs are just writing, and no word is "corrected". Every word the corpus
        has is taken, as BM25 weighs them: with the model off too, a thread post's most
        distinctive words alone found its paper less often (catalogue threads 0.600 MRR@10
        against 0.675, ``bench/round5.md``). Every paper sharing one of a message's many words
        is no count worth giving."""
        tokens = [t for word in self._analyzer.words(text) for t in word.tokens]
        return Plan(tokens=[t for t in tokens if t in self._bm25], counted=False)


def _expansions(long_forms: list[list[tuple[str, ...]]], tokens: list[str]) -> list[str]:
    """The tokens of the typed acronyms' long forms (``_long_forms``) not yet searched."""
    seen = set(tokens)
    extra: list[str] = []
    for forms in long_forms:
        for long_form in forms:
            for long_token in long_form:
                if long_token not in seen:
                    seen.add(long_token)
                    extra.append(long_token)
    return extra


def _capitals(word: str) -> int:
    """How many capital letters ``word`` has: none if it is lower-case (one call, for most
    words), else one call per letter, no generator step each; for every word of every
    query (in ``_corrections`` and ``_long_forms``)."""
    return 0 if word.islower() else sum(map(str.isupper, word))
