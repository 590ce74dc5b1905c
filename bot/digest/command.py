"""``/paper subscribe``'s words: what a command asks to change, and what the channel gets then.

``/paper subscribe [TIME] [TIMEZONE] [weekdays|daily] [TOPIC…]`` is the paper of the day,
``/paper subscribe weekly DAY [TIME] [TIMEZONE] [TOPIC…]`` the weekly team digest and
``/paper subscribe new [TIME] [TIMEZONE] [TOPIC…]`` the new papers post (which looks every
day, and posts on days with new papers: it takes no days). Every part but the weekly
digest's day is optional, and a part not typed keeps what the channel has: its subscription
of that kind (even a paused or stopped one), else the time and zone of its paper of the day
(of its weekly digest, for the paper of the day), else 09:00 in the bot's zone, on weekdays,
on all papers. ``all`` as the topic goes back to all papers. A paper of the day's topic that
starts with the word ``new`` is quoted: ``/paper subscribe "new optimisers"``; ``new`` that
starts a city's name (``new york``) is the paper of the day's zone.

A command that changes a subscription never changes it on a guess. Before the topic, a word
that is close to a day, ``weekdays``, ``daily``, ``weekly`` or a city (see ``_misspelt``), a
zone word out of its place, a zone word several zones share (``IST``), and ``weekly``
followed by no day are refused, saying what was probably meant, and nothing changes. A
topic that must start with such a word is quoted: ``/paper subscribe 9am "weekly reports"``
(its quotes then make it a phrase, as in a search).

Zone words are matched in any case, so a city or an abbreviation (not an IANA name, which is
never a topic word) is read as the zone only where it cannot be the topic's start; otherwise
the command asks which was meant (the zone, written by its IANA name, or the topic, in
quotes) and changes nothing. It is asked about when

- a topic follows it directly: ``cat detection`` (CAT), ``AST parsing``, ``Wake word
  detection`` (Pacific/Wake), ``9am New York times corpus``; a cadence between them
  (``9am EST daily graphs``) or a quoted topic (``9am EST "graphs"``) puts it in the
  schedule;
- no time comes before it and it is a word of the English lexicon (which holds place names
  too): ``Christmas``, ``Berlin`` alone could each be a one-word topic; ``9am Berlin`` and
  ``kolkata`` cannot;
- it is an abbreviation that is also an English word, not written in capitals: ``met``,
  ``west`` and ``est`` are words, ``MET`` and ``EST`` abbreviations.

Inside the topic only an IANA name is out of place (``Q/A``, ``RL/HF`` are topic words), and
one within two edits of a name is asked about (``Europe/Berln``); every refusal says how to
quote a topic that needs the word.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import time
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.digest.subscriptions import (
    ANNOUNCED,
    CADENCES,
    DAYS_OF_WEEK,
    DEFAULT_CADENCE,
    DEFAULT_TIME,
    MAX_TOPIC_CHARS,
    Schedule,
    SubscriptionError,
    format_time,
    looks_like_time,
    parse_time,
    parse_zone,
    time_shape,
    zone_name,
)
from bot.digest.zones import (
    MAX_CITY_WORDS,
    is_abbreviation,
    names_an_area,
    near_cities,
    near_zone_names,
    zones_named,
)
from bot.render.subscribe import Problem
from bot.search.lexicon import english_words
from bot.search.query import closest_words
from bot.store import DAILY, NEW_PAPERS, WEEKLY

QUOTES = "\"'\u201c\u201d\u2018\u2019"
"""A topic starting with a quote is the topic as typed, whatever its first word."""
ALL_PAPERS = frozenset(("all", "all papers"))
"""The topic that means no topic: what ``/paper subscriptions`` calls "all papers"."""
SCHEDULE_WORDS = (*DAYS_OF_WEEK, *CADENCES, WEEKLY)
NEW_WORD = NEW_PAPERS
"""``/paper subscribe new …``: the first word that makes it the new papers post."""


class Part(StrEnum):
    """The parts of a subscription a command can change, in the order they are told."""

    TIME = "time"
    ZONE = "zone"
    DAYS = "days"
    TOPIC = "topic"


@dataclass(frozen=True)
class SubscribeRequest:
    """What a command typed; ``None`` is a part not typed (it keeps its value)."""

    kind: str = DAILY
    at: time | None = None
    zone: ZoneInfo | None = None
    zone_word: str | None = None
    """The word that named ``zone`` when it is not the zone's own name (``EST``, ``berlin``)."""
    cadence: str | None = None
    topic: str | None = None
    all_papers: bool = False
    """``all`` was typed as the topic: the topic is dropped."""


@dataclass(frozen=True)
class Change:
    """A part's value before and after the command, as shown (``09:00``, a zone's name, a
    cadence or day, a topic; ``None``: no topic)."""

    part: Part
    before: str | None
    after: str | None


