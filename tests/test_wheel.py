"""The wheel is the product: built from the repository, installed into a fresh venv, it runs the
main job offline from a directory that is not the checkout, with its prompts and the inbox's
templates read from the installed package; it installs one top-level name, not ``models`` or
``client``. The sdist maps the top-level folders onto that name the same way (package-dir, no
links in the tree), and installed into a fresh venv it runs the main job too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

from tests.cli.support import free_port, stack_env

ROOT = Path(__file__).resolve().parents[1]
GOAL = "add rate limiting to the gateway"
INSTALL_TIMEOUT = 900
RUN_TIMEOUT = 300
PROMPTING = "agent_interrupts.activities.prompting"
NOT_SOURCES = (".venv", ".git", ".state", "build", "dist", "*.egg-info", "__pycache__", "tests")


def _run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    said = f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{said}"
    return done


def _source(tmp_path: Path) -> Path:
    """A copy of the repository's sources (a build writes build/ and *.egg-info beside them)."""
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SOURCES))
    return source


def test_the_built_wheel_runs_the_main_job_from_any_directory(tmp_path: Path) -> None:
    source = _source(tmp_path)
    dist = tmp_path / "dist"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(dist),
            str(source),
        ],
        cwd=tmp_path,
        timeout=INSTALL_TIMEOUT,
    )
    (wheel,) = dist.glob("agent_interrupts-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert top == {"agent_interrupts"}, "one installed name: nothing called models or client"
    assert "agent_interrupts/teams/software/orchestrator.jinja" in names
    assert "agent_interrupts/teams/incident-response/team.toml" in names
    assert "agent_interrupts/teams/incident-response/triage.jinja" in names
    assert "agent_interrupts/worker.py" in names and "agent_interrupts/app/cli/main.py" in names
    assert any(n.startswith("agent_interrupts/app/inbox/templates/") for n in names)
    _install_and_run(wheel, tmp_path)


def test_the_sdist_installs_and_runs_the_main_job_from_any_directory(tmp_path: Path) -> None:
    source = _source(tmp_path)
    dist = tmp_path / "dist"
    build = f"from setuptools import build_meta; build_meta.build_sdist({str(dist)!r})"
    _run([sys.executable, "-c", build], cwd=source, timeout=INSTALL_TIMEOUT)
    (sdist,) = dist.glob("agent[-_]interrupts-*.tar.gz")
    with tarfile.open(sdist) as tar:
        members = tar.getmembers()
    assert not [m.name for m in members if m.issym() or m.islnk()], "no links in the sdist"
    names = {m.name.split("/", 1)[1] for m in members if "/" in m.name}
    assert {"package/__init__.py", "models/limits.py", "app/cli/main.py"} <= names
    assert "teams/software/orchestrator.jinja" in names
    _install_and_run(sdist, tmp_path)


def _install_and_run(artifact: Path, tmp_path: Path) -> None:
    """``artifact`` installed into a fresh venv runs the README's main job from a directory that
    is not the checkout, reading its prompts from the installed package."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "--quiet", str(artifact)]
    _run(install, tmp_path, None, INSTALL_TIMEOUT)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = stack_env(tmp_path / "state", free_port(), free_port())
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env['PATH']}"
    env.pop("PYTHONPATH", None)
    agents = str(env_dir / "bin" / "agents")
    try:
        ran = _run([agents, "run", GOAL], elsewhere, env, RUN_TIMEOUT)
        assert "Started" in ran.stdout, ran.stdout[-2000:]  # exit 0: the run completed
        where = _run(
            [str(python), "-c", f"import {PROMPTING} as p; print(p.PROMPTS_DIR)"],
            elsewhere,
            env,
        )
        assert str(env_dir) in where.stdout and str(ROOT) not in where.stdout
    finally:
        subprocess.run([agents, "down"], cwd=elsewhere, env=env, capture_output=True, timeout=120)
