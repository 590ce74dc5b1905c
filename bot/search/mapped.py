"""Read-only string tables over plain arrays: what an opened index looks words and ids up in.

A dict of 100,000 strings is some 10 MB of Python objects that every process builds and holds
for itself. The same table as arrays (the keys' UTF-8 bytes end to end, where each ends, the
values, and an open-addressing hash table of slots) is read from a snapshot's memory-mapped
files, so every process on a host reads the same pages of the page cache, and holds nothing
per key. ``MappedTable`` is that table as a ``Mapping`` behaving as the dict it was written
from: the same keys, values, length and iteration order (the dict's insertion order, which
the spelling corrector's frequencies inherit), ``KeyError`` for a missing key.

The hash is CRC-32 of the key's bytes (``zlib.crc32``), the same in every process and
release, unlike Python's salted ``hash``; a slot holds an entry's number and a lookup
compares the key's bytes, so two keys of one hash are both found. Keys are encoded with
``surrogatepass``: a lone surrogate, which a JSON request may carry, is looked up (and
missed) like any other string.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from itertools import pairwise
from typing import Any, overload
from zlib import crc32

import numpy as np

_ENCODING = "utf-8"
_ERRORS = "surrogatepass"
_EMPTY = -1
_RECENT = 2048
"""Keys a table keeps the entry numbers of once looked up (some 200 kB, its own memory)."""


def _encoded(key: str) -> bytes:
    return key.encode(_ENCODING, _ERRORS)


def _slot_count(entries: int) -> int:
    """A power of two at least twice ``entries``: at most half the slots taken, a lookup
    probes about two."""
    return max(8, 1 << (2 * entries).bit_length())


class MappedStrings(Sequence[str]):
    """Strings stored end to end as UTF-8 (``text``), string ``n`` between ``offsets[n]``
    and ``offsets[n + 1]``; each decoded when asked for."""

    PARTS = ("text", "offsets")

    def __init__(self, text: np.ndarray, offsets: np.ndarray) -> None:
        self._text = memoryview(np.ascontiguousarray(text, dtype=np.uint8))
        self._offsets = memoryview(np.ascontiguousarray(offsets, dtype=np.int64))
        self._size = len(self._offsets) - 1
        ends = np.asarray(offsets)
        if (
            self._size < 0
            or ends[0] != 0
            or ends[-1] != len(self._text)
            or (np.diff(ends) < 0).any()
        ):
            raise ValueError("mapped strings whose offsets do not cut their text")

    @staticmethod
    def arrays(strings: Iterable[str]) -> dict[str, np.ndarray]:
        """What ``MappedStrings(**arrays)`` reads ``strings`` back from."""
        encoded = [_encoded(string) for string in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(bytes_) for bytes_ in encoded], out=offsets[1:])
        return {"text": np.frombuffer(b"".join(encoded), dtype=np.uint8), "offsets": offsets}

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, at: int) -> str: ...

    @overload
    def __getitem__(self, at: slice) -> list[str]: ...

    def __getitem__(self, at: int | slice) -> str | list[str]:
        if isinstance(at, slice):
            return [self[n] for n in range(*at.indices(self._size))]
        if at < 0:
            at += self._size
        if not 0 <= at < self._size:
            raise IndexError("string number out of range")
        return bytes(self._text[self._offsets[at] : self._offsets[at + 1]]).decode(
            _ENCODING, _ERRORS
        )

    def __iter__(self) -> Iterator[str]:
        text, offsets = bytes(self._text), self._offsets.tolist()
        for start, end in pairwise(offsets):
            yield text[start:end].decode(_ENCODING, _ERRORS)


class MappedTable(Mapping[str, int]):
    """A read-only ``str`` → ``int`` mapping over arrays (see the module): ``arrays`` writes
    a dict as them, ``MappedTable(**arrays)`` reads them, memory-mapped or not: arrays that
    do not make a table (``ValueError``) are refused, so a lookup always ends."""

    PARTS = (*MappedStrings.PARTS, "values", "hashes", "slots")

    def __init__(
        self,
        text: np.ndarray,
        offsets: np.ndarray,
        values: np.ndarray,
        hashes: np.ndarray,
        slots: np.ndarray,
    ) -> None:
        self._keys = MappedStrings(text, offsets)
        self._text, self._offsets = self._keys._text, self._keys._offsets
        self._values = memoryview(np.ascontiguousarray(values, dtype=np.int64))
        self._hashes = memoryview(np.ascontiguousarray(hashes, dtype=np.uint32))
        self._slots = memoryview(np.ascontiguousarray(slots, dtype=np.int32))
        self._mask = len(self._slots) - 1
        self._recent: dict[str, int | None] = {}
        size = len(self._keys)
        if not (len(self._values) == len(self._hashes) == size):
            raise ValueError("a mapped table's keys, values and hashes differ in number")
        taken = np.asarray(slots)
        if (
            len(taken) <= 2 * size
            or self._mask & len(taken)
            or (len(taken) and not -1 <= taken.min() <= taken.max() < size)
            or np.count_nonzero(taken == _EMPTY) != len(taken) - size
        ):
            raise ValueError("a mapped table's slots do not number its keys")

    @staticmethod
    def arrays(mapping: Mapping[str, int]) -> dict[str, np.ndarray]:
        """``mapping`` as the arrays a ``MappedTable`` reads, its order kept."""
        keys = list(mapping)
        strings = MappedStrings.arrays(keys)
        hashes = np.array([crc32(_encoded(key)) for key in keys], dtype=np.uint32)
        slots = np.full(_slot_count(len(keys)), _EMPTY, dtype=np.int32)
        mask = len(slots) - 1
        for number, hashed in enumerate(hashes.tolist()):
            slot = hashed & mask
            while slots[slot] != _EMPTY:
                slot = (slot + 1) & mask
            slots[slot] = number
        values = np.fromiter(mapping.values(), dtype=np.int64, count=len(keys))
        return {**strings, "values": values, "hashes": hashes, "slots": slots}

    def _looked_up(self, key: object) -> int | None:
        """The value of ``key`` (None if none), probed in the arrays and kept among the keys
        asked for lately (a query asks for each of its words a dozen times: a dict read
        where a probe takes a microsecond)."""
        number = self._probe(key)
        value = None if number == _EMPTY else self._values[number]
        if type(key) is str:
            recent = self._recent
            if len(recent) >= _RECENT:
                recent.clear()
            recent[key] = value
        return value

    def _probe(self, key: object) -> int:
        """The entry number of ``key``, or -1, read from the arrays (local names, no calls
        but the hash)."""
        if not isinstance(key, str):
            return _EMPTY
        encoded = key.encode(_ENCODING, _ERRORS)
        hashed = crc32(encoded)
        slots, mask = self._slots, self._mask
        slot = hashed & mask
        number = slots[slot]
        while number != _EMPTY:
            if self._hashes[number] == hashed:
                offsets = self._offsets
                if self._text[offsets[number] : offsets[number + 1]] == encoded:
                    return number
            slot = (slot + 1) & mask
            number = slots[slot]
        return _EMPTY

    def __getitem__(self, key: str) -> int:
        value = self._recent.get(key, self)  # an unhashable key raises TypeError, as a dict
        if value is self:
            value = self._looked_up(key)
        if value is None:
            raise KeyError(key)
        return value  # type: ignore[return-value]

    def get(self, key: str, default: Any = None) -> Any:
        value = self._recent.get(key, self)
        if value is self:
            value = self._looked_up(key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        value = self._recent.get(key, self)  # type: ignore[call-overload]
        if value is self:
            value = self._looked_up(key)
        return value is not None

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def items(self) -> ItemsView[str, int]:
        return _Items(self)

    def values(self) -> ValuesView[int]:
        return _Values(self)

    def __repr__(self) -> str:
        return f"<MappedTable of {len(self):,} keys>"


class _Items(ItemsView[str, int]):
    """A mapped table's items read in one pass over its arrays, not a lookup per key."""

    _mapping: MappedTable

    def __iter__(self) -> Iterator[tuple[str, int]]:
        table = self._mapping
        return zip(table._keys, table._values.tolist(), strict=True)


