"""One real package without links: the installed name ``agent_interrupts`` maps onto the
repository's top-level folders through the build configuration (pyproject.toml's
``package-dir``), and no file the repository tracks is a link."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import agent_interrupts
from tests.histories.landed import tree_imports

ROOT = Path(__file__).resolve().parents[1]


def test_no_file_in_the_tree_is_a_link() -> None:
    tracked = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-s"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    links = [line.split("\t", 1)[1] for line in tracked if line.startswith("120000 ")]
    assert links == [], f"links in the tree: {links}"
    on_disk = [p for p in ROOT.rglob("*") if p.is_symlink() and not _ignored(p)]
    assert on_disk == [], f"links on disk: {on_disk}"


def _ignored(path: Path) -> bool:
    parts = path.relative_to(ROOT).parts
    return parts[0] in {".venv", "build", "dist", ".git", ".state"} or "__pycache__" in parts


def test_the_package_dirs_are_the_top_level_folders() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = setuptools["package-dir"]
    for folder in ("models", "workflows", "activities", "app", "prompts", "teams"):
        assert mapped[f"agent_interrupts.{folder}"] == folder
        assert (ROOT / folder).is_dir() and not (ROOT / folder).is_symlink()
    assert mapped["agent_interrupts"] == "package"
    assert not (ROOT / "agent_interrupts").exists(), "the package's name is no folder in the tree"


def test_the_sdk_is_the_package_root() -> None:
    from agent_interrupts.app import sdk

    assert agent_interrupts.AgentWorkflowClient is sdk.AgentWorkflowClient
    assert set(agent_interrupts.__all__) <= set(vars(sdk))


def test_a_tree_from_git_archive_imports_its_own_folders(tmp_path: Path) -> None:
    """What the deploy test runs of a landed version: this version's tree imports itself."""
    tree = tmp_path / "tree"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "HEAD"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    env = {**os.environ, **tree_imports(tree)}
    script = (
        "import os, agent_interrupts.models as m, agent_interrupts.app.cli.main as c\n"
        "print(os.path.realpath(m.__file__)); print(os.path.realpath(c.__file__))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    models, cli = map(Path, done.stdout.split())
    assert models == tree / "models" / "__init__.py" and cli == tree / "app" / "cli" / "main.py"
