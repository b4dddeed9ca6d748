"""Leave a command-line process without interpreter teardown.

The Temporal client's Rust bridge keeps threads that can outlive the event loop; during CPython
finalization they may abort the process with "PyGILState_Release: thread state ... must be
current" after the command already did its work (temporalio/sdk-python issue 300). Commands flush
their output and exit at once instead.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn


def exit_now(code: int) -> NoReturn:
    """Flush stdout and stderr, then end the process with ``code``."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
