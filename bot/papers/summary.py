"""What a reader sees before the abstract: a TL;DR and, when a paper has no catalogue title, a
title derived from its text.

Both are chosen from the cleaned plain abstract (``bot.papers.plain``), sentence by sentence, with
rules tuned on how ICLR abstracts are written: background first, then "we propose …".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from bot.papers.acronyms import introduced_phrase
from bot.papers.macros import UNNAMED, name_author_macros
from bot.papers.plain import clean_text
from bot.papers.text import normalise_whitespace

_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "vs.", "cf.", "Fig.", "Eq.", "resp.", "approx.")
_INITIAL = re.compile(r"\b[A-Z]\.$")
# The end of a sentence, its final punctuation included: a pattern that starts with a
# character class is scanned several times faster than one that starts with a lookbehind.
# A full stop without its space ("performance.To prevent …") ends a sentence too when a word
# of three small letters comes before it and a capitalised word after (not "e.g." or "U.S.").
_SENTENCE_END = re.compile(
    r"[.!?](?P<close>[\"\u201d\u2019)]*)(?:\s+(?=[\"\u201c(\[]?[A-Z0-9])|(?<=[a-z]{3}\.)(?=[A-Z][a-z]))"
)


def split_sentences(text: str) -> list[str]:
    """Sentences of a plain abstract, not cut after ``e.g.``, ``et al.`` or an initial."""
    return list(_sentences(text))


def _sentences(text: str) -> Iterator[str]:
    """``split_sentences``, one at a time: a TL;DR rarely needs the abstract's second half."""
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.start() + 1
        # Checked in place rather than on a copy of the sentence; an initial is decided by
        # its last three characters, and searching the whole sentence would cost as much as
        # splitting.
        if text.endswith(_ABBREVIATIONS, start, end) or _INITIAL.search(
            text, max(start, end - 3), end
        ):
            continue
        yield (text[start:end] + _closed(text[start:end], match.group("close"))).strip()
        start = match.end()
    if text[start:].strip():
        yield text[start:].strip()


_OPENERS = {"\u201d": "\u201c", ")": "("}


def _closed(sentence: str, closers: str) -> str:
    """The quotes and brackets after a sentence's full stop that close what the sentence
    opened (``a “cake-slicing problem.”``), so it neither leaves a quote open nor closes
    one it never opened (``It works.)`` after ``(a new idea.``)."""
    kept = ""
    for closer in closers:
        text = sentence + kept
        if closer == '"':
            opened = text.count('"') % 2 == 1
        elif closer == "\u2019":  # also the apostrophe: any opening quote (U+2018) will do
            opened = "\u2018" in text
        else:
            opened = text.count(_OPENERS[closer]) > text.count(closer)
        if not opened:
            break
        kept += closer
    return kept


# "We", "this paper" or "our work", case-insensitively, as a whole word, then adverbs.
#
# The patterns are searched in every sentence of every abstract, so they are written to start
# with a case-sensitive character class ([Ww] for "we"), which the regex engine can skip to,
# instead of a word boundary it would have to try at every character: the first letter is
# matched, ``(?<!\w.)`` checks that it starts a word, and a lookbehind picks the branch that
# begins with it. The words themselves stay case-insensitive.
_WORD_START = r"(?<!\w.)"
_SUBJECT = (
    r"(?:(?<=[Ww])(?i:e)|(?<=[Tt])(?i:his (?:paper|work|study|article))"
    r"|(?<=[Oo])(?i:ur (?:paper|work)))"
    r"(?P<filler>(?i:\s+(?:\w+ly|also|further|first|then|here|now|thus|therefore|hence|instead"
    r"|have|has|can|will|aim to|seek to|take a step further to))*)\s+"
)
_CONTRIBUTION = re.compile(
    r"[WwTtOoBb]"
    + _WORD_START
    + r"(?:"
    + _SUBJECT
    + r"(?i:propos|introduc|present|develop|design|devis|build|creat|construct"
    r"|formulat|offer|put forward)\w*"
    r"|(?<=[Bb])(?i:y (?:introducing|proposing|developing|designing))"
    r"|(?<=[Tt])(?i:he design of))"
)
_FINDING = re.compile(
    r"[WwTtOo]"
    + _WORD_START
    + _SUBJECT
    + r"(?i:show|demonstrat|find|prove|reveal|establish|identif|stud|investigat"
    r"|explor|examin|analy[sz]|extend|characteri[sz]|provid|deriv)\w*"
)
_SECONDARY = re.compile(r"\b(?:also|further)\b", re.IGNORECASE)
TLDR_MAX_CHARS = 300
_SECOND_SENTENCE_BELOW = 150
LONGEST_TLDR = 400
"""Characters a TL;DR may have: a card shows it above the fold, and a sentence of 70 words
is no summary. A longer sentence is cut after its last clause that fits, with an ellipsis."""


