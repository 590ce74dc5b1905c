"""``/paper subscribe``'s words: what a command asks to change, and what the channel gets then.

``/paper subscribe [TIME] [TIMEZONE] [weekdays|daily] [TOPIC…]`` is the paper of the day and
``/paper subscribe weekly DAY [TIME] [TIMEZONE] [TOPIC…]`` the weekly team digest. Every part
but the weekly digest's day is optional, and a part not typed keeps what the channel has: its
subscription of that kind (even a paused or stopped one), else the time and zone of its other
kind, else 09:00 in the bot's zone, on weekdays, on all papers. ``all`` as the topic goes back
to all papers.

A command that changes a subscription never changes it on a guess. Before the topic, a word
that is close to a day, ``weekdays``, ``daily``, ``weekly`` or a city (see ``near_words``), a
zone word out of its place, a zone word several zones share (``IST``), and ``weekly``
followed by no day are refused, saying what was probably meant, and nothing changes. A
topic that must start with such a word is quoted: ``/paper subscribe 9am "weekly reports"``
(its quotes then make it a phrase, as in a search).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import time
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.digest.subscriptions import (
    CADENCES,
    DAYS_OF_WEEK,
    DEFAULT_CADENCE,
    DEFAULT_TIME,
    MAX_TOPIC_CHARS,
    ZONE_SHAPE,
    Schedule,
    SubscriptionError,
    format_time,
    looks_like_time,
    parse_time,
    parse_zone,
    time_shape,
)
from bot.digest.zones import MAX_CITY_WORDS, near_cities, near_zone_names, zones_named
from bot.search.lexicon import english_words
from bot.search.query import edit_distance
from bot.store import DAILY, WEEKLY

QUOTES = "\"'\u201c\u201d\u2018\u2019"
"""A topic starting with a quote is the topic as typed, whatever its first word."""
ALL_PAPERS = frozenset(("all", "all papers"))
"""The topic that means no topic: what ``/paper subscriptions`` calls "all papers"."""
SCHEDULE_WORDS = (*DAYS_OF_WEEK, *CADENCES, WEEKLY)
SHORTEST_TYPO = 4
"""Shorter words are never read as a misspelling: ``sat`` or ``mon`` could be anything."""


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
    weekly = bool(tokens) and tokens[0].lower() == WEEKLY
    try:
        if not weekly:
            return _parts(tokens, SubscribeRequest(), year)
        day = _weekly_day(tokens[1] if len(tokens) > 1 else None)
        return _parts(tokens[2:], SubscribeRequest(WEEKLY, cadence=day), year)
    except SubscriptionError as error:
        raise SubscriptionError(error.problem, weekly=weekly) from None


def resolve(
    request: SubscribeRequest,
    current: tuple[Schedule, str | None] | None,
    channel: Schedule | None,
    default_zone: ZoneInfo,
) -> Outcome:
    """The subscription ``request`` leaves: ``current`` is the channel's subscription of the
    request's kind (with its topic), ``channel`` the schedule of its other kind."""
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


def _weekly_day(token: str | None) -> str:
    days = _or(DAYS_OF_WEEK)
    if token is None:
        raise SubscriptionError(
            f"`weekly` takes a day of the week: {days} (or their first three letters)."
        )
    day = _day_of_week(token)
    if day is not None:
        return day
    near = _near(token, DAYS_OF_WEEK)
    if near:
        raise SubscriptionError(f"`{token}` is not a day of the week; did you mean {_or(near)}?")
    raise SubscriptionError(
        f"`{token}` is not a day of the week: `weekly` takes {days} (or their first three letters)."
    )


def _parts(tokens: list[str], request: SubscribeRequest, year: int) -> SubscribeRequest:
    weekly = request.kind == WEEKLY
    tokens = list(tokens)
    if len(tokens) >= 2 and time_shape(tokens[0] + tokens[1]) and tokens[1][0].isalpha():
        tokens[:2] = [tokens[0] + tokens[1]]  # "9 am", "9:30 pm"
    if tokens and looks_like_time(tokens[0]):
        request = replace(request, at=parse_time(tokens.pop(0)))
    request = _zone(tokens, request, year)
    if not weekly and tokens and tokens[0].lower() in CADENCES:
        request = replace(request, cadence=tokens.pop(0).lower())
    if tokens and tokens[0][0] not in QUOTES:
        _refuse_schedule_words(tokens, weekly, year)
    topic = " ".join(tokens) or None
    if topic is not None and topic.lower() in ALL_PAPERS:
        return replace(request, all_papers=True)
    if topic is not None and len(topic) > MAX_TOPIC_CHARS:
        raise SubscriptionError(
            f"The topic has {len(topic):,} characters; keep it to {MAX_TOPIC_CHARS}, "
            "a few words that describe the papers you want."
        )
    return replace(request, topic=topic)


