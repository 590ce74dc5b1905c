"""The model's graph as ONNX Runtime prepares it, saved once per host and mapped by every
process, its packed matrices included.

ONNX Runtime packs each matrix of the model into the layout its products read
("prepacking"), in each session's own memory: 48 MB a process that a second process on the
host held again, beside the weights file every process maps (``bot.search.model_weights``),
and the largest share of what a second process added at 100,000 papers with the model on
(issue 33: 1.36 times one process's PSS, against a bar of 1.25). ONNX Runtime can save the
graph it prepared with its initialisers, the packed copies included
(``session.save_external_prepacked_constant_initializers``), in a data file beside it; a
session opened from that graph maps the file and uses the packed copies as they are, so
every process of the host shares their pages. The vectors are the same, bit for bit
(``tests/test_prepacked.py``).

The packed layout depends on the ONNX Runtime release and on the CPU's instruction sets,
and the saved graph may hold optimisations for this CPU only: the key holds both, beside
the model's hash, the graph's and the weights' recipe, so that another host or release
never uses the file (its own key names another folder, written on its first start). The
folder is a snapshot (``bot.search.snapshot_files``): written under a temporary name,
renamed into place, its files checksummed before they are used; one that is missing,
damaged or made for another key is written again, said in one log line, and where none can
be written the caller opens the graph as before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.search.model_weights import Recipe, key_name, prune, weights_key
from bot.search.snapshot_files import (
    MANIFEST,
    SnapshotReader,
    SnapshotRefused,
    SnapshotWriter,
    opened_or_written,
)

log = logging.getLogger(__name__)

FORMAT = 1
"""How the folder is laid out: bump it with any change to what is saved."""
GRAPH = "model.onnx"
DATA = "model.bin"
"""The saved graph's initialisers, its packed matrices among them (the graph names it)."""
PREFIX = "prepacked-"
_CPU_FIELDS = ("vendor_id", "model name", "flags", "CPU implementer", "CPU part", "Features")


def cpu_signature() -> str:
    """What the packed layout may depend on: the machine's architecture and its first CPU's
    model and instruction sets, as Linux lists them (the architecture alone elsewhere)."""
    fields = {"machine": platform.machine()}
    try:
        first = Path("/proc/cpuinfo").read_text(encoding="utf-8").split("\n\n")[0]
    except OSError:
        first = ""
    for line in first.splitlines():
        name, _, value = line.partition(":")
        if name.strip() in _CPU_FIELDS:
            fields[name.strip()] = " ".join(sorted(value.split()))
    canonical = json.dumps(fields, sort_keys=True).encode("utf-8")
    return hashlib.sha256(canonical).hexdigest()


def prepacked_key(
    model_sha256: str, recipe: Recipe, graph: bytes, runtime_version: str
) -> dict[str, Any]:
    """What a saved graph must have been made from, and on, to be used."""
    return {
        **weights_key(model_sha256, recipe),
        "prepacked": FORMAT,
        "graph": hashlib.sha256(graph).hexdigest(),
        "onnxruntime": runtime_version,
        "cpu": cpu_signature(),
    }


def prepacked_graph(home: Path, key: dict[str, Any], save: Callable[[Path], None]) -> Path | None:
    """The saved graph's path under ``home``: opened if it is there, whole and of ``key``,
    else saved first by ``save`` (which opens a session that writes ``GRAPH`` and ``DATA``
    into the folder it is given). None, said in one log line, when it can be neither."""
    directory = home / f"{PREFIX}{key_name(key)}"
    return opened_or_written(
        directory,
        lambda: _opened(directory, key),
        lambda: _saved(home, directory.name, key, save),
        what="model: prepacked graph",
        instead="packing the matrices in this process's memory",
        log=log,
        write_errors=(Exception,),  # the disk's errors, and onnxruntime's own exception types
    )


def _saved(home: Path, name: str, key: dict[str, Any], save: Callable[[Path], None]) -> Path:
    writer = SnapshotWriter(home, name)
    try:
        save(writer.directory)
        final = writer.commit({"key": key})
    except BaseException:
        writer.abandon()
        raise
    prune(home, final, f"{PREFIX}*")
    return _opened(final, key)


def _opened(directory: Path, key: dict[str, Any]) -> Path:
    if not (directory / MANIFEST).is_file():
        raise SnapshotRefused("none was saved yet")
    reader = SnapshotReader(directory)
    if reader.meta.get("key") != key:
        raise SnapshotRefused("it was made for another model, ONNX Runtime or CPU")
    for name in (GRAPH, DATA):
        reader.mapped(name)  # checksummed; ONNX Runtime maps it again itself
    return directory / GRAPH