# A word that points back at something the abstract said earlier: "this gap", "these
# limitations", "such attacks", "the above", "both methods" or "both" alone ("dominates
# both."), "the issues" or "the first issue" (but not "the problem of X", which says what
# it is, unless X is "previous methods"), and "the following contributions." with nothing
# after it (a colon brings what follows into the sentence). "This paper" and "this work"
# name the paper itself and "such as" introduces an example, so neither counts.
_POINTER = re.compile(
    r"\b(?:(?i:this|these|those)"
    r"(?!\s+(?i:paper|work|study|article|manuscript|of|that|which|who|whose)\b)"
    r"(?=\s+[a-z]|\s*[,.;:]|$)"
    r"|(?i:such)\s+(?!as\b|that\b)(?=[A-Za-z])"
    r"|(?i:the)\s+(?:above|aforementioned|latter|former)\b"
    r"|(?i:the)\s+following\b(?![^:]*:)"
    r"|(?i:the)\s+(?:(?:first|second|third|two|three)\s+)?(?:issues?|problems?|challenges?"
    r"|limitations?|gaps?|shortcomings?|drawbacks?|difficult(?:y|ies)|bottlenecks?)\b"
    r"(?!\s+(?:of|in|with|that|posed)\b)"
    r"|(?i:the)\s+(?:issues?|problems?|challenges?|limitations?|shortcomings?|drawbacks?)"
    r"\s+of\s+(?:the\s+)?(?i:previous|prior|existing|current|conventional)\b"
    r"|(?i:both)\s+(?:methods|approaches|paradigms|techniques|settings|issues|problems"
    r"|challenges|worlds|lines|families|directions)\b"
    r"|(?i:both)(?=\s*[.,;:!?]?$|\s*[,;:]|\s+of\s+them\b))"
)
_UNTIL_COMMA = r"(?:[^,(]|\([^()]{0,80}\)){1,120}?"
"""Words up to the next comma, a bracket's commas not counted ("(i.e., hard negatives)")."""
# An opening clause before the subject ("To address this gap, we …", "In this paper, we …"),
# maybe with a relative clause ("To address the issue of previous methods, which …, we"),
# maybe followed by a frame ("To address this, in this work, we …"); before "we", maybe
# without its comma ("To address this limitation we propose …").
_LEAD = re.compile(
    rf"(?P<lead>(?=(?i:to|in order to)\s){_UNTIL_COMMA}(?=\s+(?i:we)\s)"
    rf"|{_UNTIL_COMMA}(?:,\s+(?:which|that|who)\b{_UNTIL_COMMA})?(?=,))"
    r",?\s+(?=(?i:(?:in this (?:paper|work|study|article),\s+)?"
    r"(?:we|our|this (?:paper|work|study|article)|by))\b)"
)
# A purpose that points back by itself, however plain its words: "To that end", "To do so",
# "To overcome it".
_POINTING_PURPOSE = re.compile(
    r"(?i:to)\s+(?:(?:this|that)\s+end|do\s+(?:so|this|that)|[a-z]+\s+(?:it|them))$"
)
# Openings that only say where the sentence sits in the abstract: dropped with their comma.
_FRAME = re.compile(
    r"(?i:in this (?:paper|work|study|article)|in the present (?:paper|work|study)|here"
    r"|specifically|in particular|namely|concretely|however|moreover|furthermore"
    r"|additionally|in addition|thus|hence|therefore|consequently|accordingly|instead|then"
    r"|finally|next|first(?:ly)?|second(?:ly)?|third(?:ly)?|lastly|overall|in summary"
    r"|in contrast|meanwhile|nonetheless|nevertheless|importantly|notably|crucially"
    r"|also|besides|and|but|so|yet)(?=\W)"
)
# A frame may go without its comma before the subject: "Thus we proposed …", "And we show …".
_SUBJECT_AFTER_FRAME = re.compile(r"\s+(?=(?i:we|our)\b)")
# A first word that continues the sentence before: a conjunction or connective that no comma
# lets ``stand_alone`` drop ("And this low-rank gradient …"), "It" as a pronoun (not "It is
# unclear whether …", which points nowhere) and "Both" without the "and" that names the two.
_LEANS_ON_PREVIOUS = re.compile(
    r"(?:And|But|Or|So|Yet|Also|Thus|Hence|Therefore|Moreover|Furthermore|Additionally"
    r"|In addition|However|Besides|Nevertheless|Nonetheless|Consequently|Accordingly)\b"
    r"|It\s+(?!(?:is|was|has been|remains|seems|appears)\s+(?:\w+\s+){0,3}?"
    r"(?:that|to|whether|how|what|why|when|which|if)\b)"
    r"|Both\b(?![^.]*\band\b)"
)
# "We address these challenges by introducing X": the opening verb acts on what the pointer
# points at, and the gerund says what the paper does ("We introduce X").
_ADDRESSED_BY = re.compile(
    r"^(?P<subject>We|This (?:paper|work|study|article)|Our (?:paper|work|study))\s+"
    r"(?:\w+ly\s+)?\w+\s+(?i:this|these|those|such|the above|the aforementioned)"
    r"(?:\s+[\w-]+){0,3}?\s+by\s+"
    r"(?P<gerund>[a-z]+ing)\b"
)
# "by introducing X, and then developing Y": the second gerund becomes a verb too.
_PARALLEL_GERUND = re.compile(r"\b(?P<and>(?:and|or)\s+(?:then\s+)?)(?P<gerund>[a-z]+ing)\b")
_BASE_FORMS = {
    verb.removesuffix("e") + "ing": verb
    for verb in (
        *("introduce", "propose", "present", "develop", "design", "provide", "create"),
        *("build", "formulate", "derive", "establish"),
    )
}

