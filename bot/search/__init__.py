"""Search: from a query string to ranked papers, and the reasons to tell about them.

The parts, each with explicit inputs: the analyzer and spelling (``analyzer``, and the typo
corrector over a deletion map a snapshot saves, ``spelling``), the query language (``query``,
over the operator table in ``results``),
the BM25Okapi index (``bm25``, built by ``indexing``) and its pruned ranking for large corpora
(``pruned``), the author index (``authors``), the planner (``planner``: a parsed query → a
``plan``), the ranker (``ranker``) with the semantic re-ranking (``semantic``, ``embedding``,
``vectors``), the explanations (``explanations``: reasons, never sentences), and the facade
that composes them (``engine.SearchIndex``). Renderers read only ``results``. The commands
are ``cli`` (``python -m bot search``) and ``embed_cli`` (``python -m bot embed``). Imports
``bot.papers`` and nothing from ``bot.slack``, ``bot.shell``, ``bot.digest``, ``bot.store``,
``bot.render`` or ``handlers``.
"""
