"""Parsing ``/paper subscribe`` and turning schedules into instants across zones and DST."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from bot.digest.command import Outcome, parse_subscribe_args, resolve
from bot.digest.subscriptions import (
    Schedule,
    SubscriptionError,
    local_instant,
    parse_time,
)
from bot.render.subscribe import refusal_text

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
YEAR = 2025


def new_subscription(args: str, default_zone: str) -> Outcome:
    """What ``/paper subscribe args`` gives a channel with no digest at all."""
    return resolve(parse_subscribe_args(args, year=YEAR), None, None, ZoneInfo(default_zone))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("9:00", time(9, 0)),
        ("09:00", time(9, 0)),
        ("9am", time(9, 0)),
        ("9:30pm", time(21, 30)),
        ("12am", time(0, 0)),
        ("12pm", time(12, 0)),
        ("23:59", time(23, 59)),
        ("7:05AM", time(7, 5)),
    ],
)
def test_times_in_the_accepted_shapes(text: str, expected: time) -> None:
    assert parse_time(text) == expected


@pytest.mark.parametrize("text", ["25:00", "9:75", "13pm", "0am"])
def test_impossible_times_are_explained_with_an_example(text: str) -> None:
    with pytest.raises(SubscriptionError) as raised:
        parse_time(text)
    assert f"`{text}`" in str(raised.value)
    assert "Example: `/paper subscribe" in refusal_text(raised.value.problem)


def test_everything_is_optional_and_defaults_apply() -> None:
    request = new_subscription("", default_zone="America/New_York")
    assert request.schedule == Schedule(time(9, 0), NEW_YORK, "weekdays")
    assert request.topic is None


def test_all_parts_in_order() -> None:
    request = new_subscription("09:30 Europe/Berlin daily graph neural networks", "UTC")
    assert request.schedule == Schedule(time(9, 30), BERLIN, "daily")
    assert request.topic == "graph neural networks"


def test_zone_names_are_matched_case_insensitively_and_utc_is_accepted() -> None:
    assert new_subscription("8am europe/berlin", "UTC").schedule.zone_name == "Europe/Berlin"
    assert new_subscription("8am utc", "Europe/Berlin").schedule.zone_name == "UTC"


def test_words_without_a_slash_are_a_topic_not_a_zone() -> None:
    request = new_subscription("universal approximation", "UTC")
    assert request.topic == "universal approximation"
    assert request.schedule == Schedule(time(9, 0), ZoneInfo("UTC"), "weekdays")


def test_a_lowercase_slashed_word_that_is_no_zone_is_a_topic() -> None:
    assert new_subscription("daily encoder/decoder", "UTC").topic == "encoder/decoder"


def test_a_spaced_meridiem_is_one_time() -> None:
    assert new_subscription("9 am UTC", "UTC").schedule.at == time(9, 0)
    assert new_subscription("9:30 PM", "UTC").schedule.at == time(21, 30)


@pytest.mark.parametrize(
    ("args", "names"),
    [
        ("25:00", "`25:00`"),
        ("9:00 Europe/Olympus", "`Europe/Olympus`"),
        ("Europe/Berlin 9am", "`9am`"),
        ("daily Europe/Berlin", "`Europe/Berlin`"),
    ],
)
def test_invalid_arguments_say_what_is_wrong(args: str, names: str) -> None:
    with pytest.raises(SubscriptionError) as raised:
        new_subscription(args, "UTC")
    assert names in str(raised.value)
    assert "Example:" in refusal_text(raised.value.problem)


def test_next_run_in_several_zones() -> None:
    friday_noon_utc = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)
    tokyo = Schedule(time(9, 0), ZoneInfo("Asia/Tokyo"), "weekdays")
    new_york = Schedule(time(9, 0), NEW_YORK, "weekdays")
    kolkata = Schedule(time(9, 0), ZoneInfo("Asia/Kolkata"), "daily")
    # Tokyo's Friday 09:00 has passed (00:00 UTC); the next weekday is Monday.
    assert tokyo.next_run(friday_noon_utc) == datetime(2025, 3, 17, 0, 0, tzinfo=UTC)
    # New York is already on daylight time (since 9 March): 09:00 EDT is 13:00 UTC.
    assert new_york.next_run(friday_noon_utc) == datetime(2025, 3, 14, 13, 0, tzinfo=UTC)
    # Kolkata is UTC+05:30 and posts on Saturdays too.
    assert kolkata.next_run(friday_noon_utc) == datetime(2025, 3, 15, 3, 30, tzinfo=UTC)


def test_nine_in_berlin_stays_nine_across_the_dst_change() -> None:
    schedule = Schedule(time(9, 0), BERLIN, "daily")
    saturday = schedule.next_run(datetime(2025, 3, 29, 0, 0, tzinfo=UTC))
    sunday = schedule.next_run(saturday)
    monday = schedule.next_run(sunday)
    assert saturday == datetime(2025, 3, 29, 8, 0, tzinfo=UTC)  # 09:00 CET
    assert sunday == datetime(2025, 3, 30, 7, 0, tzinfo=UTC)  # 09:00 CEST, first day of DST
    assert monday == datetime(2025, 3, 31, 7, 0, tzinfo=UTC)
    for instant in (saturday, sunday, monday):
        assert instant.astimezone(BERLIN).time() == time(9, 0)


def test_a_time_in_the_spring_forward_gap_posts_once_at_the_end_of_the_gap() -> None:
    schedule = Schedule(time(2, 30), BERLIN, "daily")
    runs = [schedule.next_run(datetime(2025, 3, 29, 0, 0, tzinfo=UTC))]
    for _ in range(2):
        runs.append(schedule.next_run(runs[-1]))
    local = [run.astimezone(BERLIN) for run in runs]
    assert [moment.date() for moment in local] == [
        date(2025, 3, 29),
        date(2025, 3, 30),
        date(2025, 3, 31),
    ]
    assert local[1].time() == time(3, 0)  # 02:00-03:00 does not exist that night
    assert runs[1] == datetime(2025, 3, 30, 1, 0, tzinfo=UTC)
    assert local[0].time() == local[2].time() == time(2, 30)


def test_a_time_repeated_at_fall_back_posts_once_at_its_first_occurrence() -> None:
    schedule = Schedule(time(2, 30), BERLIN, "daily")
    saturday = schedule.next_run(datetime(2025, 10, 25, 12, 0, tzinfo=UTC))
    monday = schedule.next_run(saturday)
    assert saturday == datetime(2025, 10, 26, 0, 30, tzinfo=UTC)  # 02:30 CEST, first one
    assert monday.astimezone(BERLIN).date() == date(2025, 10, 27)
    assert monday == datetime(2025, 10, 27, 1, 30, tzinfo=UTC)


def test_new_york_gap_and_half_hour_gap_of_lord_howe() -> None:
    assert local_instant(date(2025, 3, 9), time(2, 15), NEW_YORK) == datetime(
        2025, 3, 9, 7, 0, tzinfo=UTC
    )
    lord_howe = ZoneInfo("Australia/Lord_Howe")  # moves by 30 minutes at 02:00 local
    instant = local_instant(date(2025, 10, 5), time(2, 10), lord_howe)
    assert instant.astimezone(lord_howe).time() == time(2, 30)


def test_weekdays_skip_the_weekend() -> None:
    schedule = Schedule(time(9, 0), ZoneInfo("UTC"), "weekdays")
    friday_after = datetime(2025, 3, 14, 10, 0, tzinfo=UTC)
    assert schedule.next_run(friday_after) == datetime(2025, 3, 17, 9, 0, tzinfo=UTC)
    assert not schedule.posts_on(date(2025, 3, 15))
    assert schedule.posts_on(date(2025, 3, 17))
