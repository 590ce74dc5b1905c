"""``/paper subscribe``'s words: every documented form, zone abbreviations and cities from the
time-zone database, and the refusals that keep a guess from replacing a subscription."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo, available_timezones

import pytest

from bot.answers.typed import Intent, Request, parse_command
from bot.digest.command import Part, parse_subscribe_args, resolve
from bot.digest.subscriptions import Schedule, SubscriptionError
from bot.digest.zones import zones_named
from bot.render.help_card import HELP_LINES
from bot.render.subscribe import refusal_text
from bot.search.lexicon import english_words

YEAR = 2025
UTC_ZONE = ZoneInfo("UTC")
BERLIN = ZoneInfo("Europe/Berlin")


def fresh(args: str) -> tuple[Schedule, str | None, str]:
    request = parse_subscribe_args(args, year=YEAR)
    outcome = resolve(request, None, None, UTC_ZONE)
    return outcome.schedule, outcome.topic, request.kind


def refusal(args: str) -> str:
    with pytest.raises(SubscriptionError) as raised:
        parse_subscribe_args(args, year=YEAR)
    return str(raised.value)


@pytest.mark.parametrize(
    ("args", "at", "zone", "cadence", "topic", "kind"),
    [
        # README and the usage card
        ("9am Europe/Berlin weekdays", "09:00", "Europe/Berlin", "weekdays", None, "daily"),
        ("weekly monday 9am", "09:00", "UTC", "monday", None, "weekly"),
        ("9:30am Europe/Berlin", "09:30", "Europe/Berlin", "weekdays", None, "daily"),
        ("9:00 Europe/Berlin", "09:00", "Europe/Berlin", "weekdays", None, "daily"),
        ("9:00", "09:00", "UTC", "weekdays", None, "daily"),
        ("", "09:00", "UTC", "weekdays", None, "daily"),
        (
            "9:30 Europe/Berlin daily graph neural networks",
            *("09:30", "Europe/Berlin", "daily", "graph neural networks", "daily"),
        ),
        (
            "9:30am Europe/Berlin weekdays graph neural networks",
            *("09:30", "Europe/Berlin", "weekdays", "graph neural networks", "daily"),
        ),
        ("weekly monday 9am Europe/Berlin", "09:00", "Europe/Berlin", "monday", None, "weekly"),
        ("weekly sun 9am", "09:00", "UTC", "sunday", None, "weekly"),
        ("weekly Tues 9am", "09:00", "UTC", "tuesday", None, "weekly"),
        ("weekly thurs 16:00", "16:00", "UTC", "thursday", None, "weekly"),
        ("new", "09:00", "UTC", "announced", None, "new"),
        ("new 8am Europe/Berlin", "08:00", "Europe/Berlin", "announced", None, "new"),
        (
            "new 9am Europe/Berlin graph pruning category:cs.LG",
            *("09:00", "Europe/Berlin", "announced", "graph pruning category:cs.LG", "new"),
        ),
        ("NEW 9am new york", "09:00", "America/New_York", "announced", None, "new"),
        ('"new optimisers"', "09:00", "UTC", "weekdays", '"new optimisers"', "daily"),
        # abbreviations, cities, spellings
        ("9am EST", "09:00", "America/New_York", "weekdays", None, "daily"),
        ("9am edt", "09:00", "America/New_York", "weekdays", None, "daily"),
        ("9am PST", "09:00", "America/Los_Angeles", "weekdays", None, "daily"),
        ("9am CEST daily", "09:00", "Europe/Berlin", "daily", None, "daily"),
        ("9am Berlin", "09:00", "Europe/Berlin", "weekdays", None, "daily"),
        ("9am BERLIN", "09:00", "Europe/Berlin", "weekdays", None, "daily"),
        ("9am New York daily rlhf", "09:00", "America/New_York", "daily", "rlhf", "daily"),
        ("9am new york", "09:00", "America/New_York", "weekdays", None, "daily"),
        ("new york", "09:00", "America/New_York", "weekdays", None, "daily"),
        ("9am pst", "09:00", "America/Los_Angeles", "weekdays", None, "daily"),
        ("9am cest", "09:00", "Europe/Berlin", "weekdays", None, "daily"),
        ("9am MET", "09:00", "Europe/Berlin", "weekdays", None, "daily"),
        ("9am UTC graphs", "09:00", "UTC", "weekdays", "graphs", "daily"),
        ("Kolkata", "09:00", "Asia/Kolkata", "weekdays", None, "daily"),
        ("9am EST daily graphs", "09:00", "America/New_York", "daily", "graphs", "daily"),
        ("9am new_york", "09:00", "America/New_York", "weekdays", None, "daily"),
        ("9am Ho Chi Minh", "09:00", "Asia/Ho_Chi_Minh", "weekdays", None, "daily"),
        ("9am kolkata", "09:00", "Asia/Kolkata", "weekdays", None, "daily"),
        ("9am JST", "09:00", "Asia/Tokyo", "weekdays", None, "daily"),
        ("9am AEST", "09:00", "Australia/Sydney", "weekdays", None, "daily"),
        ("9am BST", "09:00", "Europe/London", "weekdays", None, "daily"),
        ("weekly fri 5pm Asia/Tokyo graphs", "17:00", "Asia/Tokyo", "friday", "graphs", "weekly"),
        # topic words that are zone words once a zone is given, and slashed topic words
        (
            "9am Europe/Berlin cat detection",
            "09:00",
            "Europe/Berlin",
            "weekdays",
            "cat detection",
            "daily",
        ),
        ("9am retrieval for Q/A", "09:00", "UTC", "weekdays", "retrieval for Q/A", "daily"),
        ("daily RL/HF", "09:00", "UTC", "daily", "RL/HF", "daily"),
        ("9am CPU/GPU scheduling", "09:00", "UTC", "weekdays", "CPU/GPU scheduling", "daily"),
        ("Mars/Olympus", "09:00", "UTC", "weekdays", "Mars/Olympus", "daily"),
        ('9am "cat detection"', "09:00", "UTC", "weekdays", '"cat detection"', "daily"),
        # topics that only look like schedule words, and quoted ones
        ("weakly supervised", "09:00", "UTC", "weekdays", "weakly supervised", "daily"),
        ("9am tail risk", "09:00", "UTC", "weekdays", "tail risk", "daily"),
        ("9am Hardware", "09:00", "UTC", "weekdays", "Hardware", "daily"),
        ("modal logic", "09:00", "UTC", "weekdays", "modal logic", "daily"),
        ("9am GNN", "09:00", "UTC", "weekdays", "GNN", "daily"),
        ('9am "weekly reports"', "09:00", "UTC", "weekdays", '"weekly reports"', "daily"),
        ('"friday" effects', "09:00", "UTC", "weekdays", '"friday" effects', "daily"),
        ("south asian", "09:00", "UTC", "weekdays", "south asian", "daily"),
    ],
)
def test_every_form_reads_as_documented(args, at, zone, cadence, topic, kind) -> None:
    schedule, got_topic, got_kind = fresh(args)
    got = (schedule.at.strftime("%H:%M"), schedule.zone_name, schedule.cadence, got_topic)
    assert (*got, got_kind) == (at, zone, cadence, topic, kind)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ("weekly", "`weekly` takes a day of the week"),
        ("weekly 9am", "`9am` is not a day of the week"),
        ("weekly fridy", "did you mean `friday`?"),
        ("weekly fridy language models", "did you mean `friday`?"),
        ("weekly funday 9am", "did you mean `sunday`?"),
        ("weekly wednsday", "did you mean `wednesday`?"),
        ("weekly thrusday", "did you mean `thursday`?"),
        ("weekly reports", "`reports` is not a day of the week"),
        ("wekly monday", "did you mean `weekly`?"),
        ("weeekly monday", "did you mean `weekly`?"),
        ("daly", "did you mean `daily`?"),
        ("9am dialy graphs", "did you mean `daily`?"),
        ("9am weekdys", "did you mean `weekdays`?"),
        ("9am Europe/Berlin weekdas graphs", "did you mean `weekdays`?"),
        ("9am Berln graphs", "did you mean `Berlin`?"),
        ("9am Amsterdm", "did you mean `Amsterdam`?"),
        ("9am Los_Angles", "did you mean `Los Angeles`?"),
        ("9am Europe/Berln", "did you mean `Europe/Berlin`?"),
        ("9am europe/berln graphs", "did you mean `Europe/Berlin`?"),
        ("9am Europe/Atlantis", "`Europe/Atlantis` is not a time zone I know"),
        ("daily graphs Europe/Berln", "did you mean `Europe/Berlin`?"),
        ("daily graphs europe/berlin", "`europe/berlin` is out of place"),
        ("friday 9am", "`/paper subscribe weekly friday …`"),
        ("Mondays", "`/paper subscribe weekly monday …`"),
        ("thurs 9am", "`/paper subscribe weekly thursday …`"),
        ("9am weekly", "`weekly` is out of place"),
        ("weekly monday daily", "`daily` is out of place"),
        ("daily Berlin graphs", "`Berlin` is out of place"),
        ("weekly monday graphs 9am", "`9am` is out of place"),
        ("Europe/Berlin 9am", "`9am` is out of place"),
        ("9am IST", "`Asia/Jerusalem`, `Asia/Kolkata` or `Europe/Dublin`"),
        ("9am ist", "several time zones"),
        ("9am CST", "`America/Chicago`"),
        ("9am CST", "`Asia/Shanghai`"),
        ("9am MST", "`America/Denver` or `America/Phoenix`"),
        ("9am HST", "`Pacific/Honolulu`"),
        ("25:00", "`25:00` is not a time of day"),
        ("13pm", "with am/pm the hour is 1 to 12"),
    ],
)
def test_a_guess_is_refused_saying_what_was_probably_meant(args, problem) -> None:
    assert problem in refusal(args)


def test_a_refused_weekly_command_shows_the_weekly_usage() -> None:
    with pytest.raises(SubscriptionError) as raised:
        parse_subscribe_args("weekly fridy", year=YEAR)
    assert "Usage: `/paper subscribe weekly DAY" in refusal_text(raised.value.problem)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ("new 9am daily graphs", "`daily` is out of place: give the time, then the time zone,"),
        ("new monday graphs", "`monday` is out of place"),
        ("new graphs 9am", "`9am` is out of place"),
    ],
)
def test_a_refused_new_papers_command_shows_the_new_papers_usage(args, problem) -> None:
    with pytest.raises(SubscriptionError) as raised:
        parse_subscribe_args(args, year=YEAR)
    said = refusal_text(raised.value.problem)
    assert problem in said and "Usage: `/paper subscribe new [TIME]" in said


@pytest.mark.parametrize(
    ("args", "zone", "topic"),
    [
        ("cat detection", "Africa/Maputo", "cat detection"),
        ("9am cat detection", "Africa/Maputo", "cat detection"),
        ("9am cat", "Africa/Maputo", "cat"),
        ("AST parsing", "America/Puerto_Rico", "AST parsing"),
        ("9am AST parsing", "America/Puerto_Rico", "AST parsing"),
        ("met learning", "Europe/Berlin", "met learning"),
        ("west africa languages", "Europe/Lisbon", "west africa languages"),
        ("Wake word detection", "Pacific/Wake", "Wake word detection"),
        ("9am wake word detection", "Pacific/Wake", "wake word detection"),
        ("Easter eggs", "Pacific/Easter", "Easter eggs"),
        ("Troll detection", "Antarctica/Troll", "Troll detection"),
        ("Christmas", "Indian/Christmas", "Christmas"),
        ("Berlin", "Europe/Berlin", "Berlin"),
        ("9am est", "America/New_York", "est"),
        ("9am New York times corpus", "America/New_York", "New York times corpus"),
        ("weekly fri 5pm Tokyo graphs", "Asia/Tokyo", "Tokyo graphs"),
    ],
)
def test_a_zone_word_that_could_start_the_topic_is_asked_about(args, zone, topic) -> None:
    """Never read silently as the zone: the reply names both readings and how to write
    each, and nothing changes."""
    asked = refusal(args)
    assert f"the time zone `{zone}` (write that name instead)" in asked
    assert f"the topic \u201c{topic}\u201d (put it in quotes)" in asked


def _abbreviations() -> set[str]:
    instants = (datetime(YEAR, 1, 15, 12, tzinfo=UTC), datetime(YEAR, 7, 15, 12, tzinfo=UTC))
    return {
        name
        for key in available_timezones()
        for instant in instants
        if (name := instant.astimezone(ZoneInfo(key)).tzname()) and name[0].isalpha()
    }


@pytest.mark.parametrize("abbreviation", sorted(_abbreviations()))
def test_every_abbreviation_of_the_database_names_zones_that_use_it(abbreviation) -> None:
    """Understood or ambiguous, in any case, and never a zone that does not use it."""
    instants = (datetime(YEAR, 1, 15, 12, tzinfo=UTC), datetime(YEAR, 7, 15, 12, tzinfo=UTC))
    for word in (abbreviation, abbreviation.lower()):
        zones = zones_named(word, YEAR)
        assert zones, word
        users = {
            tuple(instant.astimezone(ZoneInfo(user)).utcoffset() for instant in instants)
            for user in available_timezones()
            if abbreviation in {instant.astimezone(ZoneInfo(user)).tzname() for instant in instants}
        }
        for key in zones:
            offsets = tuple(instant.astimezone(ZoneInfo(key)).utcoffset() for instant in instants)
            assert offsets in users, (word, key)
        if len(zones) > 1:
            assert abbreviation in refusal(f"9am {word}") or word in refusal(f"9am {word}")


def test_every_city_of_the_database_is_a_zone_word() -> None:
    missed = []
    for key in available_timezones():
        area, _, rest = key.partition("/")
        city = rest.rpartition("/")[2]
        if area in {"Europe", "Asia", "America", "Africa", "Australia", "Pacific"} and city:
            if city.lower() in {"north", "south", "west", "center", "east"}:
                continue
            for typed in (city, city.lower(), city.replace("_", " ")):
                zones = zones_named(typed, YEAR)
                if not zones:
                    missed.append(typed)
    assert not missed


def test_no_english_word_is_taken_for_a_misspelt_schedule_word() -> None:
    """The refusals read "did you mean": an ordinary word before a topic never gets one."""
    for word in ("weakly", "family", "mainly", "monkeys", "pairs", "hardware", "recipe", "chaos"):
        assert word in english_words()
        assert fresh(f"9am {word} networks")[1] == f"{word} networks"


def test_a_command_keeps_what_it_does_not_type() -> None:
    current = (Schedule(time(9, 0), BERLIN, "daily"), "graph neural networks")
    outcome = resolve(parse_subscribe_args("8am", year=YEAR), current, None, UTC_ZONE)
    assert outcome.schedule == Schedule(time(8, 0), BERLIN, "daily")
    assert outcome.topic == "graph neural networks"
    assert [change.part for change in outcome.changed] == [Part.TIME]
    assert [change.part for change in outcome.kept] == [Part.ZONE, Part.DAYS, Part.TOPIC]
    cleared = resolve(parse_subscribe_args("all", year=YEAR), current, None, UTC_ZONE)
    assert cleared.topic is None and [c.part for c in cleared.changed] == [Part.TOPIC]


def test_a_new_kind_takes_the_channel_s_time_and_zone() -> None:
    daily = Schedule(time(8, 0), BERLIN, "weekdays")
    outcome = resolve(parse_subscribe_args("weekly friday", year=YEAR), None, daily, UTC_ZONE)
    assert outcome.schedule == Schedule(time(8, 0), BERLIN, "friday")
    assert outcome.inherited == (Part.TIME, Part.ZONE)
    typed = resolve(parse_subscribe_args("weekly friday 9am EST", year=YEAR), None, daily, UTC_ZONE)
    assert typed.schedule.zone_name == "America/New_York" and typed.inherited == ()


def test_the_usage_card_s_subscribe_lines_parse() -> None:
    for usage, example in HELP_LINES:
        for command in (usage, example):
            for code in command.split("`"):
                if code.startswith("/paper subscribe ") and "[" not in code and "DAY" not in code:
                    request = parse_command(code.removeprefix("/paper "))
                    assert request.intent is Intent.SUBSCRIBE
                    parse_subscribe_args(request.argument, year=YEAR)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("unsubscribe wekly", Request(Intent.UNSUBSCRIBE, "wekly")),
        ("unsubscribe daily", Request(Intent.UNSUBSCRIBE, "daily")),
        ("subscibe 9am", Request(Intent.MISTYPED, "subscribe 9am")),
        ("unsubscrbe", Request(Intent.MISTYPED, "unsubscribe")),
        ("usubscribe weekly", Request(Intent.MISTYPED, "unsubscribe weekly")),
        ("subscriptons", Request(Intent.MISTYPED, "subscriptions")),
        ("subscription", Request(Intent.SEARCH, "subscription")),
        ("subscriber churn", Request(Intent.SEARCH, "subscriber churn")),
        ("description of graphs", Request(Intent.SEARCH, "description of graphs")),
    ],
)
def test_subscription_commands_with_typos_are_never_a_search_or_a_change(text, expected):
    assert parse_command(text) == expected


README_REFUSED = {"/paper subscribe weekly reports"}
"""Forms the README names as refused."""


def test_every_subscribe_command_in_the_readme_reads_as_it_says() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    commands = {
        code
        for code in re.findall(r"`([^`\n]+)`", readme)
        if code.startswith("/paper subscribe") and "[" not in code and "DAY" not in code
    }
    assert len(commands) >= 5, commands
    for command in commands:
        request = parse_command(command.removeprefix("/paper "))
        assert request.intent is Intent.SUBSCRIBE, command
        if command in README_REFUSED:
            assert refusal(request.argument)
        else:
            parse_subscribe_args(request.argument, year=YEAR)