def _zone(tokens: list[str], request: SubscribeRequest, year: int) -> SubscribeRequest:
    """The zone at the head of ``tokens`` (taken off them), as an IANA name, a city of up to
    three words or an abbreviation; an abbreviation several zones share is refused."""
    if not tokens:
        return request
    if ZONE_SHAPE.match(tokens[0]):
        return replace(request, zone=parse_zone(tokens.pop(0)))
    for length in range(min(MAX_CITY_WORDS, len(tokens)), 0, -1):
        words = " ".join(tokens[:length])
        zones = zones_named(words, year)
        if len(zones) > 1:
            raise SubscriptionError(
                f"`{words}` is the name of several time zones: {_or(zones)}. Write the one "
                "you mean (its city works too)."
            )
        if zones:
            del tokens[:length]
            typed = None if words.lower() == zones[0].lower() else words
            return replace(request, zone=ZoneInfo(zones[0]), zone_word=typed)
    return request


def _refuse_schedule_words(tokens: list[str], weekly: bool, year: int) -> None:
    """Refuse a topic whose first word looks like part of the schedule, and a time or zone
    name anywhere in it."""
    first = tokens[0]
    quote = f'quote the topic: `/paper subscribe "{first} …"`'
    day = _day_of_week(first) if len(first) > 3 else None
    if day is not None and not weekly:
        raise SubscriptionError(
            f"`{first}` is a day of the week: a digest on {day.capitalize()}s is the weekly "
            f"one, `/paper subscribe weekly {day} …`. For a topic that starts with it, {quote}."
        )
    if first.lower() in SCHEDULE_WORDS or day is not None or zones_named(first, year):
        raise SubscriptionError(_out_of_place(first, weekly))
    near = _misspelt(first)
    if near:
        raise SubscriptionError(
            f"I don't know `{first}`; did you mean {_or(near)}? "
            f"For a topic that starts with it, {quote}."
        )
    misplaced = next(
        (token for token in tokens if looks_like_time(token) or ZONE_SHAPE.match(token)), None
    )
    if misplaced is not None:
        raise SubscriptionError(_out_of_place(misplaced, weekly))


def _misspelt(word: str) -> tuple[str, ...]:
    """What ``word`` may be a misspelling of: a schedule word, a city or an IANA name. A word
    of the English lexicon never is (``weakly``, ``family``, ``Pairs``, ``Hardware``)."""
    if word.lower() in english_words():
        return ()
    if "/" in word:
        return near_zone_names(word)
    return _near(word, SCHEDULE_WORDS) or near_cities(word)


def _out_of_place(word: str, weekly: bool) -> str:
    order = (
        "the day, the time, then the time zone"
        if weekly
        else "the time, then the time zone, then `weekdays` or `daily`"
    )
    return f"`{word}` is out of place: give {order}, then the topic."


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
    """The words of ``vocabulary`` closest to ``word`` (days also as plurals), within one edit
    for a word of up to five letters and two for a longer one; a word under four letters is
    never compared. So ``fridy``, ``wekly``, ``daly`` and ``weekdys`` are caught, while
    ``tail`` (two from ``daily``) and ``modal`` (two from ``monday``) are not."""
    typed = word.lower()
    if len(typed) < SHORTEST_TYPO:
        return ()
    limit = 1 if len(typed) <= 5 else 2
    scored = sorted(
        (min(edit_distance(typed, form, limit) for form in _forms(known)), known)
        for known in vocabulary
    )
    best = scored[0][0]
    return tuple(known for distance, known in scored if distance == best <= limit)


def _forms(word: str) -> tuple[str, ...]:
    return (word, word + "s") if word in DAYS_OF_WEEK else (word,)


def _or(words: tuple[str, ...]) -> str:
    quoted = [f"`{word}`" for word in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
