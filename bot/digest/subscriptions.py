"""When a channel's digest posts: its schedule, and the times and zones a command names.

The words of ``/paper subscribe`` are read in ``bot.digest.command``; zone words (cities,
abbreviations) in ``bot.digest.zones``.

Pure functions only (no database, no Slack, no clock): times and IANA zone names, and
turning a schedule into instants with ``zoneinfo``.
Every DST rule of the digest lives here, so the scheduler and "is it due yet?" can never
disagree: a local time that does not exist (spring forward) means the first valid instant
after the gap, and a local time that happens twice (fall back) means the first of the two,
so a channel gets exactly one post per local date either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.digest.zones import near_zone_names
from bot.render.subscribe import Problem, SubscribeProblem, problem_text

Cadence = Literal["weekdays", "daily"]
CADENCES: tuple[Cadence, ...] = ("weekdays", "daily")
DAYS_OF_WEEK = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""A weekly digest's cadence is the day it comes on."""
ANNOUNCED = "announced"
"""The new papers post's cadence: it looks every day and posts when papers were announced
since its last post (``bot.digest.new_papers``)."""
DEFAULT_TIME = time(9, 0)
DEFAULT_CADENCE: Cadence = "weekdays"

MAX_TOPIC_CHARS = 200
"""A topic is a few words; a pasted page would be quoted back in every daily post."""

_TIME_SHAPE = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?$", re.IGNORECASE)


class SubscriptionError(ValueError):
    """Input the user must fix: ``problem`` names what is wrong and its pieces, for render
    to word (``str()`` is that sentence, for a log or the operator)."""

    def __init__(self, problem: Problem | SubscribeProblem, **pieces: Any) -> None:
        self.problem = (
            problem
            if isinstance(problem, SubscribeProblem)
            else SubscribeProblem(problem, **pieces)
        )
        super().__init__(problem_text(self.problem))


@dataclass(frozen=True)
class Schedule:
    """When a channel gets its post: a local wall-clock time, in a zone, on some days (a
    cadence, or one day of the week for the weekly digest)."""

    at: time
    zone: ZoneInfo
    cadence: str = DEFAULT_CADENCE

    @property
    def zone_name(self) -> str:
        return self.zone.key

    def posts_on(self, day: date) -> bool:
        if self.cadence in DAYS_OF_WEEK:
            return DAYS_OF_WEEK[day.weekday()] == self.cadence
        return self.cadence in ("daily", ANNOUNCED) or day.weekday() < 5

    def local_date(self, instant: datetime) -> date:
        return instant.astimezone(self.zone).date()

    def instant_on(self, day: date) -> datetime:
        """The UTC instant of ``day``'s post (whether or not the cadence posts that day)."""
        return local_instant(day, self.at, self.zone)

    def due(self, instant: datetime) -> bool:
        """The local date of ``instant`` is a post day and its post time has come."""
        day = self.local_date(instant)
        return self.posts_on(day) and instant >= self.instant_on(day)

    def end_of_day(self, instant: datetime) -> datetime:
        """The UTC instant the local date of ``instant`` ends (the next local midnight)."""
        return local_instant(self.local_date(instant) + timedelta(days=1), time(0, 0), self.zone)

    def next_run(self, after: datetime) -> datetime:
        """The first post instant strictly after ``after`` (aware UTC)."""
        day = self.local_date(after) - timedelta(days=1)
        while True:
            if self.posts_on(day):
                instant = self.instant_on(day)
                if instant > after:
                    return instant
            day += timedelta(days=1)

    def describe(self) -> str:
        if self.cadence in DAYS_OF_WEEK:
            days = f"on {self.cadence.capitalize()}s"
        elif self.cadence == ANNOUNCED:
            days = "on days with new papers"
        else:
            days = "every day" if self.cadence == "daily" else "on weekdays"
        return f"{format_time(self.at)} {self.zone_name}, {days}"


def local_instant(day: date, at: time, zone: ZoneInfo) -> datetime:
    """``day`` at wall time ``at`` in ``zone`` as a UTC instant, resolving DST edges.

    ``fold=0`` already picks the first of two repeated wall times. For a wall time inside a
    spring-forward gap, zoneinfo would answer an instant *past* the gap by the gap's length
    (02:30 → 03:30); the post belongs at the first valid instant after the gap instead.
    """
    wall = datetime.combine(day, at, tzinfo=zone)
    instant = wall.astimezone(UTC)
    if instant.astimezone(zone).replace(tzinfo=None) == wall.replace(tzinfo=None):
        return instant
    return _transition_before(instant, zone)


def _transition_before(instant: datetime, zone: ZoneInfo) -> datetime:
    """The first instant carrying ``instant``'s UTC offset, searched back up to a day."""
    offset = instant.astimezone(zone).utcoffset()
    low, high = instant - timedelta(days=1), instant
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        if middle.astimezone(zone).utcoffset() == offset:
            high = middle
        else:
            low = middle
    return high.replace(microsecond=0)


def parse_time(text: str) -> time:
    """``9:00``, ``09:00``, ``9am``, ``9:30pm``, ``21:30`` → a wall-clock time."""
    match = _TIME_SHAPE.match(text.strip())
    if match is None:
        raise SubscriptionError(Problem.NOT_A_TIME, word=text)
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    meridiem = (match.group(3) or "").lower().replace(".", "")
    if meridiem:
        if not 1 <= hour <= 12:
            raise SubscriptionError(Problem.HOUR_OUT_OF_MERIDIEM, word=text)
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    if hour > 23 or minute > 59:
        raise SubscriptionError(Problem.NOT_A_TIME_OF_DAY, word=text)
    return time(hour, minute)


def format_time(at: time) -> str:
    return at.strftime("%H:%M")


def parse_zone(name: str) -> ZoneInfo:
    """``UTC`` or an IANA name with a slash (case-insensitive), e.g. ``Europe/Berlin``; a
    misspelt one is answered with the names it is closest to."""
    canonical = zone_name(name)
    if canonical is None:
        raise SubscriptionError(Problem.UNKNOWN_ZONE, word=name, candidates=near_zone_names(name))
    try:
        return ZoneInfo(canonical)
    except ZoneInfoNotFoundError:
        raise SubscriptionError(Problem.ZONE_WITHOUT_DATA, word=name) from None


def zone_name(word: str) -> str | None:
    """The IANA name ``word`` spells in any case (``europe/berlin``), or ``UTC``."""
    return _zone_names().get(word.lower())


@cache
def _zone_names() -> dict[str, str]:
    names = {name.lower(): name for name in available_timezones() if "/" in name}
    names["utc"] = "UTC"
    return names


def time_shape(text: str) -> bool:
    """Whether ``text`` is written like a time (``9``, ``9:30``, ``9am``), valid or not."""
    return _TIME_SHAPE.match(text) is not None


def looks_like_time(token: str) -> bool:
    """A time with minutes or am/pm: a bare number (``3 papers``) is no time."""
    match = _TIME_SHAPE.match(token)
    return match is not None and (match.group(2) is not None or match.group(3) is not None)
