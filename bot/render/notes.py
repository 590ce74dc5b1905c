"""What a search's reasons say: the notes under a result, the usage of a field typed alone,
and a result as terminal lines for ``python -m bot search``.

Search returns reasons with data; every sentence is worded here. What the person typed stays
apart from the wording, as words (one ``{}`` in a sentence each), so it is quoted as typed:
a word like ``*Jegelka*`` must reach Slack as two stars, not bold.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from bot.papers.paper import CATALOGUE_VENUE
from bot.render.mrkdwn import command_code, escape_mrkdwn, quoted
from bot.search.results import (
    AUTHOR,
    BEFORE,
    CATEGORY,
    DATE_FILTERS,
    EXCLUSION,
    LIKE,
    PHRASE,
    SINCE,
    SOURCE,
    VENUE,
    Advice,
    AllExcluded,
    AuthorsNamed,
    BadFilterValue,
    EmptyQuery,
    NearName,
    NoFilterMatch,
    NoJointPaper,
    NoKnownWords,
    NoPhrase,
    NoSharedWords,
    NoSuchAuthor,
    NoSuchFullName,
    NothingByAuthor,
    NothingFiltered,
    OnlyCommonWords,
    OnlyExclusions,
    Reason,
    SearchResult,
    Source,
    TooManyConditions,
    Truncated,
    UnknownId,
    UnknownLike,
    Unmatched,
    Usage,
    written,
)

UNMATCHED_NAMED = 3
"""How many words that found nothing a note names before "and N more words"."""
SEARCH_COMMAND = "/paper"


class Command(str):
    """A command for the person to type (``/paper author:"Sergey Levine"``): shown as code,
    where a typed word is quoted."""

    __slots__ = ()


def _search(query: str) -> Command:
    return Command(f"{SEARCH_COMMAND} {query}")


_ADVICE = {
    Advice.SPELLING: " Check the spelling or try other words.",
    Advice.ENGLISH: " The papers are in English: try English words.",
}
_FIXED = {
    OnlyExclusions: "Add a word to search for: a query of only -exclusions has no hits.",
    EmptyQuery: (
        "Type a few words to search for (e.g. graph sparsification), "
        f"{PHRASE.prefix}a quoted phrase{PHRASE.closing}, {AUTHOR.prefix}name, a paper id, "
        f"or {LIKE.syntax}."
    ),
    OnlyCommonWords: "The query has only common words or punctuation; add a more specific word.",
    NoKnownWords: "No paper mentions these words; check the spelling or try other words.",
    TooManyConditions: "No paper matches all of the query's conditions; try fewer of them.",
}
"""Reasons that carry no data, and their sentences."""
_NOT_ADVICE = (Truncated, NoSharedWords, AuthorsNamed, AllExcluded)
"""Reasons whose sentence does not say what to try instead."""
_SOURCE_NAMES = {Source.PAPER: "paper", Source.TEXT: "text"}


def advises(reason: Reason) -> bool:
    """Whether a reason's sentence says what to try instead: general tips ("check the
    spelling") would then repeat it, or mislead (an unknown id is no misspelt word)."""
    if isinstance(reason, Unmatched):
        return reason.advice is not None
    return not isinstance(reason, _NOT_ADVICE)


def _unmatched(reason: Unmatched) -> tuple[str, tuple[str, ...]]:
    """Which words found nothing: the first few, and how many more (a pasted paragraph
    must not fill the reply)."""
    named = reason.words[:UNMATCHED_NAMED]
    missing = " or ".join("{}" for _ in named)
    if len(reason.words) > len(named):
        hidden = len(reason.words) - len(named)
        missing += f" and {hidden} more word" + ("s" if hidden > 1 else "")
    advice = _ADVICE[reason.advice] if reason.advice else ""
    if reason.searched is None:
        return f"No paper mentions {missing}.{advice}", named
    return f"No paper mentions {missing}; showing papers about {{}}.{advice}", (
        *named,
        reason.searched,
    )


def _places(count: int, last: str) -> str:
    """``{}``, ``{} or {}``, ``{}, {} or {}``: places for ``count`` words, ``last`` (a
    conjunction) before the last one."""
    places = ["{}"] * count
    return f" {last} ".join(filter(None, (", ".join(places[:-1]), places[-1])))


def _did_you_mean(text: str, near: tuple[NearName, ...]) -> str:
    """A sentence about a name that finds nobody, then the searches for the near names."""
    return f"{text} Did you mean {_places(len(near), 'or')}?"


def _no_such_author(reason: NoSuchAuthor) -> tuple[str, tuple[str, ...]]:
    names = ", ".join("{}" for _ in reason.names)
    if reason.near:
        near = tuple(_search(name.query) for name in reason.near)
        return _did_you_mean(f"No paper has an author named {names}.", reason.near), (
            *reason.names,
            *near,
        )
    if reason.full is None:
        return f"No paper has an author named {names} (check the spelling).", reason.names
    quoted_full = f"{AUTHOR.prefix}{PHRASE.prefix}{reason.full}{PHRASE.closing}"
    text = f"No paper has an author named {names} (for a full name, quote it: {{}})."
    return text, (*reason.names, quoted_full)