# "We then propose", "we further show": a step in a sequence the reader did not see.
_SEQUENCE_WORD = re.compile(
    r"^(?P<we>[Ww]e)\s+(?:then|further|also|first|now|thus|therefore|hence|instead|next"
    r"|finally|additionally|take a step further to)\s+"
)
# Where a clause that carries a pointer may start: an apposition, a dash, or a purpose
# ("to address these limitations").
_CLAUSE_START = re.compile(
    r",\s+|\s+(?:-{1,2}|\u2014|\u2013)\s+"
    r"|\s+(?=(?i:to|in order to)\s+(?:\w+ly\s+)?"
    r"(?i:address|tackle|overcome|solve|mitigate|fill|bridge|close|resolve|alleviate|handle"
    r"|remedy)\w*\s)"
)
_CLAUSE_END = re.compile(r",\s+|\s+(?:-{1,2}|\u2014|\u2013)\s+")
# A purpose clause's participle goes with it: "an agent designed to overcome these limits".
_PARTICIPLE = re.compile(r"\s+(?i:designed|intended|aimed|tailored|developed|proposed)$")
_WORD = re.compile(r"\w+")
_LONGEST_DROPPED_CLAUSE = 10
"""Words a clause that points back may have and still be dropped: a longer one says more
than where it points ("an automated framework that explores this space using MCTS")."""
_SENTENCE_MARK = re.compile(r"[.!?]?$")


def points_back(text: str) -> bool:
    """Whether ``text`` opens by pointing at context it does not state ("This gap …",
    "To address these limitations, …", "Such methods …") or by going on from the sentence
    before ("And this gradient …", "It achieves …")."""
    if _LEANS_ON_PREVIOUS.match(text):
        return True
    lead = _LEAD.match(text)
    if lead and _POINTING_PURPOSE.match(lead.group("lead")):
        return True
    match = _POINTER.search(text)
    if match is None:
        return False
    end_of_opening = lead.end() if lead else len(text.split(" ", 2)[0]) + 1
    return match.start() < end_of_opening


