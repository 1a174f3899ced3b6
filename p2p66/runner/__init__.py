"""The match runner: bots against bots with trustworthy statistics (``p2p66 match``).

``run.run(RunConfig)`` plays the games (``game.play_game`` referees one),
``records`` is the NDJSON results format, ``stats`` the Elo/SPRT arithmetic,
``deals`` the seeded decks, ``transport`` in-process or loopback play, and
``check`` the compliance check of external bots.
"""
