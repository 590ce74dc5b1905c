"""The channel case of ``bench/recommend.py``: how soon the paper of the day follows what a
channel reacts to, run through the bot's own rotation and store (see that module's docstring).
"""

from __future__ import annotations

import random
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from bot.digest.rotation import Rotation
from bot.papers.paper import Paper
from bot.search.engine import SearchIndex
from bot.store import Store

SEED = 23
TEAM = "T0BENCH"
MEMBERS = ("U0ANN", "U0BOB")
"""Who 👍s a group paper: two people, so the paper counts 2 (one vote each)."""
SMALLEST_GROUP = 11
DAYS = 60
WINDOWS = (7, 30, 60)
NOISE = 0.1
"""In the noisy variant, the share of other papers a member reacts 👀 (+0.5) to."""
FIRST_DAY = date(2025, 1, 6)
LEASE = timedelta(minutes=5)


@dataclass(frozen=True)
class Channel:
    """One simulated channel's two months: the days its group's papers were posted."""

    group_size: int
    days: list[int]

    def shown(self, window: int) -> int:
        return sum(day < window for day in self.days)

    def first(self) -> int | None:
        return min(self.days) if self.days else None


@dataclass(frozen=True)
class Variant:
    name: str
    channels: list[Channel]


def run(index: SearchIndex, papers: Sequence[Paper], groups: list[list[int]]) -> list[Variant]:
    """Every group of ``SMALLEST_GROUP`` papers or more as a channel, in three variants."""
    followed = [[papers[doc].id for doc in docs] for docs in groups if len(docs) >= SMALLEST_GROUP]
    variants = [("today's fixed order (no signal)", False, 0.0)]
    variants += [("signals: 👍 on the group's papers", True, 0.0)]
    variants += [(f"signals, noisy: also 👀 on {NOISE:.0%} of other papers", True, NOISE)]
    results = []
    for name, signals, noise in variants:
        with tempfile.TemporaryDirectory() as scratch:
            store = Store(f"sqlite:///{Path(scratch) / 'bench.db'}")
            rotation = Rotation(store, index)
            channels = [
                _channel(store, rotation, f"C{number:04d}", group, signals=signals, noise=noise)
                for number, group in enumerate(followed)
            ]
            store.close()
        results.append(Variant(name, channels))
        print(name, [channel.shown(DAYS) for channel in channels], flush=True)
    return results


def _channel(
    store: Store, rotation: Rotation, channel: str, group: list[str], *, signals: bool, noise: float
) -> Channel:
    rng = random.Random(f"{SEED}/{channel}")
    members = set(group)
    if signals:
        store.record_share(TEAM, channel, MEMBERS[0], rng.choice(group), f"{channel}.share")
    days = []
    for day in range(DAYS):
        local_date = FIRST_DAY + timedelta(days=day)
        pick = rotation.next(channel, None)
        assert pick is not None
        store.claim_digest(
            channel,
            local_date,
            paper_id=pick.paper.id,
            round=pick.round,
            position=pick.position,
            pool_size=pick.pool_size,
            owner="bench",
            lease=LEASE,
        )
        ts = f"{day}.000100"
        store.record_post(channel, local_date, ts, "bench")
        if pick.paper.id in members:
            days.append(day)
            if signals:
                for member in MEMBERS:
                    store.record_reaction(TEAM, channel, ts, member, "+1")
        elif rng.random() < noise:
            store.record_reaction(TEAM, channel, ts, MEMBERS[1], "eyes")
    return Channel(len(group), days)


def report(variants: list[Variant], commit: str) -> str:
    channels = variants[0].channels
    sizes = [channel.group_size for channel in channels]
    lines = [
        "# The paper of the day following a channel's reactions",
        "",
        f"`python bench/recommend.py --channels`, commit {commit}, over the accepted catalogue "
        f"and its shipped vectors; seed {SEED}.",
        "",
        f"{len(channels)} simulated channels, one per author group of {SMALLEST_GROUP} papers "
        f"or more ({min(sizes)} to {max(sizes)} papers, median {statistics.median(sizes):g}). "
        "The rotation is the bot's own (`bot.digest.rotation.Rotation` over a scratch "
        "SQLite store, `store.channel_interest` as the bot computes it). On day 0 a member "
        "shares one of the group's papers; each day the posted paper gets 👍 from two members "
        "when it is one of the group's. Today's fixed order is the same channels with no "
        "share and no reaction: the round's seeded shuffle.",
        "",
        "| order | group papers shown in 7 days | in 30 days | in 60 days | "
        "first group paper (median day) | channels with none in 60 days |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for variant in variants:
        shown = [
            statistics.mean(channel.shown(window) for channel in variant.channels)
            for window in WINDOWS
        ]
        firsts = [channel.first() for channel in variant.channels]
        seen = [first for first in firsts if first is not None]
        median = f"{statistics.median(seen):g}" if seen else "—"
        lines.append(
            f"| {variant.name} | {shown[0]:.2f} | {shown[1]:.2f} | {shown[2]:.2f} | {median} | "
            f"{firsts.count(None)} of {len(firsts)} |"
        )
    return "\n".join([*lines, "", FINDINGS]) + "\n"


FINDINGS = (
    "The first group paper's median day counts only the channels that got one. Signals move "
    "the rotation as far as the papers near what the channel engaged with: each engaged "
    "paper lends weight to its 20 nearest (`rotation.NEIGHBOURS`), so a channel whose one "
    "shared paper has none of its group among them is shown those 20 and then today's "
    "order again, with nothing new to learn from; every group paper it 👍s widens the "
    "reach. Stray 👀 reactions widen it too, which is why the noisy channels find their "
    "group more often, if later. A channel that never reacts to anything keeps today's "
    "order exactly."
)
