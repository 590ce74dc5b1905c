"""Slack plumbing: app assembly and serving it over Socket Mode or HTTP (``app``), the Web API
client, Slack's payload shapes, and the helpers listeners use to reach Slack. ``app`` is the
only module that imports ``handlers``; ``bot.cli`` chooses the mode.
"""