class _Values(ValuesView[int]):
    _mapping: MappedTable

    def __iter__(self) -> Iterator[int]:
        return iter(self._mapping._values.tolist())


class Layered(Mapping[str, Any]):
    """A mapped table and the keys added since (a dict, never holding a key of ``base``):
    what an opened index looks up once papers were added to it, its saved part still
    shared. The dict the two replace was filled first from the saved papers, then from the
    added ones, a key's first value kept: so ``base`` wins, and iteration runs through
    ``base``, then ``added``."""

    def __init__(self, base: Mapping[str, Any], added: Mapping[str, Any]) -> None:
        self.base, self.added = base, added

    def __getitem__(self, key: str) -> Any:
        found = self.base.get(key, self)
        return self.added[key] if found is self else found

    def get(self, key: str, default: Any = None) -> Any:
        found = self.base.get(key, self)
        return self.added.get(key, default) if found is self else found

    def __contains__(self, key: object) -> bool:
        return key in self.base or key in self.added

    def __len__(self) -> int:
        return len(self.base) + len(self.added)

    def __iter__(self) -> Iterator[str]:
        yield from self.base
        yield from self.added


class MappedSlices(Mapping[str, np.ndarray]):
    """A read-only ``str`` → array mapping over arrays: key ``k``'s value is
    ``items[starts[n] : starts[n + 1]]`` (a view), ``n`` its number in ``rows``."""

    def __init__(self, rows: MappedTable, starts: np.ndarray, items: np.ndarray) -> None:
        if len(starts) != len(rows) + 1 or (len(starts) and starts[-1] != len(items)):
            raise ValueError("mapped slices whose starts do not cut their items")
        self._rows, self._items = rows, items
        self._starts = memoryview(np.ascontiguousarray(starts, dtype=np.int64))

    def __getitem__(self, key: str) -> np.ndarray:
        row = self._rows[key]
        return self._items[self._starts[row] : self._starts[row + 1]]

    def get(self, key: str, default: Any = None) -> Any:
        row = self._rows.get(key)
        return default if row is None else self._items[self._starts[row] : self._starts[row + 1]]

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)
