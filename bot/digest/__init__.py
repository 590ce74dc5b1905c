"""The paper of the day: ``subscriptions`` (parsing, time zones), ``channels`` (who
subscribes, to what), ``rotation`` (which paper), ``posting`` (exactly once), ``replies`` (the
``/paper`` commands), ``service`` (the facade over them), ``owner`` (which process holds a
claim), ``schedule`` and the ``digest`` command line (``cli``).

Imports papers, search, render, the store, the clock and ``bot.slack.delivery`` (the bot's one
retry policy and "did my post land?" check); never ``bot.slack``, ``bot.shell`` or
``handlers`` (it posts through whatever Web API client it is given).
"""
