"""Bots for the bidding games (north-american, south-bend, cut-throat).

They see a ``TableView`` only (own hand, calls, played cards) and answer a
move code. ``three-handed`` needs none of its own: its hands are two-player
hands, played by the two-player bots (``p2p66/runner/tables.py``).
"""

from p2p66.bots.table.api import TABLE_BOTS, TableBot, make_table_bot

__all__ = ["TABLE_BOTS", "TableBot", "make_table_bot"]
