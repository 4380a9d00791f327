"""A person at a terminal: the program under a pseudo-terminal, read and typed into."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

from helpers.cli import LIMIT, command, env


class Terminal:
    """``truc-p2p`` on the slave side of a pty; we read and type on the master side."""

    def __init__(self, tmp_path: Path, *args: str, columns: int | None = None) -> None:
        master, slave = pty.openpty()
        self.master = master
        sizes = {"COLUMNS": "80", "LINES": "40"}
        if columns is not None:  # the terminal's own size, as a window has it (no $COLUMNS)
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
            sizes = {}
        child_env = {k: v for k, v in env(tmp_path).items() if k not in ("COLUMNS", "LINES")}
        self.proc = subprocess.Popen(
            command(*args),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**child_env, **sizes},
            cwd=tmp_path,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = ""
        #: Where the last match ended: the next read starts there.
        self.pos = 0

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def read_until(self, pattern: str, timeout: float = LIMIT) -> str:
        """Everything shown until ``pattern`` (a regex) appears after what was already read."""
        start = self.pos
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.seen[start:]):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in:\n{self.seen[start:][-3000:]}"
            ready, _w, _x = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    assert re.search(pattern, self.seen[start:]), self.seen[start:][-3000:]
                    break
                self.seen += chunk.decode(errors="replace").replace("\r\n", "\n")
        match = re.search(pattern, self.seen[start:])
        self.pos = start + (match.end() if match else len(self.seen) - start)
        return self.seen[start : self.pos]

    def close(self) -> int:
        try:
            status = self.proc.wait(timeout=LIMIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            os.close(self.master)
        return status


def any_move(screen: str) -> str:
    """A key the last screen offers: a card, else decline a redeal, else accept."""
    last = screen[screen.rfind("your move (") :]
    for key in ("1", "n", "a"):
        if f"[{key}" in last:
            return key
    raise AssertionError(f"no move offered in:\n{last}")
