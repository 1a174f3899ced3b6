"""The match runner: bots against bots with trustworthy statistics (``p2p66 match``).

``run.run(RunConfig)`` plays the games (``game.play_game`` referees one),
``records`` is the NDJSON results format, ``stats`` the Elo summary and
``gsprt`` the pentanomial SPRT, ``deals`` and ``dealbook`` the decks and
deal books, ``transport`` in-process or loopback play, ``cluster`` a Dask
cluster instead of local processes, ``reaper`` stopping everything a run
started, ``gamerecord`` the text record of every game, ``tournament`` and
``ratings`` many bots and their Bradley-Terry Elo, and ``check`` the
compliance check of external bots.
"""
