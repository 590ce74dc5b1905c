"""Papers: the immutable ``Paper`` record and everything that turns files into papers.

Owns corpus loading (seed files and the catalogue), text cleaning and the card summaries
(display title, TL;DR). Knows nothing about search, Slack, the store or the digest; imports
only the standard library, its own modules and ``bot.settings`` for where the seeds live.
"""
