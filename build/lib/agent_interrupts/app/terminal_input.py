"""Read lines from the terminal without a thread, so an open prompt can be cancelled."""

from __future__ import annotations

import asyncio
import os
import sys


class LineReader:
    """Lines of a file descriptor (stdin by default) through the event loop's reader."""

    def __init__(self, fd: int | None = None) -> None:
        self._fd = sys.stdin.fileno() if fd is None else fd
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._buffer = b""
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._fd, self._on_ready)

    def _on_ready(self) -> None:
        try:
            data = os.read(self._fd, 4096)
        except OSError:
            data = b""
        if not data:
            self.close()
            self._lines.put_nowait(None)
            return
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._lines.put_nowait(line.decode(errors="replace").rstrip("\r"))

    async def read(self, prompt: str) -> str:
        """Print ``prompt`` and wait for the next line; EOFError when input has ended."""
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = await self._lines.get()
        if line is None:
            self._lines.put_nowait(None)
            raise EOFError
        return line

    def close(self) -> None:
        self._loop.remove_reader(self._fd)
