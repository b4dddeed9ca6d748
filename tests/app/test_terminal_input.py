"""The async line reader behind interactive prompts: lines, EOF, and a prompt that is cancelled."""

from __future__ import annotations

import asyncio
import os

import pytest

from agent_interrupts.app.terminal_input import LineReader


async def test_lines_arrive_and_a_pending_prompt_can_be_cancelled() -> None:
    read_end, write_end = os.pipe()
    reader = LineReader(read_end)
    try:
        os.write(write_end, b"first\r\nsec")
        assert await reader.read("> ") == "first"
        pending = asyncio.create_task(reader.read("> "))
        await asyncio.sleep(0)
        pending.cancel()  # what "answered elsewhere" does to an open prompt
        with pytest.raises(asyncio.CancelledError):
            await pending
        os.write(write_end, b"ond\n")
        assert await reader.read("> ") == "second", "a cancelled prompt loses no input"
        os.close(write_end)
        with pytest.raises(EOFError):
            await reader.read("> ")
    finally:
        reader.close()
        os.close(read_end)
