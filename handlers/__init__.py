"""Slack listeners: thin adapters from Bolt requests to the core in `bot`."""
