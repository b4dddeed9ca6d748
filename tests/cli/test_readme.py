"""The README works verbatim (issue 11 item 8): its shell and Python blocks run, in order, on a
fresh state directory, as a person would paste them. A block preceded by
``<!-- readme-test: skip (reason) -->`` is not run; the reason says why it cannot run here.

The blocks run in a clone of this repository in a temporary directory (issue 23 item 6), so what
they write (``agents export --out data.jsonl``) stays there; its ``.venv`` is this checkout's, and
Python imports this checkout's code (``PYTHONSAFEPATH``: not the clone's, which is HEAD's)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cli.support import ROOT, WAIT_CEILING, agents, free_port, stack_env

FENCE = re.compile(
    r"^(?P<indent> *)```(?P<lang>bash|python)\n(?P<body>.*?)^(?P=indent)```", re.M | re.S
)
SKIP = "<!-- readme-test: skip"


def readme_blocks(text: str) -> list[tuple[str, str]]:
    """(language, code) of every block that is not marked to skip."""
    blocks = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip().splitlines()
        if before and before[-1].strip().startswith(SKIP):
            continue
        blocks.append((match["lang"], textwrap.dedent(match["body"])))
    return blocks


def test_block_extraction_honours_skip_markers_and_indentation() -> None:
    text = "<!-- readme-test: skip (x) -->\n```bash\nno\n```\n1. item\n   ```bash\n   yes\n   ```\n"
    assert readme_blocks(text) == [("bash", "yes\n")]


def test_readme_has_no_placeholders_in_runnable_lines() -> None:
    for _, code in readme_blocks((ROOT / "README.md").read_text()):
        assert not re.search(r"\[--|<[a-z -]+>", code), f"a placeholder in:\n{code}"


@pytest.mark.slow
def test_readme_blocks_run_verbatim(tmp_path: Path) -> None:
    env = stack_env(tmp_path / "state", free_port(), free_port())  # `agents env` tells `temporal`
    env["PYTHONSAFEPATH"] = "1"
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(clone)], check=True)
    (clone / ".venv").symlink_to(ROOT / ".venv")
    blocks = readme_blocks((ROOT / "README.md").read_text())
    assert any("agents run" in code for _, code in blocks)
    try:
        for lang, code in blocks:
            command = (
                ["bash", "-e", "-o", "pipefail", "-c", f". {ROOT}/.venv/bin/activate\n{code}"]
                if lang == "bash"
                else [sys.executable, "-c", code]
            )
            done = subprocess.run(
                command,
                cwd=clone,
                env=env,
                capture_output=True,
                text=True,
                timeout=WAIT_CEILING * 3,
                stdin=subprocess.DEVNULL,
            )
            assert done.returncode == 0, f"{code}\nfailed:\n{done.stdout[-3000:]}{done.stderr}"
            assert "Traceback" not in done.stderr, done.stderr
        assert (clone / "data.jsonl").is_file(), "the README's export writes where it runs"
    finally:
        agents(env, "down")
