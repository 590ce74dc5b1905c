"""The paper of the day: subscriptions, rotation, the exactly-once post, the scheduler and
the ``digest`` command line.

Imports papers, search, render, the store and the clock; never ``bot.slack``'s app,
``bot.shell`` or ``handlers`` (it posts through whatever Web API client it is given).
"""
