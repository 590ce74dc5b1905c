"""The mapped tables an opened index looks words and ids up in behave as the dicts they replace."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from zlib import crc32

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.search.mapped import Layered, MappedSlices, MappedStrings, MappedTable

ODD_KEYS = (
    "",
    "a",
    "\x00",
    "tab\there",
    "café",
    "cafe\u0301",  # the same word, its accent combining: another key
    "ǅ",
    "ß",
    "İstanbul",
    "日本語",
    "🤖",
    "\ud800",  # a lone surrogate, which a JSON request can carry
    "\udfff\ud800",
    "x" * 5000,
)


def _table(mapping: Mapping[str, int], tmp_path: Path | None = None) -> MappedTable:
    arrays = MappedTable.arrays(mapping)
    if tmp_path is None:
        return MappedTable(**arrays)
    for name, array in arrays.items():  # as an opened snapshot reads them
        np.save(tmp_path / f"{name}.npy", array)
    return MappedTable(
        **{name: np.load(tmp_path / f"{name}.npy", mmap_mode="r") for name in arrays}
    )


def _same(table: Mapping[str, int], source: dict[str, int]) -> None:
    assert len(table) == len(source)
    assert list(table) == list(source)
    assert list(table.keys()) == list(source.keys())
    assert list(table.items()) == list(source.items())
    assert list(table.values()) == list(source.values())
    assert table == source and dict(table) == source
    for key, value in source.items():
        assert key in table
        assert table[key] == value and table.get(key) == value


def test_a_mapped_table_of_odd_keys_answers_as_its_dict(tmp_path) -> None:
    source = {key: 7 * number - 3 for number, key in enumerate(ODD_KEYS)}
    table = _table(source, tmp_path)
    _same(table, source)
    for missing in ("b", "cafe", "café ", "\ud801", "🤖🤖", "x" * 4999, "CAFÉ"):
        assert missing not in table
        assert table.get(missing) is None and table.get(missing, -1) == -1
        with pytest.raises(KeyError):
            table[missing]
    for other in (0, None, b"a", ("a",)):
        assert other not in table and table.get(other) is None
    with pytest.raises(TypeError):
        [] in table  # noqa: B015 - unhashable, as with a dict
    with pytest.raises(TypeError):
        [] in source  # noqa: B015


def test_an_empty_mapped_table_holds_nothing() -> None:
    table = _table({})
    assert len(table) == 0 and list(table) == [] and table == {}
    assert "" not in table and table.get("a", 5) == 5


def test_keys_of_one_hash_are_each_found() -> None:
    """Two keys whose CRC-32 is the same, and many in few slots, are each found."""
    first, second = "tdlfejpw", "dddmznbx"
    assert crc32(first.encode()) == crc32(second.encode())
    pair = {first: 1, second: 2}
    _same(_table(pair), pair)
    assert _table({first: 1}).get(second) is None
    crowded = {f"w{n}": n for n in range(3000)}
    _same(_table(crowded), crowded)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.text(max_size=12), st.integers(-(2**62), 2**62), max_size=40),
    st.lists(st.text(max_size=12), max_size=20),
)
def test_a_mapped_table_is_its_dict(source: dict[str, int], probes: list[str]) -> None:
    table = _table(source)
    _same(table, source)
    for probe in probes:
        assert (probe in table) == (probe in source)
        assert table.get(probe, "none") == source.get(probe, "none")


def test_mapped_strings_read_back_in_order() -> None:
    strings = MappedStrings(**MappedStrings.arrays(ODD_KEYS))
    assert list(strings) == list(ODD_KEYS) and len(strings) == len(ODD_KEYS)
    assert strings[-1] == ODD_KEYS[-1] and strings[1:3] == list(ODD_KEYS[1:3])
    with pytest.raises(IndexError):
        strings[len(ODD_KEYS)]


def test_mapped_slices_give_each_key_its_papers() -> None:
    lists = {"bengio": np.array([0, 4, 9]), "lecun": np.array([], dtype=np.int64), "hinton": [4]}
    starts = np.cumsum([0, *(len(docs) for docs in lists.values())])
    items = np.concatenate([np.asarray(docs, dtype=np.int64) for docs in lists.values()])
    rows = _table({token: row for row, token in enumerate(lists)})
    slices = MappedSlices(rows, starts, items)
    assert list(slices) == list(lists) and len(slices) == 3
    assert all(np.array_equal(slices[token], docs) for token, docs in lists.items())
    assert "lecun" in slices and "turing" not in slices
    assert slices.get("turing") is None and slices.get("turing", ()) == ()
    with pytest.raises(KeyError):
        slices["turing"]


def test_a_layered_table_answers_as_the_dict_filled_base_first() -> None:
    filled: dict[str, int] = {}
    for key, value in [("a", 0), ("B", 1), ("c", 2), ("a", 3), ("d", 4)]:
        filled.setdefault(key, value)
    layered = Layered(_table({"a": 0, "B": 1, "c": 2}), {"d": 4})
    _same(layered, filled)
    assert layered.get("e", 9) == 9
    with pytest.raises(KeyError):
        layered["e"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda a: a.update(slots=np.zeros_like(a["slots"])),  # no empty slot: a lookup never ends
        lambda a: a.update(slots=a["slots"][:-1]),
        lambda a: a.update(slots=np.where(a["slots"] == 0, 99, a["slots"])),
        lambda a: a.update(values=a["values"][:-1]),
        lambda a: a.update(offsets=a["offsets"][::-1].copy()),
        lambda a: a.update(text=a["text"][:-1]),
    ],
    ids=[
        "full-slots",
        "slots-not-a-power-of-two",
        "slot-out-of-range",
        "values",
        "offsets",
        "text",
    ],
)
def test_arrays_that_do_not_make_a_table_are_refused(damage) -> None:
    arrays = MappedTable.arrays({f"w{n}": n for n in range(20)})
    damage(arrays)
    with pytest.raises(ValueError):
        MappedTable(**arrays)
