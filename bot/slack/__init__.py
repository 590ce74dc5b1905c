"""The Slack adapter: the Bolt app and serving it over Socket Mode or HTTP (``app``), the
rules that pick a mode (``modes``), the Web API client (``client``), Slack's payload shapes,
the request gate, and the helpers listeners use to reach Slack. It never imports
``handlers``: the composition root (``bot.wiring``) registers them on the app built here.
"""
