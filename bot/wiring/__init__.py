"""The composition root: where settings, store, index, digest and answers are wired, and
handed to the Slack adapter (``bot.slack``) and the shell.

The only package that imports ``handlers``: it asks ``bot.slack`` for the Bolt app and
registers the listeners on it, so imports run one way (``bot.cli`` -> ``bot.shell`` ->
``bot.wiring`` -> ``handlers`` -> ``bot.slack`` -> ``bot.answers`` ...).
"""
