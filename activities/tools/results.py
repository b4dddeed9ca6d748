"""The tool results models saw, kept by content outside history.

Tool results never travel through Temporal (``models/tools.py``); each call's trace carries the
sha256 of the result text. Workers keep every text they hand a model here, named by that hash,
so an export can rebuild a tool-using step's transcript byte for byte and prove it against the
call's recorded fingerprint. Writes are idempotent (a replayed round writes the same file) and
atomic; a read checks the hash, so a damaged or foreign file is never taken for a result.
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path


class ToolResultStore:
    """Result texts by sha256 under ``root`` (``AGENT_TOOL_RESULTS_DIR``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def put(self, text: str) -> str:
        """Keep ``text``; return its sha256 (the trace's ``result_sha256``)."""
        data = text.encode()
        sha = hashlib.sha256(data).hexdigest()
        path = self._path(sha)
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            staging = path.with_name(f"{sha}.{uuid.uuid4().hex}.tmp")
            staging.write_bytes(data)
            staging.replace(path)
        return sha

    def get(self, sha: str) -> str | None:
        """The text whose sha256 is ``sha``, or None when it is not here (or not intact)."""
        try:
            data = self._path(sha).read_bytes()
        except (OSError, ValueError):
            return None
        return data.decode() if hashlib.sha256(data).hexdigest() == sha else None

    def _path(self, sha: str) -> Path:
        if len(sha) != 64 or not all(c in "0123456789abcdef" for c in sha):
            raise ValueError(f"not a sha256: {sha[:80]!r}")
        return self.root / sha[:2] / sha
