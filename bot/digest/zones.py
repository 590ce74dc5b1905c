"""The words people type for a time zone, read from the time-zone database itself.

Three kinds of word name a zone, matched case-insensitively:

- an IANA name with a slash (``Europe/Berlin``), or ``UTC``;
- a city: the last part of an IANA name in a continent's or an ocean's area
  (``Berlin``, ``New York`` or ``new_york``, ``Kolkata``), except compass words (old state
  names such as ``Australia/North``, and North Dakota's ``Center``), which read as topics;
- an abbreviation the database gives a current zone in the year asked about, read at two
  instants (mid-January and mid-July, so both the winter and the summer name come out:
  ``EST`` and ``EDT``, ``CET`` and ``CEST``); numeric ones (``+03``) are not words.

Zones that run the same clock every day of that year are one *clock* (New York, Toronto and
Detroit are one; Panama, which keeps EST all year, is another). A word meaning one clock
names it. An abbreviation used by several clocks names the one most of its zones keep, when
that clock has at least twice as many IANA names as any other (``EST``: US Eastern, not the
all-year EST of Panama and Jamaica; ``PST``: US Pacific, not Manila); otherwise it is
ambiguous (``IST``: India, Ireland, Israel; ``CST``: US Central, China, Cuba, Mexico;
``MST``: Denver's or Phoenix's) and the candidates are listed, one zone per clock, so a
person names the one they mean: nothing is guessed.

A clock is shown by its usual zone (``America/New_York``), from ``USUAL_ZONES``: it only
picks which of the identical zones' names is shown, never what the clock does; a clock
with none of them is shown by its longest, then alphabetically first, name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from bot.search.query import edit_distance

AREAS = frozenset(
    (
        "Africa",
        "America",
        "Antarctica",
        "Arctic",
        "Asia",
        "Atlantic",
        "Australia",
        "Europe",
        "Indian",
        "Pacific",
    )
)
"""The areas whose names end in a place; ``US/…``, ``Etc/…`` and the like are aliases."""
NOT_PLACES = frozenset(("north", "south", "east", "west", "central", "center"))
MAX_CITY_WORDS = 3
"""``Ho Chi Minh``, ``Port of Spain``, ``Dar es Salaam``: the longest cities, in words."""
DOMINANCE = 2
"""How many times the names of any other clock an abbreviation's clock needs to be meant."""
USUAL_ZONES = tuple(
    (
        "UTC",
        "GMT",
        "America/New_York",
        "America/Chicago",
        "America/Denver",
        "America/Phoenix",
        "America/Los_Angeles",
        "America/Anchorage",
        "Pacific/Honolulu",
        "America/Halifax",
        "America/St_Johns",
        "America/Puerto_Rico",
        "America/Mexico_City",
        "America/Havana",
        "Europe/London",
        "Europe/Dublin",
        "Europe/Lisbon",
        "Europe/Berlin",
        "Europe/Athens",
        "Europe/Moscow",
        "Africa/Lagos",
        "Africa/Maputo",
        "Africa/Johannesburg",
        "Africa/Nairobi",
        "Africa/Cairo",
        "Asia/Jerusalem",
        "Asia/Karachi",
        "Asia/Kolkata",
        "Asia/Jakarta",
        "Asia/Shanghai",
        "Asia/Manila",
        "Asia/Hong_Kong",
        "Asia/Tokyo",
        "Asia/Seoul",
        "Australia/Perth",
        "Australia/Darwin",
        "Australia/Adelaide",
        "Australia/Brisbane",
        "Australia/Sydney",
        "Pacific/Auckland",
        "Pacific/Guam",
        "Pacific/Pago_Pago",
    )
)
"""The zone shown for a clock that has one of them: a city its people would recognise."""


def zones_named(word: str, year: int) -> tuple[str, ...]:
    """The zones ``word`` can mean: one when it is understood, several (one per clock) when
    it is ambiguous, none when it is no zone word."""
    key = _normal(word)
    return _names(year).get(key) or ()


def near_cities(word: str) -> tuple[str, ...]:
    """Cities ``word`` may be a misspelling of (``Berln`` → ``Berlin``), closest first: of
    its first letter, within one edit (two from eight letters). A word under five letters is
    never compared, nor one written in mixed case (``DaWin`` is a name, not Darwin); whether
    it is an ordinary word (``Pairs``, an edit from Paris) is for the caller to say."""
    parts = word.replace("-", "_").split("_")
    if len(word) < 5 or not all(
        part.islower() or part.isupper() or part.istitle() for part in parts
    ):
        return ()
    typed = _normal(word)
    limit = 1 if len(typed) < 8 else 2
    scored = sorted(
        (distance, city)
        for city in _city_spellings()
        if _normal(city)[0] == typed[0]
        and 0 < (distance := edit_distance(typed, _normal(city), limit)) <= limit
    )
    best = scored[0][0] if scored else None
    return tuple(city for distance, city in scored if distance == best)