def stand_alone(sentence: str) -> str:
    """``sentence`` without what only makes sense after the rest of the abstract.

    A leading clause that points back or only frames ("To address this gap, we introduce
    X" → "We introduce X", "Specifically, we …" → "We …"), a "then / further" after "we",
    and a clause that points back after the contribution ("We propose X to address these
    limitations" → "We propose X") are dropped. Pointers elsewhere stay: removing them
    would change what the sentence says.
    """
    text = sentence
    while True:
        frame = _FRAME.match(text)
        lead = _LEAD.match(text)
        if frame and text.startswith(", ", frame.end()):
            end = frame.end() + 2
        elif frame and (subject := _SUBJECT_AFTER_FRAME.match(text, frame.end())):
            end = subject.end()
        elif lead and (
            _POINTER.search(lead.group("lead"))
            or _FRAME.fullmatch(lead.group("lead").strip())
            or _POINTING_PURPOSE.match(lead.group("lead"))
        ):
            end = lead.end()
        else:
            break
        text = text[end:]
        text = text[:1].upper() + text[1:]
    text = _SEQUENCE_WORD.sub(lambda match: f"{match.group('we')} ", text)
    text = _addressed_by(text)
    verb = _CONTRIBUTION.search(text) or _FINDING.search(text)
    if verb is None:
        return text
    for pointer in _POINTER.finditer(text, verb.end()):
        starts = [
            clause
            for clause in _CLAUSE_START.finditer(text, verb.end() + 1, pointer.start())
            if clause.start() > verb.end()
        ]
        if not starts:
            break
        start = starts[-1].start()
        if participle := _PARTICIPLE.search(text, 0, start):
            start = participle.start()
        end_match = _CLAUSE_END.search(text, pointer.end())
        end = end_match.start() if end_match else len(text)
        if len(_WORD.findall(text, start, end)) > _LONGEST_DROPPED_CLAUSE:
            break
        if end_match is None:
            mark = _SENTENCE_MARK.search(text.rstrip())
            return text[:start].rstrip(",;: ") + (mark.group() if mark else "")
        return stand_alone(text[:start] + text[end_match.start() :])
    return text


def _verb(gerund: str, subject: str) -> str | None:
    """The verb a gerund says for ``subject`` ("introducing" → "introduce", "introduces")."""
    base = _BASE_FORMS.get(gerund)
    if base is None or subject == "We":
        return base
    return base + ("es" if base.endswith(("sh", "ch", "s", "x")) else "s")


def _addressed_by(text: str) -> str:
    """``text`` with "We address this by introducing X, and then developing Y" said as
    "We introduce X, and then develop Y" (and "This paper introduces …"); a gerund without a
    known verb stays as written."""
    match = _ADDRESSED_BY.match(text)
    if match is None:
        return text
    subject = match.group("subject")
    verb = _verb(match.group("gerund"), subject)
    if verb is None:
        return text
    rest = text[match.end() :]
    for parallel in _PARALLEL_GERUND.finditer(rest):
        if (also := _verb(parallel.group("gerund"), subject)) is not None:
            rest = rest[: parallel.start("gerund")] + also + rest[parallel.end("gerund") :]
            break
    return f"{subject} {verb}{rest}"


def _contribution_rank(sentence: str, best: int) -> int:
    """2 for "we propose / introduce", 1 for "we show / study", 0 for anything else.

    "We also introduce" is a side contribution, so it ranks with the findings. Once a
    sentence ranking ``best`` has been found only a higher rank matters, so a second finding
    is not looked for (0 stands for it).
    """
    if match := _CONTRIBUTION.search(sentence):
        return 1 if _SECONDARY.search(match.group("filler") or "") else 2
    return 1 if best < 1 and _FINDING.search(sentence) else 0


# Where a sentence may be cut: after a clause (a comma, semicolon or colon) or before a dash.
_CLAUSE_BREAK = re.compile(r"[,;:](?=\s)|\s(?=(?:-{1,2}|\u2014|\u2013)\s)")
_STOP = re.compile(r"[.!?](?=\s)")
_SENTENCE_CLOSE = re.compile(r"[.!?\u2026][\"\u201d\u2019)]*$")


