"""paperbot: find and discuss ICLR 2025 papers from Slack.

One OpenBLAS thread, set here so that every way in (``python -m bot``, the ``paperbot``
script, the benchmarks) gets it before numpy loads OpenBLAS, which reads it only then: its
threads spin on every matrix-vector product of the semantic re-ranking (a few hundred
microseconds each), which on a small machine serving dozens of listener threads more than
doubled a search's CPU (12.7 against 5.2 ms); one thread computes each cosine the same way,
so rankings are bit-identical. An operator's own ``OPENBLAS_NUM_THREADS`` wins.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
