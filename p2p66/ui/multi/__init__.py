"""Playing the games for three and four players at a local table: you and bots.

A clearly local table, for now: every seat but yours is a bot in this
process and the deck is shuffled here (``random.Random(seed)``), not dealt
by mental poker between peers. The next step replaces ``LocalMultiTable``
with the N-party network table; the screens only see its interface.
"""