SOURCE_LABELS = {"arxiv": "arXiv", "openreview": "OpenReview"}
"""How a note names each ``source:`` value."""
_WHAT_FILTER_TAKES = {
    SINCE: "a date",
    BEFORE: "a date",
    SOURCE: "a source",
    VENUE: "a venue",
    CATEGORY: "an arXiv category",
}


FILTER_USES = {
    SINCE: "papers announced (or published) on that day or later",
    BEFORE: "papers announced (or published) before that day",
    SOURCE: "papers from arXiv or from OpenReview",
    VENUE: "papers of a venue (its words, any case)",
    CATEGORY: "papers in an arXiv category (cs.LG; cs for all of cs.*)",
}
"""What each filter does, as the usage of a filter typed alone and the help say it."""


def day_text(day: date) -> str:
    """``1 Nov 2026``: a day as a note writes it, unmistakable in any locale."""
    return f"{day.day} {day:%b %Y}"


def _bad_filter_value(reason: BadFilterValue) -> tuple[str, tuple[str, ...]]:
    """A filter's value that means nothing, and the forms it takes."""
    operator = reason.operator
    forms = tuple(Command(f"{operator.prefix}{form}") for form in operator.examples)
    text = f"{{}} is not {_WHAT_FILTER_TAKES[operator]}: write {_places(len(forms), 'or')}."
    if operator in DATE_FILTERS:
        text = (
            f"{{}} is not a date: write a day, a month, days or weeks back, or yesterday "
            f"({_places(len(forms), 'or')})."
        )
    if reason.suggestion is not None:
        text += " Did you mean {}?"
        forms = (*forms, Command(f"{operator.prefix}{reason.suggestion}"))
    return text, (Command(f"{operator.prefix}{reason.typed}"), *forms)


def _no_filter_match(reason: NoFilterMatch) -> tuple[str, tuple[str, ...]]:
    """Why a filter allows no paper: the library's dates, or some values it does have."""
    one = reason.filter
    typed = Command(one.query)
    if one.negated:
        return "Every paper here is excluded by {}.", (typed,)
    if isinstance(one.value, date):
        if reason.newest is None or reason.oldest is None:
            return (
                f"No paper here has a date to filter by with {{}}: the {CATALOGUE_VENUE} "
                "papers have none, only the papers the arXiv and OpenReview feeds bring do.",
                (typed,),
            )
        if one.operator is SINCE:
            return (
                f"No paper here is dated {day_text(one.value)} or later (the newest is from "
                f"{day_text(reason.newest)}).",
                (),
            )
        return (
            f"No paper here is dated before {day_text(one.value)} (the oldest is from "
            f"{day_text(reason.oldest)}).",
            (),
        )
    known = reason.known
    if one.operator is SOURCE:
        named = " or ".join(SOURCE_LABELS[name] for name in known)
        elsewhere = f"; they come from {named}" if known else ""
        return f"No paper here comes from {SOURCE_LABELS[str(one.value)]}{elsewhere}.", ()
    what = "from a venue called {}" if one.operator is VENUE else "in the arXiv category {}"
    if not known:
        if one.operator is CATEGORY:
            return (
                "No paper here is in the arXiv category {}: only papers from the arXiv "
                "feeds have categories.",
                (one.typed,),
            )
        return f"No paper here is {what}.", (one.typed,)
    examples = tuple(Command(written(one.operator, value)) for value in known)
    kinds = "venues" if one.operator is VENUE else "categories"
    return (
        f"No paper here is {what}; its {kinds} include {_places(len(known), 'and')}.",
        (one.typed, *examples),
    )


