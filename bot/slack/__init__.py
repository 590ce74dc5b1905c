"""Slack plumbing: app assembly, the three run modes, the Web API client and Slack's payload
shapes. The only part that imports ``handlers``, and the only place where modes differ.
"""
