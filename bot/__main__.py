import os
import sys

# Before numpy loads OpenBLAS: its threads spin on every matrix-vector product of the
# semantic re-ranking (a few hundred microseconds each), which on a small machine serving
# dozens of listener threads more than doubled a search's CPU (12.7 against 5.2 ms); one
# thread computes each cosine the same way, so rankings are bit-identical.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from bot.cli import main

sys.exit(main())
