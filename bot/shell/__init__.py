"""The local shell: turns typed lines into Slack's own requests for the same Bolt app and
answers them through a fake Web API that records what the bot posts.

Imports ``bot.slack`` to build the app; nothing imports the shell but the entry point.
"""
