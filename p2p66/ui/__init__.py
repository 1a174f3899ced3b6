"""The player's side: tables, the terminal screen, ``--plain`` narration, settings.

Layers inside: ``table`` (what the UI consumes), ``screen``/``narrate``/``render``
(pure: events and views to text), ``entry``/``explain`` (pure: typed text to
moves and reasons), then ``terminal`` and ``plain`` (the only I/O), with
``local_table`` and ``launch`` wiring a bot match together.
"""
