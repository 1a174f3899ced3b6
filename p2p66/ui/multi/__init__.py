"""The screens of the games for three and four players: the full screen and ``--plain``.

They read one ``SeatModel`` (``seat.py``): the table as one seat sees it.
The local table (``local.py``, bots and a referee in this process; its
session-peer form in ``p2p66.live.multi_peers``) and a network seat
(``p2p66.live.netseat``, one peer over the star) are both one.
"""