@dataclass(frozen=True)
class Outcome:
    """What the channel gets once the command is applied, and how it differs from before:
    ``changed`` and ``kept`` are empty for a new subscription, whose ``inherited`` parts
    came from the channel's other kind of digest."""

    schedule: Schedule
    topic: str | None
    changed: tuple[Change, ...] = ()
    kept: tuple[Change, ...] = ()
    inherited: tuple[Part, ...] = ()


def parse_subscribe_args(args: str, *, year: int) -> SubscribeRequest:
    """The parts typed after ``/paper subscribe``; zone words are those of ``year``."""
    tokens = args.split()
    first = tokens[0].lower() if tokens else ""
    weekly = first == WEEKLY
    new = first == NEW_WORD and not _city_of_new(tokens, year)
    try:
        if new:
            return _parts(tokens[1:], SubscribeRequest(NEW_PAPERS, cadence=ANNOUNCED), year)
        if not weekly:
            return _parts(tokens, SubscribeRequest(), year)
        day = _weekly_day(tokens[1] if len(tokens) > 1 else None)
        return _parts(tokens[2:], SubscribeRequest(WEEKLY, cadence=day), year)
    except SubscriptionError as error:
        raise SubscriptionError(replace(error.problem, weekly=weekly, new=new)) from None


def resolve(
    request: SubscribeRequest,
    current: tuple[Schedule, str | None] | None,
    channel: Schedule | None,
    default_zone: ZoneInfo,
) -> Outcome:
    """The subscription ``request`` leaves: ``current`` is the channel's subscription of the
    request's kind (with its topic), ``channel`` the schedule of another kind it has."""
    if current is None:
        at = request.at or (channel.at if channel else DEFAULT_TIME)
        zone = request.zone or (channel.zone if channel else default_zone)
        cadence = request.cadence or DEFAULT_CADENCE
        inherited = tuple(
            part
            for part, typed in ((Part.TIME, request.at), (Part.ZONE, request.zone))
            if channel is not None and typed is None
        )
        return Outcome(Schedule(at, zone, cadence), request.topic, inherited=inherited)
    before, topic = current
    after = Schedule(
        request.at or before.at, request.zone or before.zone, request.cadence or before.cadence
    )
    if request.all_papers:
        topic = None
    elif request.topic is not None:
        topic = request.topic
    parts = (
        Change(Part.TIME, format_time(before.at), format_time(after.at)),
        Change(Part.ZONE, before.zone_name, after.zone_name),
        Change(Part.DAYS, before.cadence, after.cadence),
        Change(Part.TOPIC, current[1], topic),
    )
    return Outcome(
        after,
        topic,
        changed=tuple(change for change in parts if change.before != change.after),
        kept=tuple(change for change in parts if change.before == change.after),
    )


def _city_of_new(tokens: list[str], year: int) -> bool:
    """``new york``: the words from ``new`` on name a zone's city, so they are
    the paper of the day's zone (new papers there: ``/paper subscribe new new york``)."""
    return any(
        zones_named(" ".join(tokens[:length]), year)
        for length in range(2, min(MAX_CITY_WORDS, len(tokens)) + 1)
    )


def _weekly_day(token: str | None) -> str:
    if token is None:
        raise SubscriptionError(Problem.NO_DAY, candidates=DAYS_OF_WEEK)
    day = _day_of_week(token)
    if day is not None:
        return day
    near = _near(token, DAYS_OF_WEEK)
    if near:
        raise SubscriptionError(Problem.MISSPELT_DAY, word=token, candidates=near)
    raise SubscriptionError(Problem.NOT_A_DAY, word=token, candidates=DAYS_OF_WEEK)


def _parts(tokens: list[str], request: SubscribeRequest, year: int) -> SubscribeRequest:
    tokens = list(tokens)
    if len(tokens) >= 2 and time_shape(tokens[0] + tokens[1]) and tokens[1][0].isalpha():
        tokens[:2] = [tokens[0] + tokens[1]]  # "9 am", "9:30 pm"
    if tokens and looks_like_time(tokens[0]):
        request = replace(request, at=parse_time(tokens.pop(0)))
    request = _zone(tokens, request, year)
    if request.kind == DAILY and tokens and tokens[0].lower() in CADENCES:
        request = replace(request, cadence=tokens.pop(0).lower())
    if tokens and tokens[0][0] not in QUOTES:
        _refuse_schedule_words(tokens, request, year)
    topic = " ".join(tokens) or None
    if topic is not None and topic.lower() in ALL_PAPERS:
        return replace(request, all_papers=True)
    if topic is not None and len(topic) > MAX_TOPIC_CHARS:
        raise SubscriptionError(Problem.TOPIC_TOO_LONG, topic=topic, limit=MAX_TOPIC_CHARS)
    return replace(request, topic=topic)


