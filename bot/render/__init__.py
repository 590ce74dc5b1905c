"""Rendering: pure functions from papers and search results to Slack messages (Block Kit,
with a plain-text fallback) and terminal text; ``mrkdwn`` holds the rules for Slack's markup.

Imports ``bot.papers`` and, of search, only the ``SearchIndex`` facade's result types; never
the store, Slack's clients or the listeners.
"""
