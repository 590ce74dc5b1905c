"""The files of a saved index: written whole or not at all, read only once checked.

A snapshot is a directory of plain files (numpy ``.npy`` arrays, JSON, UTF-8 text) and a
``manifest.json`` naming each file with its size and its SHA-256 checksum; the manifest
carries the checksum of its own body too. A directory is written under a temporary name and
renamed into place in one step (``SnapshotWriter.commit``), so a process that stops half way
leaves a directory no reader looks at, never a partial snapshot under a real name.

**What is checked when a snapshot is opened** (``SnapshotReader``): the manifest's own
checksum, that every file it names is there with exactly its size, and every file's
checksum as it is read (a JSON file) or before it is mapped (an array, the papers' lines),
unless ``verify`` is off. SHA-256 runs at 1.65 GB/s on a core with the SHA extensions
(x86-64 since about 2017, ARMv8), against BLAKE2b's 0.67 GB/s on the same core, which these
checksums were before (at those rates, 0.26 s of CPU for the 434 MB of a 100,000-paper
snapshot with its vectors, against 0.65 s); and the same pass brings the pages into the
page cache, which the first searches need anyway. Checking sizes alone at open and checksums
in the background would save that fraction of a second and answer from unchecked bytes
meanwhile. A truncated file fails on its size, a flipped byte on its checksum, and either
way the snapshot is refused (``SnapshotRefused``), never used.
"""

from __future__ import annotations

import hashlib
import json
import logging
import mmap
import os
import secrets
import shutil
from array import array
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

MANIFEST = "manifest.json"
_T = TypeVar("_T")
_CHUNK = 1 << 23  # bytes hashed at a time


class SnapshotRefused(Exception):
    """A snapshot that must not be used; the message says why, for the one log line."""


class SnapshotMissing(SnapshotRefused):
    """No snapshot has the key asked for: none was saved yet, or only by other rules, of
    another corpus or model (the usual first start after an upgrade, nothing damaged)."""


def checksum(path: Path) -> str:
    """The SHA-256 digest of a file's bytes (hashlib releases the GIL while it hashes, so a
    verification does not hold searches up; SHA-256 runs at 1.65 GB/s on this CPU against
    BLAKE2b's 0.67). The buffer is mapped apart and unmapped after: from the heap, its pages
    would stay the process's own once freed (8 MB of every opened process, as ``malloc``
    keeps a freed block of that size)."""
    digest = hashlib.sha256()
    opened = path.open("rb", buffering=0)
    with mmap.mmap(-1, _CHUNK) as buffer, memoryview(buffer) as view, opened as file:
        while read := file.readinto(view):
            digest.update(view[:read])
    return digest.hexdigest()