def _shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters: after a sentence the splitter could not tell
    apart ("(MoE). pFedMoAP …"), else after the last whole clause that leaves no bracket
    open, else after the last whole word, with an ellipsis; a cut keeps at least half."""
    if len(text) <= limit:
        return text
    for stop in reversed(list(_STOP.finditer(text, limit // 2, limit))):
        if not text.endswith(_ABBREVIATIONS, 0, stop.end()):
            return text[: stop.end()]
    head = text[: limit - 1]
    for clause in reversed(list(_CLAUSE_BREAK.finditer(head, limit // 2))):
        cut = head[: clause.start()]
        if cut.count("(") <= cut.count(")") and cut.count("[") <= cut.count("]"):
            break
    else:
        cut = head.rsplit(" ", 1)[0]
    return cut.rstrip(",;:\u2014\u2013- ") + "\u2026"


def _closed_sentence(text: str) -> str:
    """``text`` ending as a sentence does: an abstract's last sentence may lack its stop."""
    if not text or _SENTENCE_CLOSE.search(text):
        return text
    return text.rstrip(",;: ") + "."


def _pick(sentences: list[str]) -> tuple[int, bool]:
    """The sentence the TL;DR is built on, and whether the one before it must come too.

    In order of preference: the first sentence of the best rank that stands alone; the
    first of the best rank with the sentence before it, when that one does not point back
    itself and both fit ("Previous work analyzed X. We extend this by …"); one of the best
    rank that names what it introduces ("We propose Meta Flow Matching (MFM), … along these
    vector fields"), whose pointer is further in; a lower-ranked contribution that stands
    alone; any contribution, then any sentence, that does not open by pointing back; the
    first of the best rank.
    """
    cleaned = [stand_alone(sentence) for sentence in sentences]
    ranks = [_contribution_rank(sentence, 0) for sentence in sentences]
    alone = [
        not _POINTER.search(sentence) and not _LEANS_ON_PREVIOUS.match(sentence)
        for sentence in cleaned
    ]
    opens_back = [points_back(sentence) for sentence in cleaned]
    top = max(ranks)
    best = ranks.index(top)
    by_rank = sorted(range(len(sentences)), key=lambda number: -ranks[number])
    for number in by_rank:
        if ranks[number] == top and alone[number]:
            return number, False
    pair = len(cleaned[best - 1]) + len(cleaned[best]) + 1 if best else 0
    if top and best > 0 and not opens_back[best - 1] and pair <= TLDR_MAX_CHARS:
        return best, True
    for number in by_rank:
        if ranks[number] == top and not opens_back[number] and _names_it(cleaned[number]):
            return number, False
    for number in by_rank:
        if ranks[number] and alone[number]:
            return number, False
    for number in by_rank:
        if not opens_back[number]:
            return number, False
    return best, False


def _names_it(sentence: str) -> bool:
    """Whether ``sentence`` introduces something by name ("We propose Meta Flow Matching
    (MFM)", "We introduce LoRA-Pro, a method …")."""
    verb = _CONTRIBUTION.search(sentence)
    return verb is not None and _introduced_name(sentence[verb.end() :]) is not None


def tldr(plain: str) -> str:
    """One or two whole sentences saying what the paper contributes, standing on their own.

    The opening sentence of an abstract is usually background ("LLMs are increasingly…"); the
    sentence that says "we propose / introduce" is what a reader skimming a list wants, then
    "we show / find". Whatever ties it to sentences the reader does not see is dropped
    (``stand_alone``), and a short choice gets its following sentence when both fit in 300
    characters. A sentence longer than ``LONGEST_TLDR`` is cut after a clause.
    """
    sentences = [
        sentence
        for sentence in split_sentences(plain)
        if "://" not in sentence and UNNAMED not in sentence
    ]
    if not sentences:
        whole = normalise_whitespace(plain.replace(UNNAMED, ""))
        return _closed_sentence(_shorten(whole, TLDR_MAX_CHARS))
    number, with_previous = _pick(sentences)
    summary = stand_alone(sentences[number])
    if with_previous:
        summary = f"{stand_alone(sentences[number - 1])} {summary}"
    elif number + 1 < len(sentences) and len(summary) < _SECOND_SENTENCE_BELOW:
        longer = f"{summary} {stand_alone(sentences[number + 1])}"
        if len(longer) <= TLDR_MAX_CHARS:
            summary = longer
    return _closed_sentence(_shorten(summary, LONGEST_TLDR))


