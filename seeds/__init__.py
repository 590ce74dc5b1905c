"""The papers the bot ships with: the seed abstracts (``*.txt``), the ICLR 2025 catalogue
(``iclr2025.jsonl``, described in ``SOURCE.md``) and its precomputed vectors.

Data only, no code: a package so that the same import finds the files in a checkout and in
an installed wheel (``importlib.resources``). Refreshed by copying the shared copy over it.
"""