def _body_checksum(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(canonical).hexdigest()


class SnapshotWriter:
    """Collects a snapshot's files in a temporary directory beside its final place."""

    def __init__(self, root: Path, name: str) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.final = root / name
        self.directory = root / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.partial"
        self.directory.mkdir()

    def array(self, name: str, values: np.ndarray) -> None:
        np.save(self.directory / f"{name}.npy", np.ascontiguousarray(values), allow_pickle=False)

    def json(self, name: str, value: object) -> None:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        (self.directory / f"{name}.json").write_text(text, encoding="utf-8")

    def lines(self, name: str, lines: Iterable[str]) -> np.ndarray:
        """Lines of UTF-8 text, each ending in a newline; where each begins, in bytes, and
        where the last ends (``SnapshotReader.mapped`` maps the bytes)."""
        starts = array("q", [0])
        with (self.directory / name).open("wb") as out:
            for line in lines:
                encoded = line.encode("utf-8") + b"\n"
                out.write(encoded)
                starts.append(starts[-1] + len(encoded))
        return np.frombuffer(starts, dtype=np.int64)

    def commit(self, meta: dict[str, Any]) -> Path:
        """Checksum every file, write the manifest, and rename the directory into place; a
        snapshot of the same name put there meanwhile by another process is kept and this
        one dropped (same name: same key, same index). Returns the final directory."""
        files = {
            path.name: {"size": path.stat().st_size, "sha256": checksum(path)}
            for path in sorted(self.directory.iterdir())
        }
        body = {"meta": meta, "files": files}
        manifest = {"body": body, "sha256": _body_checksum(body)}
        with (self.directory / MANIFEST).open("w", encoding="utf-8") as out:
            json.dump(manifest, out, ensure_ascii=False)
            out.flush()
            os.fsync(out.fileno())
        for path in self.directory.iterdir():  # data on disk before the name points at it
            with path.open("rb") as file:
                os.fsync(file.fileno())
        try:
            os.rename(self.directory, self.final)
        except OSError:
            if not (self.final / MANIFEST).is_file():
                self.abandon()
                raise
            self.abandon()
        return self.final

    def abandon(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def discard(directory: Path) -> None:
    """Take a refused snapshot out of the way: renamed first (one step, so no reader opens it
    again), then deleted. Processes that mapped its files keep their pages until they close."""
    if not directory.exists():
        return
    gone = directory.with_name(f".{directory.name}.{secrets.token_hex(4)}.discarded")
    try:
        os.rename(directory, gone)
    except OSError:
        return  # another process took it away first
    shutil.rmtree(gone, ignore_errors=True)


def opened_or_written(
    directory: Path,
    opened: Callable[[], _T],
    written: Callable[[], _T],
    *,
    what: str,
    instead: str,
    log: logging.Logger,
    write_errors: tuple[type[BaseException], ...] = (OSError,),
) -> _T | None:
    """A folder every process of a host shares (the model's weights, its packed graph, the
    lexicon): ``opened`` if it is there, whole and of the right key (else it raises
    ``SnapshotRefused``), or else discarded and ``written`` once for all of them. None when it
    can be neither, and the caller does ``instead`` in its own memory; either way one log
    line says why the folder was not used, a warning where a damaged one was found."""
    try:
        return opened()
    except SnapshotRefused as refused:
        reason, damaged = str(refused), directory.exists()
    discard(directory)
    try:
        value = written()
    except (SnapshotRefused, *write_errors) as error:
        log.warning(
            "%s not used (%s) and cannot be written in %s (%s): %s",
            what,
            reason,
            directory.parent,
            error,
            instead,
        )
        return None
    log.log(
        logging.WARNING if damaged else logging.INFO,
        "%s not used (%s): written in %s, for every process of this host",
        what,
        reason,
        directory,
    )
    return value


class SnapshotReader:
    """An existing snapshot, its manifest and file sizes checked (``SnapshotRefused`` if
    any is wrong); files are checksummed as they are read."""

    def __init__(self, directory: Path, *, verify: bool = True) -> None:
        self.directory = directory
        self._verify = verify
        try:
            manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
            body, recorded = manifest["body"], manifest["sha256"]
            self._files: dict[str, dict[str, Any]] = body["files"]
            self.meta: dict[str, Any] = body["meta"]
        except FileNotFoundError:
            raise SnapshotRefused("it has no manifest") from None
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise SnapshotRefused(f"its manifest cannot be read ({error})") from None
        if _body_checksum(body) != recorded:
            raise SnapshotRefused("its manifest does not match its checksum")
        for name, entry in self._files.items():
            try:
                size = (directory / name).stat().st_size
            except OSError:
                raise SnapshotRefused(f"{name} is missing") from None
            if size != entry["size"]:
                raise SnapshotRefused(
                    f"{name} is {size:,} bytes where {entry['size']:,} were written"
                )

    def _path(self, name: str) -> Path:
        if name not in self._files:
            raise SnapshotRefused(f"{name} is not in its manifest")
        return self.directory / name

    def _verified(self, name: str) -> Path:
        """A file to be mapped, its checksum compared first (unless ``verify`` is off)."""
        path = self._path(name)
        if self._verify and checksum(path) != self._files[name]["sha256"]:
            raise SnapshotRefused(f"{name} does not match its checksum")
        return path

    def _checked(self, name: str, data: bytes) -> bytes:
        if hashlib.sha256(data).hexdigest() != self._files[name]["sha256"]:
            raise SnapshotRefused(f"{name} does not match its checksum")
        return data

    def array(self, name: str, *, writable: bool = False) -> np.ndarray:
        """A memory-mapped array, its pages shared with every process that maps the same
        file; ``writable`` maps it copy-on-write (a page written becomes this process's
        own), else writing raises."""
        path = self._verified(f"{name}.npy")
        try:
            mapped = np.load(path, mmap_mode="c" if writable else "r", allow_pickle=False)
            return mapped.view(np.ndarray)  # its slices plain views, without memmap's baggage
        except ValueError as error:
            if "empty" not in str(error):  # an empty array: nothing to map
                raise SnapshotRefused(f"{path.name} cannot be read ({error})") from None
            return np.load(path, allow_pickle=False)

    def mapped(self, name: str) -> np.ndarray:
        """A file's bytes, memory-mapped read-only (checksummed first unless ``verify`` is
        off, as arrays are)."""
        path = self._verified(name)
        if not self._files[name]["size"]:
            return np.zeros(0, dtype=np.uint8)
        return np.memmap(path, dtype=np.uint8, mode="r").view(np.ndarray)

    def json(self, name: str) -> Any:
        path = self._path(f"{name}.json")
        return json.loads(self._checked(path.name, path.read_bytes()).decode("utf-8"))