def paper_tldr(abstract: str | None, plain: str, title: str | None) -> str:
    """``tldr`` of a paper whose abstract may name its method by a macro (``\\sys``): the
    sentences are read with each macro written as what it stands for, and a sentence with a
    macro nothing names is passed over (``bot.papers.macros``). ``title`` is None when it was
    made from the abstract, so it names nothing."""
    if abstract:
        named = name_author_macros(abstract, title)
        if named != abstract:
            plain = clean_text(named).plain
    return tldr(plain)


_ACRONYM = re.compile(r"\(([A-Za-z][\w+\-]*[A-Z][\w+\-]*)\)")
_NAMED_OBJECT = re.compile(
    r"\s*:?\s*(?:(?:a|an|the)\s+)?(?:(?:new|novel|simple|first)\s+)?"
    r"(?P<name>[A-Za-z0-9]*[A-Z][A-Za-z0-9]*(?:[+\-][A-Za-z0-9]+)*\+?)"
    r"(?:\s*\((?P<long>[^()]+)\))?"
    r"(?:\s*(?:,|:|-|—|--)\s*(?P<what>(?:a|an|the)\s.+))?",
)
_MAX_WORDS_BEFORE_NAME = 8
# An acronym right after one of these words names the field or a part, not the contribution:
# "an approach for Text-to-Image (T2I)", "imitation learning and reinforcement learning (RL)".
_NOT_INTRODUCING = frozenset(
    {"for", "of", "in", "on", "with", "to", "from", "by", "via", "and", "or"}
)
_HEADLINE_WORDS = 12


def _headline(sentence: str) -> str:
    words = sentence.rstrip(".!?").split()
    headline = " ".join(words[:_HEADLINE_WORDS]).rstrip(",;:")
    return headline + ("…" if len(words) > _HEADLINE_WORDS else "")


def _is_method_name(name: str) -> bool:
    """``TabWak``, ``STRATEGIST``, ``X-DRIVE``: capitals past the first letter or a hyphen."""
    return len(name) > 1 and (any(char.isupper() for char in name[1:]) or "-" in name)


def _introduced_name(after_verb: str) -> str | None:
    """The title for the thing a "we propose …" clause introduces, if it names one."""
    for match in _ACRONYM.finditer(after_verb):
        words = after_verb[: match.start()].split()
        phrase = introduced_phrase(words, match.group(1))
        if phrase is None or phrase.casefold() == match.group(1).casefold():
            continue
        before = words[: len(words) - len(phrase.split())]
        if before and before[-1].lower() in _NOT_INTRODUCING:
            continue
        if len(before) <= _MAX_WORDS_BEFORE_NAME:
            return f"{match.group(1)}: {phrase}"
        break
    named = _NAMED_OBJECT.match(after_verb)
    if named is None or not _is_method_name(named.group("name")):
        return None
    long_form, what = named.group("long"), named.group("what")
    if long_form and len(long_form.split()) > 1:
        return f"{named.group('name')}: {long_form.strip()}"
    if what:
        description = _headline(what)
        return f"{named.group('name')}: {description[:1].upper()}{description[1:]}"
    return None


def derive_title(plain: str) -> str:
    """A title for a paper that came without one, made from its abstract.

    The method's name when the abstract introduces one ("we introduce Mixture-of-Graphs (MoG)"
    → "MoG: Mixture-of-Graphs"; "we introduce STRATEGIST, a new approach that…" →
    "STRATEGIST: A new approach that…"), else a headline cut from the first sentence.
    """
    sentences = split_sentences(plain)
    for sentence in sentences:
        verb = _CONTRIBUTION.search(sentence)
        if verb and (title := _introduced_name(sentence[verb.end() :])):
            return title
    return (_headline(sentences[0]) if sentences else "") or "Untitled paper"
