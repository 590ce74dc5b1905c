"""Search: from a query string to ranked papers.

Owns the analyzer, query parsing, spelling correction, the BM25Okapi index (``bm25``), the
pruned ranking for large corpora (``pruned``), the semantic re-ranking, the search facade
(``engine``) and the ``search`` command line. Imports ``bot.papers`` and nothing from
``bot.slack``, ``bot.shell``, ``bot.digest``, ``bot.store`` or ``handlers``.
"""