def sentence(reason: Reason) -> tuple[str, tuple[str, ...]]:
    """A reason's sentence, with one ``{}`` for each of the typed words (or ``Command``s)
    that follow it."""
    match reason:
        case Truncated(chars):
            return f"Only the first {chars:,} characters of the query were used.", ()
        case UnknownId(reference):
            return "No paper with id {} in this corpus.", (reference,)
        case UnknownLike(reference):
            return (
                "No paper with id {} to find similar papers to; use the id in a paper's "
                "OpenReview link (forum?id=…).",
                (reference,),
            )
        case NoSharedWords(source):
            return f"The {_SOURCE_NAMES[source]} has no words that papers in this corpus use.", ()
        case AuthorsNamed(names):
            return "Papers with an author named " + " and ".join("{}" for _ in names) + ".", names
        case Unmatched():
            return _unmatched(reason)
        case NoSuchAuthor():
            return _no_such_author(reason)
        case NoSuchFullName(name, ()):
            return "No paper has an author named {}.", (name,)
        case NoSuchFullName(name, near):
            searches = tuple(_search(found.query) for found in near)
            return _did_you_mean("No paper has an author named {}.", near), (name, *searches)
        case NoJointPaper(names):
            every = "both" if len(names) == 2 else "all of"
            return (
                f"No paper has {every} {_places(len(names), 'and')} among its authors; "
                "try one name at a time.",
                names,
            )
        case NothingByAuthor(names, alone):
            return (
                f"No paper by {_places(len(names), 'and')} matches the rest of the query; "
                "{} lists all their papers.",
                (*names, _search(alone)),
            )
        case NoPhrase(phrase):
            return "No paper contains the phrase {}; try it without quotes.", (phrase,)
        case BadFilterValue():
            return _bad_filter_value(reason)
        case NoFilterMatch():
            return _no_filter_match(reason)
        case NothingFiltered(filters, alone):
            return (
                f"No paper passing {_places(len(filters), 'and')} matches the rest of the "
                "query; {} lists the papers that pass.",
                (*(Command(one.query) for one in filters), _search(alone)),
            )
        case AllExcluded(exclusions):
            words = " ".join(f"{EXCLUSION.prefix}{phrase}" for phrase in exclusions)
            return "Every paper that matched was excluded by {}.", (words,)
    return _FIXED[type(reason)], ()


def notes_mrkdwn(reasons: Iterable[Reason]) -> str:
    """A search's reasons as mrkdwn: the wording escaped, the person's words ``quoted``."""
    notes = []
    for reason in reasons:
        text, words = sentence(reason)
        shown = (command_code(w) if isinstance(w, Command) else quoted(w) for w in words)
        notes.append(escape_mrkdwn(text).format(*shown))
    return " ".join(notes)


def notes_plain(reasons: Iterable[Reason]) -> str | None:
    """A search's reasons as one plain-text paragraph, each typed word in curly quotes, or
    None when there is nothing to say."""
    notes = []
    for reason in reasons:
        text, words = sentence(reason)
        shown = (f"`{w}`" if isinstance(w, Command) else f"\u201c{w}\u201d" for w in words)
        notes.append(text.format(*shown))
    return " ".join(notes) or None


def _usage_pieces(usage: Usage) -> list[tuple[str, bool]]:
    """How to write a field, in pieces flagged where they are query syntax (shown as code)."""
    operator = usage.operator
    if operator is LIKE:
        return [
            (LIKE.syntax, True),
            (" finds papers like one paper: give its id or OpenReview link, e.g. ", False),
            (f"{LIKE.prefix}{usage.example}", True),
            (", or click More like this under a result.", False),
        ]
    use = FILTER_USES.get(operator, "papers by an author")
    pieces = [(operator.syntax, True), (f" finds {use}, e.g. ", False)]
    examples = operator.examples
    for number, example in enumerate(examples):
        if number:
            pieces.append((" or " if number == len(examples) - 1 else ", ", False))
        pieces.append((f"{operator.prefix}{example}", True))
    return [*pieces, (".", False)]


def usage_mrkdwn(usage: Usage) -> str:
    """The usage as mrkdwn, its syntax as code."""
    return "".join(
        f"`{escape_mrkdwn(text)}`" if code else escape_mrkdwn(text)
        for text, code in _usage_pieces(usage)
    )


def usage_plain(usage: Usage) -> str:
    return "".join(text for text, _ in _usage_pieces(usage))


def result_text(result: SearchResult) -> str:
    """A result as the readable lines of ``paperbot search``: ranks, not scores. The score the
    ranking sorts by is BM25's, or, when the model re-ranks, a mix standardised over that
    query's candidates, often below zero: neither compares across queries or says how good a
    hit is, so a reader gets the order and the words matched (``--json`` has the numbers)."""
    lines: list[str] = []
    if result.similar_to is not None:
        lines.append(f"Papers like: {result.similar_to.title}")
    if result.corrected_query:
        lines.append(f"Showing results for: {result.corrected_query}")
    if notice := notes_plain(result.reasons):
        lines.append(notice)
    if result.usage:
        lines.append(usage_plain(result.usage))
    for rank, hit in enumerate(result.hits, start=result.offset + 1):
        paper = hit.paper
        lines.append(f"{rank}. {paper.title}  [{paper.status or 'status unknown'}]")
        if paper.tldr:
            lines.append(f"   TL;DR: {paper.tldr}")
        lines.append(f"   {paper.url or 'no OpenReview link'}")
        if paper.code_urls:
            lines.append(f"   code: {' '.join(paper.code_urls)}")
        if hit.matched_terms:
            lines.append(f"   matched: {', '.join(hit.matched_terms)}")
    if result.hits:
        shown = f"{result.offset + 1}-{result.offset + len(result.hits)}"
        counted = f"of {result.total} matching papers" if result.counted else "best first"
        lines.append(f"({shown} {counted})")
    return "\n".join(lines)
