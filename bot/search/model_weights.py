"""The model's float32 weights as one file that every process on a host maps read-only.

The pinned model keeps its matrices as int8 with float32 scales; ONNX Runtime runs them as
float32 (``bot.search.embedding``). Widened in each process's own memory they were 86 MB
that a second process on the host held again (issue 33: a second process added 54% to the
host's memory at 100,000 papers, against a bar of 25%). Written once to a file and mapped,
they are pages of the page cache, which every process maps and none holds alone; ONNX
Runtime runs on the mapped arrays in place.

The file is a one-array snapshot (``bot.search.snapshot_files``): written under a temporary
name and renamed into place, its manifest holding its size, its checksum and the key it was
made for: the pinned model's sha256, the recipe that multiplies it out, and ``FORMAT``. A file
missing (the first start on a host), truncated, corrupt or made for another key is never
used: it is written again, said in one log line. Where it cannot be written (a read-only
directory, a full disk), the process widens the weights in its own memory, as before, and
says that in its one line.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bot.search.snapshot_files import (
    MANIFEST,
    SnapshotReader,
    SnapshotRefused,
    SnapshotWriter,
    discard,
    opened_or_written,
)

log = logging.getLogger(__name__)

FORMAT = 1
"""How the file is laid out: bump it with any change to ``widened``."""
MODEL_DIR = "model"
"""The weights' folder under ``PAPERBOT_INDEX_DIR``, beside the saved indexes."""
KEEP = 2
"""Weights files kept: this release's, and one other (a process of the previous release may
still be starting from it during a rolling deploy)."""
_ARRAY = "weights"

Recipe = Sequence[dict[str, Any]]
"""Each weight's name, shape and where it lies: in the pinned model (its int8 values and
scales) and in the file (``tools/model_graph.py`` writes it)."""


def file_size(recipe: Recipe) -> int:
    return max(entry["at"] + 4 * int(np.prod(entry["shape"])) for entry in recipe)


def widened(model: bytes, recipe: Recipe) -> np.ndarray:
    """The bytes of the file the graph refers to: every int8 matrix of the pinned model
    times its scales, in float32, the multiplication ONNX Runtime does when it loads the
    pinned model itself."""
    file = np.zeros(file_size(recipe), dtype=np.uint8)
    weights = weights_in(file, recipe)
    for entry in recipe:
        weight, scales_shape = weights[entry["name"]], tuple(entry["scales_shape"])
        quantised = np.frombuffer(model, np.int8, weight.size, entry["int8_at"])
        scales = np.frombuffer(model, np.float32, int(np.prod(scales_shape)), entry["scales_at"])
        np.multiply(quantised.reshape(weight.shape), scales.reshape(scales_shape), out=weight)
    return file


def weights_in(file: np.ndarray, recipe: Recipe) -> dict[str, np.ndarray]:
    """Each weight, by name, as a view of the file's bytes (read-only if they are)."""
    weights = {}
    for entry in recipe:
        shape = tuple(entry["shape"])
        weight = file[entry["at"] : entry["at"] + 4 * int(np.prod(shape))].view(np.float32)
        weights[entry["name"]] = weight.reshape(shape)
    return weights


def weights_key(model_sha256: str, recipe: Recipe) -> dict[str, Any]:
    """What a weights file must have been made from to be used."""
    canonical = json.dumps(recipe, sort_keys=True).encode("utf-8")
    return {
        "format": FORMAT,
        "model": model_sha256,
        "recipe": hashlib.sha256(canonical).hexdigest(),
    }


def key_name(key: dict[str, Any]) -> str:
    canonical = json.dumps(key, sort_keys=True).encode("utf-8")
    return f"weights-{hashlib.blake2b(canonical, digest_size=8).hexdigest()}"


def mapped_weights(
    home: Path, model: bytes, model_sha256: str, recipe: Recipe
) -> np.ndarray | None:
    """The file's bytes, mapped read-only from its folder under ``home``: opened if it is
    there and whole, else written first. None (said in one log line) when it can be
    neither: the caller then widens the weights in its own memory."""
    key = weights_key(model_sha256, recipe)
    directory = home / key_name(key)
    return opened_or_written(
        directory,
        lambda: _opened(directory, key, recipe),
        lambda: _written(home, directory.name, key, model, recipe),
        what="model: weights file",
        instead="widening the weights in this process's memory",
        log=log,
    )


def _opened(directory: Path, key: dict[str, Any], recipe: Recipe) -> np.ndarray:
    if not (directory / MANIFEST).is_file():
        raise SnapshotRefused("none was written yet")
    reader = SnapshotReader(directory)
    if reader.meta.get("key") != key:
        raise SnapshotRefused("it holds the weights of another model")
    file = reader.array(_ARRAY)
    if file.dtype != np.uint8 or file.shape != (file_size(recipe),):
        raise SnapshotRefused(f"its array is {file.dtype} {file.shape}")
    return file


def _written(
    home: Path, name: str, key: dict[str, Any], model: bytes, recipe: Recipe
) -> np.ndarray:
    """Write the file, then map it as any other process does (the pages just written are in
    the page cache; the widened copy in this process's memory is dropped)."""
    writer = SnapshotWriter(home, name)
    try:
        writer.array(_ARRAY, widened(model, recipe))
        final = writer.commit({"key": key})
    except BaseException:
        writer.abandon()
        raise
    prune(home, final, "weights-*")
    return _opened(final, key, recipe)


def prune(home: Path, current: Path, pattern: str) -> None:
    """Keep ``current`` and the newest other folder of ``home`` matching ``pattern``; a
    process mapping one deleted keeps its pages until it closes."""
    others = [path for path in home.glob(pattern) if path != current]
    for old in sorted(others, key=_written_at, reverse=True)[KEEP - 1 :]:
        discard(old)


def _written_at(directory: Path) -> float:
    try:
        return (directory / MANIFEST).stat().st_mtime
    except OSError:  # another process took it away meanwhile
        return 0.0
