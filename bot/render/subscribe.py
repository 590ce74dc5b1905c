"""Why a ``/paper subscribe`` was refused, in words: the digest names the problem and its
pieces (the word typed, what it may have meant), and only this module writes the sentence,
so every refusal reads alike and none is worded in the digest's parser.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

EXAMPLE = "/paper subscribe 9:30am Europe/Berlin weekdays graph neural networks"
USAGE = "/paper subscribe [TIME] [TIMEZONE] [weekdays|daily] [TOPIC…]"
WEEKLY_EXAMPLE = "/paper subscribe weekly monday 9am Europe/Berlin"
WEEKLY_USAGE = "/paper subscribe weekly DAY [TIME] [TIMEZONE] [TOPIC…]"
NEW_EXAMPLE = "/paper subscribe new 9am Europe/Berlin graph neural networks category:cs.LG"
NEW_USAGE = "/paper subscribe new [TIME] [TIMEZONE] [TOPIC…]"


class Problem(StrEnum):
    """What was wrong with a command; the pieces each one is told with are on
    ``SubscribeProblem``."""

    NO_DAY = "no day"
    """``weekly`` with nothing after it; ``candidates``: the days."""
    NOT_A_DAY = "not a day"
    """``word`` after ``weekly`` is no day; ``candidates``: the days."""
    MISSPELT_DAY = "misspelt day"
    """``word`` after ``weekly`` is no day; ``candidates``: the days it is close to."""
    DAY_MEANS_WEEKLY = "day means weekly"
    """``word`` names the day ``candidates[0]``, which only the weekly digest takes."""
    NOT_A_TIME = "not a time"
    HOUR_OUT_OF_MERIDIEM = "hour out of am/pm"
    NOT_A_TIME_OF_DAY = "not a time of day"
    UNKNOWN_ZONE = "unknown zone"
    """``word`` is written like an IANA name but is none; ``candidates``: names close to it."""
    ZONE_WITHOUT_DATA = "zone without data"
    SEVERAL_ZONES = "several zones"
    """``word`` names the zones ``candidates``, none of them most of all."""
    ZONE_OR_TOPIC = "zone or topic"
    """``word`` names the zone ``candidates[0]`` but may start the topic ``topic``."""
    OUT_OF_PLACE = "out of place"
    UNKNOWN_WORD = "unknown word"
    """``word`` before the topic is close to the schedule words or cities ``candidates``."""
    TOPIC_TOO_LONG = "topic too long"
    """``topic`` is longer than ``limit`` characters."""


@dataclass(frozen=True)
class SubscribeProblem:
    """A refused command: what was wrong and the pieces to say it with."""

    problem: Problem
    word: str = ""
    candidates: tuple[str, ...] = ()
    topic: str = ""
    limit: int = 0
    weekly: bool = False
    """The command was for the weekly digest: its usage is shown."""
    new: bool = False
    """The command was for the new papers post: its usage is shown."""


def either(words: Sequence[str]) -> str:
    """``a``, ``a` or `b``, ``a`, `b` or `c``: the choices, each as code."""
    quoted = [f"`{word}`" for word in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def problem_text(problem: SubscribeProblem) -> str:
    """The sentence saying what is wrong, without the usage lines (the operator's setting
    ``PAPERBOT_DIGEST_TIME`` is refused with it too)."""
    word, candidates = problem.word, problem.candidates
    quote = f'quote the topic: `/paper subscribe "{word} …"`'
    match problem.problem:
        case Problem.NO_DAY:
            days = either(candidates)
            return f"`weekly` takes a day of the week: {days} (or their first three letters)."
        case Problem.MISSPELT_DAY:
            return f"`{word}` is not a day of the week; did you mean {either(candidates)}?"
        case Problem.NOT_A_DAY:
            return (
                f"`{word}` is not a day of the week: `weekly` takes {either(candidates)} "
                "(or their first three letters)."
            )
        case Problem.DAY_MEANS_WEEKLY:
            day = candidates[0]
            return (
                f"`{word}` is a day of the week: a digest on {day.capitalize()}s is the weekly "
                f"one, `/paper subscribe weekly {day} …`. For a topic that starts with it, {quote}."
            )
        case Problem.NOT_A_TIME:
            return f"`{word}` is not a time; write it like `9:00`, `9am` or `21:30`."
        case Problem.HOUR_OUT_OF_MERIDIEM:
            return f"`{word}` is not a time: with am/pm the hour is 1 to 12."
        case Problem.NOT_A_TIME_OF_DAY:
            return f"`{word}` is not a time of day: use 00:00 to 23:59."
        case Problem.UNKNOWN_ZONE if candidates:
            return (
                f"`{word}` is not a time zone I know; did you mean {either(candidates)}? "
                f"For a topic with it, {quote}."
            )
        case Problem.UNKNOWN_ZONE:
            return (
                f"`{word}` is not a time zone I know; use `UTC`, an IANA name such as "
                "`Europe/Berlin` or `America/New_York`, a city or an abbreviation such as "
                f"`EST`. For a topic with it, {quote}."
            )
        case Problem.ZONE_WITHOUT_DATA:
            return f"the time zone `{word}` has no data on this server."
        case Problem.SEVERAL_ZONES:
            return (
                f"`{word}` is the name of several time zones: {either(candidates)}. Write the "
                f"one you mean (its city works too). For a topic that starts with it, {quote}."
            )
        case Problem.ZONE_OR_TOPIC:
            return (
                f"`{word}` names a time zone, and could start the topic too. Did you mean the "
                f"time zone `{candidates[0]}` (write that name instead) or the topic "
                f"\u201c{problem.topic}\u201d (put it in quotes)?"
            )
        case Problem.OUT_OF_PLACE:
            if problem.weekly:
                order = "the day, the time, then the time zone"
            elif problem.new:
                order = "the time, then the time zone"
            else:
                order = "the time, then the time zone, then `weekdays` or `daily`"
            return (
                f"`{word}` is out of place: give {order}, then the topic. For a topic "
                f'with it, quote the topic: `/paper subscribe "… {word} …"`.'
            )
        case Problem.UNKNOWN_WORD:
            return (
                f"I don't know `{word}`; did you mean {either(candidates)}? "
                f"For a topic that starts with it, {quote}."
            )
        case Problem.TOPIC_TOO_LONG:
            return (
                f"The topic has {len(problem.topic):,} characters; keep it to {problem.limit}, "
                "a few words that describe the papers you want."
            )
    raise ValueError(problem.problem)


def refusal_text(problem: SubscribeProblem) -> str:
    """What is wrong, the command's usage and an example that works."""
    usage, example = (USAGE, EXAMPLE)
    if problem.weekly:
        usage, example = WEEKLY_USAGE, WEEKLY_EXAMPLE
    elif problem.new:
        usage, example = NEW_USAGE, NEW_EXAMPLE
    return f"{problem_text(problem)}\nUsage: `{usage}`\nExample: `{example}`"
