"""``p2p66 play`` for real: the bot is a second peer over a loopback TCP connection.

The player hosts on 127.0.0.1 (a fresh port and join code), the bot joins
with that code through the same SPAKE2 handshake and encrypted channel as a
remote player would, both run the full protocol with mental poker, and the
player's replay is written as the game runs and verified at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from p2p66.crypto.config import DEFAULT_SOUNDNESS
from p2p66.crypto.handkeys import Rng, system_rng
from p2p66.engine.options import preset_label
from p2p66.live.derived import derived_identity, derived_rng
from p2p66.live.game import LiveGame, LiveGameError
from p2p66.live.table import NetworkTable, bot_decider
from p2p66.net import Identity, Listener, generate_words, join
from p2p66.net.identity import distinct_names, load_or_create_identity, replays_dir
from p2p66.replay.fileio import ReplayWriter
from p2p66.replay.verify import verify_file
from p2p66.session.peer import Peer, Signer
from p2p66.ui.bots import make_table_bot
from p2p66.ui.launch import PlaySettings, bot_label
from p2p66.ui.table import Table


def signer_of(identity: Identity) -> Signer:
    return Signer(identity.name, identity.public_key, identity.sign)


def seeded_rng(seed: int, stream: int) -> Rng:
    """Deterministic peer randomness for a given ``--seed`` (tests, reproducible games)."""
    r = random.Random(seed * 1_000_003 + stream)
    return r.randbytes


def replay_path(options_name: str | None, directory: Path | None = None) -> Path:
    """Where a new replay goes: ``<data dir>/replays/<date>-<time>-<preset>.p66``."""
    folder = directory or replays_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = folder / f"{stamp}-{options_name or 'custom'}"
    path = base.with_suffix(".p66")
    n = 1
    while path.exists():
        n += 1
        path = Path(f"{base}-{n}.p66")
    return path


VerifyFn = Callable[[Path, int | None], str]


def default_verify(path: Path, seat: int | None) -> str:
    """The verdict on a finished replay, by the same verifier as ``p2p66 verify``, told to
    the player at ``seat`` ("you win the match"); ``None``: to nobody in particular."""
    report = verify_file(path).report
    if seat is not None:
        report = report.seen_by(seat)
    return f"Replay saved to {path}.\nVerified: {report.headline()}."


def _seats(
    settings: PlaySettings, bot_name: str, deterministic: bool
) -> tuple[Identity, Identity, tuple[Rng, Rng]]:
    """Both seats' identities and randomness.

    A seed the player chose (``settings.seeded``) or a test (``deterministic``)
    derives every secret of both seats from the seed, as the match runner does,
    so the same seed and rules deal the same cards on any computer; the player
    keeps their name but plays under the seed's key. Otherwise the player is
    their own identity and both draw from the OS.
    """
    mine = load_or_create_identity()
    name = settings.name or mine.name
    if settings.seeded or deterministic:
        key = f"play:{settings.seed}"
        seats = (derived_identity(name, key, 0), derived_identity(bot_name, key, 1))
        return (*seats, (derived_rng(key, 0), derived_rng(key, 1)))
    me = Identity(name, mine.private_key)
    return me, Identity.generate(bot_name), (system_rng, system_rng)


@asynccontextmanager
async def loopback_table(
    settings: PlaySettings,
    *,
    soundness: int = DEFAULT_SOUNDNESS,
    replay_dir: Path | None = None,
    deterministic: bool = False,
    verify: VerifyFn | None = default_verify,
) -> AsyncIterator[Table]:
    """A match against ``settings.bot`` as a real peer over loopback TCP."""
    bot_name = bot_label(settings.bot)
    me, bot_id, (host_rng, bot_rng) = _seats(settings, bot_name[:32], deterministic)
    host_peer = Peer(0, signer_of(me), options=settings.options, soundness=soundness, rng=host_rng)
    bot_peer = Peer(1, signer_of(bot_id), rng=bot_rng)
    path = replay_path(preset_label(settings.options), replay_dir)
    writer = ReplayWriter(path)
    table = NetworkTable(host_peer, distinct_names(me.public, bot_id.public), path)
    table.verify = verify
    table.local = True
    listener = await Listener.open(
        me,
        words=generate_words(random.Random(settings.seed)),
        bind="127.0.0.1",
        port=0,
        allow_known=False,
    )
    code = listener.join_code("127.0.0.1")
    game = LiveGame(
        host_peer, table.decide, writer=writer, on_event=table.on_event, on_status=table.on_status
    )
    bot = make_table_bot(settings.bot, settings.seed, settings.options)
    bot_game = LiveGame(bot_peer, bot_decider(bot_peer, bot, settings.bot_delay))

    async def bot_side() -> None:
        channel = await join(code, bot_id)
        with contextlib.suppress(LiveGameError):
            await bot_game.run(channel)

    bot_task = asyncio.create_task(bot_side())
    table.task = asyncio.create_task(table.run(game, lambda: listener.accept(timeout=30)))
    try:
        yield table
    finally:
        for task in (table.task, bot_task):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        bot.close()
        await listener.aclose()
        writer.close()
