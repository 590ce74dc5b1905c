"""Rendering: pure functions from papers and search results to Slack messages (Block Kit,
with a plain-text fallback) and terminal text; ``mrkdwn`` holds the rules for Slack's markup.

Imports ``bot.papers`` and, of search, only its results module (``bot.search.results``); never
the store, Slack's clients or the listeners.
"""
