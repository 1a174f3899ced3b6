"""External bots: a child process speaking newline-delimited JSON (``protocol/BOT.md``).

``BotProcess`` is the pipe: it starts the command, writes one JSON object
per line to its stdin, and reads its stdout on a thread so every read can
time out. ``ExternalBot`` is the ``Bot`` on top: hello/ready, new_game,
request/action, hand_end, quit. Every way a bot can misbehave becomes a
``BotFault`` naming the kind (timeout, crash, protocol) and what happened,
which the runner turns into a forfeit.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from p2p66.bots.api import Action, Bot, BotFault, Turn
from p2p66.bots.wire import ENGINE, NOTATION_TO_CODE, PROTOCOL, request_json, view_json
from p2p66.engine.moves import MOVES
from p2p66.engine.options import RuleOptions, preset_name
from p2p66.engine.view import PlayerView

MAX_LINE = 1 << 16
STARTUP_TIMEOUT = 10.0
UNLIMITED_MOVE_CAP = 60.0  # a bot with no time limit still may not hang the run forever
QUIT_GRACE = 2.0  # BOT.md: a bot exits within 2 s of quit
SPAWN_WAIT = 10.0  # how long a kill waits for a start under way (a fork and exec)
_EOF = object()


class BotProcess:
    """One running bot command with line-oriented JSON I/O and timeouts."""

    def __init__(self, command: Sequence[str], stderr: Path | None = None) -> None:
        self.command = tuple(command)
        self._stderr_path = stderr
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr_file: IO[bytes] | None = None
        self._spawned: threading.Event | None = None
        """Set once a start under way has its process (or its error)."""
        self._spawn_error: OSError | None = None

    @property
    def started(self) -> bool:
        return self._proc is not None

    def start(self) -> None:
        if self._stderr_path is not None:
            self._stderr_file = self._stderr_path.open("ab")
        # Popen runs in a thread of its own, which records the process itself: a signal
        # (a run stopped by SIGTERM or Ctrl-C) reaches only the main thread, and there its
        # handler could strike inside Popen after the fork, losing the pid of a bot that
        # nobody could then stop. Here it strikes while we wait, and ``kill`` (from that
        # handler or after it) waits for the start under way, so it kills that bot too.
        self._spawn_error = None
        self._spawned = spawned = threading.Event()
        threading.Thread(target=self._spawn, args=(spawned,), daemon=True).start()
        try:
            spawned.wait()
        finally:
            spawned.wait()
        if self._spawn_error is not None:
            cause = self._spawn_error
            raise BotFault("crash", f"cannot start {' '.join(self.command)!r}: {cause}")
        assert self._proc is not None
        threading.Thread(target=self._read, args=(self._proc,), daemon=True).start()

    def _spawn(self, done: threading.Event) -> None:
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr_file or subprocess.DEVNULL,
                # its own process group: killing the bot kills what it started, and a
                # Ctrl-C at the terminal reaches the runner only (which then stops it).
                # Not its own session: under Linux's autogroup scheduling a new session
                # is a new CPU group, so a loaded machine gave a served bot a whole
                # group's share while an in-process bot shared the runner's (about
                # half the search at equal time; see sched_autogroup).
                process_group=0 if os.name == "posix" else None,
            )
        except OSError as exc:
            self._spawn_error = exc
        finally:
            done.set()

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        try:
            while True:
                line = proc.stdout.readline(MAX_LINE)
                if not line:
                    break
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(_EOF)

    def send(self, message: dict[str, Any]) -> None:
        """Write one message; a closed pipe means the bot died."""
        if self._proc is None:
            self.start()
        assert self._proc is not None and self._proc.stdin is not None
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        try:
            self._proc.stdin.write(data)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise BotFault("crash", f"the bot exited{self._exit_note()}") from None

    def receive(self, timeout: float) -> dict[str, Any]:
        """The next JSON object the bot writes, within ``timeout`` seconds."""
        try:
            item = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise BotFault("timeout", f"no answer within {timeout:.3f}s{self.log_note()}") from None
        if item is _EOF:
            raise BotFault("crash", f"the bot closed its output{self._exit_note()}")
        assert isinstance(item, bytes)
        if not item.endswith(b"\n") and len(item) >= MAX_LINE:
            raise BotFault("protocol", f"a line longer than {MAX_LINE} bytes")
        text = item.decode("utf-8", errors="replace").strip()
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            raise BotFault("protocol", f"not JSON: {text[:120]!r}{self.log_note()}") from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise BotFault("protocol", f"not a message object with a type: {text[:120]!r}")
        return message

    def _exit_note(self) -> str:
        if self._proc is None:
            return ""
        try:
            code = self._proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return self.log_note()
        return f" (exit code {code}){self.log_note()}"

    def close_input(self) -> None:
        """Close the bot's stdin (it must then exit: how a bot sees its runner die)."""
        if self._proc is not None and self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()

    def log_note(self) -> str:
        """Where the bot's stderr went, for a fault message ('' when it was discarded)."""
        return f"; its stderr is in {self._stderr_path}" if self._stderr_path else ""

    def kill(self) -> None:
        """SIGKILL the bot's whole process group now (a run being stopped), the one being
        started too."""
        if self._spawned is not None:
            self._spawned.wait(SPAWN_WAIT)
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        if os.name == "posix":
            kill_group(proc.pid)
        else:
            proc.kill()

    def stop(self, grace: float = QUIT_GRACE) -> int | None:
        """Ask the bot to quit, then make sure it is gone; returns its exit code."""
        proc = self._proc
        if proc is None:
            return None
        try:
            if proc.poll() is None:
                self.send({"type": "quit"})
        except BotFault:
            pass
        try:
            code = proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()
            code = proc.wait()
        if os.name == "posix":  # whatever the bot started goes with it
            kill_group(proc.pid)
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                # closing flushes what a dead bot never read: a broken pipe is no news here
                with contextlib.suppress(OSError):
                    pipe.close()
        if self._stderr_file is not None:
            self._stderr_file.close()
        return code

    def exited_by_itself(self) -> bool:
        return self._proc is not None and self._proc.poll() is not None


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (a bot and whatever it started)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class ExternalBot(Bot):
    """A bot in another process; one instance plays one game."""

    def __init__(
        self,
        command: Sequence[str],
        rules: RuleOptions,
        *,
        name: str | None = None,
        margin: float = 0.05,
        stderr: Path | None = None,
        startup_timeout: float = STARTUP_TIMEOUT,
    ) -> None:
        self.process = BotProcess(command, stderr)
        self.rules = rules
        self.name = name or " ".join(command)
        self.margin = margin
        self.startup_timeout = startup_timeout
        self.hello: dict[str, Any] | None = None
        self._in_game = False
        self._next_id = 1

    def handshake(self) -> dict[str, Any]:
        """Send hello, wait for ready; returns the ready message (name, author)."""
        if self.hello is None:
            self.hello = handshake(self.process, self.startup_timeout)
        return self.hello

    def start_game(self, seat: int, rules: RuleOptions) -> None:
        """Start the process if needed, shake hands, announce the game (off the clock)."""
        self.handshake()
        self.rules = rules
        self.process.send(
            {
                "type": "new_game",
                "seat": seat,
                "preset": preset_name(rules),
                "rules": rules.to_dict(),
            }
        )
        self._in_game = True

    def choose(self, turn: Turn) -> Action:
        if not self._in_game:
            self.start_game(turn.seat, turn.view.options)
        request_id = self._next_id
        self._next_id += 1
        self.process.send(request_json(turn, request_id, self.margin))
        limit = turn.time_limit if turn.time_limit is not None else UNLIMITED_MOVE_CAP
        deadline = time.monotonic() + limit + self.margin
        while True:
            message = self.process.receive(deadline - time.monotonic())
            if message["type"] == "action":
                return parse_action(message, request_id)

    def end_hand(self, view: PlayerView) -> None:
        if self._in_game:
            self.process.send({"type": "hand_end", "view": view_json(view)})

    def close(self) -> None:
        self.process.stop()

    def kill(self) -> None:
        self.process.kill()


def handshake(process: BotProcess, timeout: float) -> dict[str, Any]:
    """Send hello and wait up to ``timeout`` seconds for ready (other messages are skipped)."""
    process.send({"type": "hello", "protocol": PROTOCOL, "engine": ENGINE})
    deadline = time.monotonic() + timeout
    while True:
        message = process.receive(deadline - time.monotonic())
        if message["type"] == "ready":
            return message


def parse_action(message: dict[str, Any], request_id: int) -> Action:
    """Check an ``action`` message against the request it answers."""
    if message.get("id") != request_id:
        raise BotFault(
            "protocol", f"action answers request {message.get('id')!r}, expected {request_id}"
        )
    text = message.get("move")
    if not isinstance(text, str) or text not in NOTATION_TO_CODE:
        raise BotFault("protocol", f"move {text!r} is not in RULES.md notation (e.g. 'play:TH')")
    info = message.get("info", {})
    if not isinstance(info, dict):
        raise BotFault("protocol", f"info must be an object, not {info!r}")
    clean = {str(k): v for k, v in info.items() if isinstance(v, str | int | float | bool)}
    return Action(MOVES[NOTATION_TO_CODE[text]], clean)
