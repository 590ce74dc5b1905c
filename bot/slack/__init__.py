"""Slack plumbing: app assembly, serving it over Socket Mode or HTTP, the Web API client and
Slack's payload shapes. The only part that imports ``handlers``; ``bot.cli`` chooses the mode.
"""
