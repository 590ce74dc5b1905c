"""Issue 18's bar for the re-ranker: with the semantic part on, no kind of query of any blind
set scores below the same engine with it off, and the gain over the union of the sets does not
fall below the gain measured before the change.

"Below" allows one query's worth of noise: on a kind of ``n`` queries, one query whose answer
drops out of the top 10 costs ``1/n`` of the kind's MRR@10, which a dozen queries cannot tell
from chance. The union's gain is the mean, over every query of the blind sets, of the
reciprocal rank with the semantic part on minus the one with it off.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

# A query's kind and its reciprocal rank (MRR@10's part) with the semantic part on, then off.
Paired = tuple[str, float, float]


@dataclass(frozen=True)
class BlindSet:
    """One blind set's queries, each scored with the semantic part on and off."""

    name: str
    file: str  # the query file's name, which a recorded gain refers to
    kinds: tuple[str, ...]
    paired: list[Paired]


@dataclass(frozen=True)
class RecordedGain:
    """The union's gain before the change, on the blind sets named by their file names."""

    files: tuple[str, ...]
    gain: float
    measured: str  # which code, on which date


@dataclass(frozen=True)
class KindGain:
    set_name: str
    kind: str
    queries: int
    on: float  # MRR@10
    off: float

    @property
    def gain(self) -> float:
        return self.on - self.off

    @property
    def allowed_loss(self) -> float:
        return 1 / self.queries

    @property
    def holds(self) -> bool:
        return self.gain >= -self.allowed_loss - 1e-12


def kind_gains(blind: BlindSet) -> list[KindGain]:
    """One row per kind of the set that has queries, in the set's order of kinds."""
    rows = []
    for kind in blind.kinds:
        of_kind = [pair for pair in blind.paired if pair[0] == kind]
        if of_kind:
            on, off = union_means(of_kind)
            rows.append(KindGain(blind.name, kind, len(of_kind), on, off))
    return rows


def union_means(paired: Sequence[Paired]) -> tuple[float, float]:
    """MRR@10 with the semantic part on and off over all the queries given."""
    return (
        sum(pair[1] for pair in paired) / len(paired),
        sum(pair[2] for pair in paired) / len(paired),
    )


def gain_on(sets: Sequence[BlindSet], files: Collection[str]) -> float | None:
    """Semantic on minus off on the union of the sets with these file names; None unless
    every one of them was measured."""
    chosen = [blind for blind in sets if blind.file in files]
    if {blind.file for blind in chosen} != set(files):
        return None
    on, off = union_means([pair for blind in chosen for pair in blind.paired])
    return on - off


def gain_failures(sets: Sequence[BlindSet], before: RecordedGain) -> list[str]:
    failures = [
        f"{row.set_name} {row.kind}: semantic on MRR@10 {row.on:.3f} < semantic off"
        f" {row.off:.3f} by more than one query's worth ({row.allowed_loss:.3f})"
        for blind in sets
        for row in kind_gains(blind)
        if not row.holds
    ]
    now = gain_on(sets, before.files)
    if now is not None and now < before.gain - 1e-12:
        failures.append(
            f"semantic on gains {now:+.3f} MRR@10 over off on {' + '.join(before.files)},"
            f" less than the {before.gain:+.3f} before issue 18's change"
        )
    return failures


def gain_section(sets: Sequence[BlindSet], before: RecordedGain) -> list[str]:
    """The report's lines: a row per kind of every blind set, then the union."""
    if not sets:
        return []
    lines = [
        "## Semantic on against off",
        "",
        "MRR@10 of the engine with the semantic part on and off on every kind of every blind"
        " set; a kind may lose at most one query's worth (1/n of its n queries).",
        "",
        "| blind set | kind (queries) | semantic off | semantic on | gain | allowed loss |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in (row for blind in sets for row in kind_gains(blind)):
        mark = "" if row.holds else " **(below)**"
        lines.append(
            f"| {row.set_name} | {row.kind} ({row.queries}) | {row.off:.3f} | {row.on:.3f} |"
            f" {row.gain:+.3f}{mark} | {row.allowed_loss:.3f} |"
        )
    union = [pair for blind in sets for pair in blind.paired]
    on, off = union_means(union)
    lines += [
        "",
        f"On the union of the blind sets ({len(union)} queries): semantic on {on:.3f}, off"
        f" {off:.3f}, gain {on - off:+.3f} MRR@10.",
    ]
    now = gain_on(sets, before.files)
    if now is not None:
        lines.append(
            f"On {' + '.join(before.files)}: gain {now:+.3f} now, {before.gain:+.3f} before"
            f" issue 18's change ({before.measured})."
        )
    return [*lines, ""]