def _zone(tokens: list[str], request: SubscribeRequest, year: int) -> SubscribeRequest:
    """The zone at the head of ``tokens`` (taken off them), as an IANA name, a city of up to
    three words or an abbreviation; an abbreviation several zones share, and a word that
    could start the topic as well (see the module's docstring), are refused."""
    if not tokens:
        return request
    if "/" in tokens[0]:
        return _slashed_zone(tokens, request)
    for length in range(min(MAX_CITY_WORDS, len(tokens)), 0, -1):
        words = " ".join(tokens[:length])
        zones = zones_named(words, year)
        if len(zones) > 1:
            raise SubscriptionError(Problem.SEVERAL_ZONES, word=words, candidates=zones)
        if not zones:
            continue
        iana = zone_name(words) is not None  # UTC: never a topic word
        if not iana and _could_start_topic(words, tokens[length:], request, year):
            raise SubscriptionError(
                Problem.ZONE_OR_TOPIC, word=words, candidates=zones, topic=" ".join(tokens)
            )
        del tokens[:length]
        typed = None if words.lower() == zones[0].lower() else words
        return replace(request, zone=ZoneInfo(zones[0]), zone_word=typed)
    return request


def _slashed_zone(tokens: list[str], request: SubscribeRequest) -> SubscribeRequest:
    """An IANA name, or one misspelt (``Europe/Berln``, ``Europe/Atlantis``); any other
    slashed word (``Q/A``, ``CPU/GPU``) starts the topic."""
    name = tokens[0]
    if zone_name(name) is None and not near_zone_names(name) and not names_an_area(name):
        return request
    return replace(request, zone=parse_zone(tokens.pop(0)))


def _could_start_topic(words: str, rest: list[str], request: SubscribeRequest, year: int) -> bool:
    """Whether the city or abbreviation ``words``, followed by ``rest``, may be the topic's
    first word rather than the zone (the rule is in the module's docstring)."""
    schedule_next = request.kind == DAILY and bool(rest) and rest[0].lower() in CADENCES
    topic_next = bool(rest) and rest[0][0] not in QUOTES  # a quoted topic is marked off
    if topic_next and not schedule_next and " ".join(rest).lower() not in ALL_PAPERS:
        return True
    word = words.lower() in english_words()
    if word and request.at is None:
        return True
    return word and not words.isupper() and is_abbreviation(words, year)


def _refuse_schedule_words(tokens: list[str], request: SubscribeRequest, year: int) -> None:
    """Refuse a topic whose first word looks like part of the schedule (a zone word only
    when no zone was typed: then it is out of place), and a time or an IANA name anywhere
    in it."""
    first = tokens[0]
    weekly = request.kind == WEEKLY
    day = _day_of_week(first) if len(first) > 3 else None
    if day is not None and request.kind == DAILY:
        raise SubscriptionError(Problem.DAY_MEANS_WEEKLY, word=first, candidates=(day,))
    zone_word = request.zone is None and bool(zones_named(first, year))
    if first.lower() in SCHEDULE_WORDS or day is not None or zone_word:
        raise SubscriptionError(Problem.OUT_OF_PLACE, word=first, weekly=weekly)
    near = _misspelt(first)
    if near:
        raise SubscriptionError(Problem.UNKNOWN_WORD, word=first, candidates=near)
    for token in tokens:
        if looks_like_time(token) or zone_name(token) is not None:
            raise SubscriptionError(Problem.OUT_OF_PLACE, word=token, weekly=weekly)
        if "/" in token and (near_names := near_zone_names(token)):
            raise SubscriptionError(Problem.UNKNOWN_ZONE, word=token, candidates=near_names)


def _misspelt(word: str) -> tuple[str, ...]:
    """What ``word`` may be a misspelling of: a schedule word or a city (a slashed word is
    compared with IANA names wherever it is in the topic). A word of the English lexicon
    never is (``weakly``, ``family``, ``Pairs``, ``Hardware``)."""
    if word.lower() in english_words() or "/" in word:
        return ()
    return _near(word, SCHEDULE_WORDS) or near_cities(word)


def _day_of_week(token: str) -> str | None:
    """``monday``, ``Mondays``, ``mon``, ``tues``, ``Thurs`` → the day: its name, plural or
    any start of it of three letters or more; anything else → ``None``."""
    word = token.lower()
    return next(
        (
            day
            for day in DAYS_OF_WEEK
            for form in {word, word.removesuffix("s")}
            if len(form) >= 3 and day.startswith(form)
        ),
        None,
    )


def _near(word: str, vocabulary: tuple[str, ...]) -> tuple[str, ...]:
    """The schedule words closest to ``word``, days also as plurals (``fridys``)."""
    return closest_words(word, vocabulary, _forms)


def _forms(word: str) -> tuple[str, ...]:
    return (word, word + "s") if word in DAYS_OF_WEEK else (word,)
