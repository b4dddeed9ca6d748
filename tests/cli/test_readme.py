"""The README and the manual in docs/ work verbatim: their shell and Python
blocks run, in order (README.md first, then the pages of ``PAGES``), on a fresh state directory,
as a person would paste them. A block preceded by ``<!-- readme-test: skip (reason) -->`` is not
run; the reason says why it cannot run here.

The blocks run in a clone of this repository in a temporary directory, so what
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
DOCS = ROOT / "docs"
PAGES = (
    "operators.md",  # starts caching-demo, which agents.md reads
    "questions-and-supervisors.md",
    "training-data.md",  # exports every run closed by then
    "agents.md",
    "code-changes.md",
)
"""The pages of docs/ whose blocks run, in this order after README.md's: later blocks use runs
started by earlier ones. A page with runnable blocks must be listed here."""


def runnable_pages() -> list[Path]:
    return [ROOT / "README.md", *(DOCS / page for page in PAGES)]


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


def test_every_page_with_runnable_blocks_is_run() -> None:
    """A new page of docs/ cannot be skipped silently: it is in PAGES or has no runnable block."""
    unlisted = [
        page.name
        for page in sorted(DOCS.glob("*.md"))
        if page.name not in PAGES and readme_blocks(page.read_text())
    ]
    assert not unlisted, f"docs pages with runnable blocks that PAGES does not order: {unlisted}"
    assert all((DOCS / page).is_file() for page in PAGES)


def test_readme_has_no_placeholders_in_runnable_lines() -> None:
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for _, code in readme_blocks(page.read_text()):
            assert not re.search(r"\[--|<[a-z -]+>", code), f"a placeholder in {page.name}:\n{code}"


@pytest.mark.slow
def test_readme_blocks_run_verbatim(tmp_path: Path) -> None:
    env = stack_env(tmp_path / "state", free_port(), free_port())  # `agents env` tells `temporal`
    env["PYTHONSAFEPATH"] = "1"
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(clone)], check=True)
    (clone / ".venv").symlink_to(ROOT / ".venv")
    blocks = [
        (page.name, lang, code)
        for page in runnable_pages()
        for lang, code in readme_blocks(page.read_text())
    ]
    assert any("agents run" in code for page, _, code in blocks if page == "README.md")
    try:
        for page, lang, code in blocks:
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
            assert done.returncode == 0, (
                f"{page}:\n{code}\nfailed:\n{done.stdout[-3000:]}{done.stderr}"
            )
            assert "Traceback" not in done.stderr, f"{page}:\n{done.stderr}"
        assert (clone / "data.jsonl").is_file(), "training-data.md's export writes where it runs"
    finally:
        agents(env, "down")