def near_zone_names(name: str) -> tuple[str, ...]:
    """IANA names within two edits of a slashed name that is none (``Europe/Berln``)."""
    typed = name.lower()
    scored = sorted(
        (distance, key)
        for key in _slashed()
        if (distance := edit_distance(typed, key.lower(), 2)) <= 2
    )
    best = scored[0][0] if scored else None
    return tuple(key for distance, key in scored if distance == best)


def names_an_area(name: str) -> bool:
    """Whether a slashed word starts with an area of the database (``Europe/Atlantis``): it
    was meant as a zone, not as a topic word such as ``Q/A`` or ``CPU/GPU``."""
    area = name.partition("/")[0].lower()
    return any(key.partition("/")[0].lower() == area for key in _slashed())


def is_abbreviation(word: str, year: int) -> bool:
    """Whether ``word`` is, in any case, an abbreviation a zone uses in ``year``."""
    return word.lower() in {name.lower() for name in _abbreviations(year)}


def _normal(word: str) -> str:
    return " ".join(word.replace("_", " ").lower().split())


@cache
def _slashed() -> tuple[str, ...]:
    return tuple(sorted(key for key in available_timezones() if "/" in key))


def _city(key: str) -> str | None:
    area, _, rest = key.partition("/")
    city = rest.rpartition("/")[2].replace("_", " ")
    if area not in AREAS or not city or city.lower() in NOT_PLACES:
        return None
    return city


@cache
def _city_spellings() -> tuple[str, ...]:
    return tuple(sorted({city for key in _slashed() if (city := _city(key))}))


@cache
def _names(year: int) -> dict[str, tuple[str, ...]]:
    """Every zone word of ``year``, normalised, and the zones it can mean."""
    clock = _clocks(year)
    runs: defaultdict[tuple, list[str]] = defaultdict(list)
    for key in sorted(clock):
        runs[clock[key]].append(key)
    names: dict[str, tuple[str, ...]] = {}
    cities: defaultdict[str, set[str]] = defaultdict(set)
    for key in _slashed():
        if city := _city(key):
            cities[_normal(city)].add(key)
    for word, keys in cities.items():
        names[word] = tuple(_shown(group, runs[clock[group[0]]]) for group in _grouped(keys, clock))
    for word, keys in _abbreviations(year).items():
        names[word.lower()] = tuple(
            _shown(group, runs[clock[group[0]]]) for group in _meant(keys, clock)
        )
    names.update({key.lower(): (key,) for key in _slashed()})
    names["utc"] = ("UTC",)
    return names


@cache
def _abbreviations(year: int) -> dict[str, set[str]]:
    instants = (datetime(year, 1, 15, 12, tzinfo=UTC), datetime(year, 7, 15, 12, tzinfo=UTC))
    found: defaultdict[str, set[str]] = defaultdict(set)
    for key in available_timezones():
        zone = ZoneInfo(key)
        for instant in instants:
            name = instant.astimezone(zone).tzname()
            if name and name[0].isalpha():
                found[name].add(key)
    return found


def _clocks(year: int) -> dict[str, tuple[timedelta | None, ...]]:
    """Each zone's UTC offset at noon UTC on every day of ``year``: equal tuples, one clock."""
    start = datetime(year, 1, 1, 12, tzinfo=UTC)
    days = [start + timedelta(days=n) for n in range(365)]
    return {
        key: tuple(day.astimezone(ZoneInfo(key)).utcoffset() for day in days)
        for key in available_timezones()
    }


def _grouped(keys: Iterable[str], clock: dict[str, tuple]) -> list[list[str]]:
    groups: defaultdict[tuple, list[str]] = defaultdict(list)
    for key in sorted(keys):
        groups[clock[key]].append(key)
    return sorted(groups.values(), key=len, reverse=True)


def _meant(keys: Iterable[str], clock: dict[str, tuple]) -> list[list[str]]:
    groups = _grouped(keys, clock)
    if len(groups) == 1 or len(groups[0]) >= DOMINANCE * len(groups[1]):
        return groups[:1]
    return groups


def _shown(group: list[str], same_clock: list[str]) -> str:
    """The name a clock is shown by: from the zones that use the word (``group``), else from
    every zone on its clock, so a legacy name without a place (``MET``) is shown by a city
    that runs it, which a person can type back."""
    for keys in (group, same_clock):
        usual = [key for key in USUAL_ZONES if key in keys]
        if usual:
            return usual[0]
        placed = [key for key in keys if key.partition("/")[0] in AREAS]
        if placed:
            return min(placed, key=lambda key: (-key.count("/"), key))
    return min(group, key=lambda key: (-key.count("/"), key))
