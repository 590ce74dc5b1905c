"""The local shell: turns typed lines into Slack's own requests for the same Bolt app and
answers them through a fake Web API that records what the bot posts.

Builds the app through the composition root (``bot.wiring``) and speaks Slack's shapes with
``bot.slack.payloads``; nothing imports the shell but the entry point.
"""
