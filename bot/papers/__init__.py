"""Papers: the immutable ``Paper`` record and everything that turns files into papers.

Owns corpus loading (seed files and the catalogue), text cleaning, acronym matching, the card
summaries (display title, TL;DR) and the bundled papers in ``data/`` (package data). Knows
nothing about search, Slack, the store or the digest; imports only its own modules and
``bot.settings`` (a corpus that cannot load is a start-up error).
"""
