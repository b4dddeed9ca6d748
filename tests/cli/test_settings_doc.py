"""Every setting the code reads is named in the README's settings table and in docs/settings.md,
and docs/settings.md's tables name no setting that nothing reads.

The names are collected from the code, not listed here: every environment lookup in the package
(``env.get("X")``, ``env["X"]``, ``os.environ.get("X")``, a helper called with ``env`` and a name,
a name held in a module constant or looped over from one; ``f"AGENT_MODEL_{...}"`` and the prefix
``"AGENT_MODEL_"`` are the family ``AGENT_MODEL_<...>``)."""

from __future__ import annotations

import ast
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from temporalio.envconfig import ClientConfigProfile

from tests.cli.support import ROOT

SOURCES = ("models", "workflows", "activities", "app", "worker.py", "client.py")
ENV_NAMES = {"env", "environ", "overrides"}
"""Names of the mappings the code reads settings from (``overrides`` is ``dict(env)``)."""
SETTING = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+_?$")
NOT_SETTINGS = {"PATH"}
"""Variables the code reads that are the system's, not this project's settings: the sandbox
passes ``PATH`` on to a verification run."""
BACKTICKED = re.compile(r"`([A-Z][A-Z0-9_]*(?:<[A-Z_]+>)?)`")


def _is_env(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ENV_NAMES
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def _strings(node: ast.expr | None, constants: dict[str, list[str]]) -> list[str]:
    """The setting names an expression may stand for."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [f"{node.value}<" if node.value.endswith("_") else node.value]  # a prefix
    if isinstance(node, ast.JoinedStr) and isinstance(node.values[0], ast.Constant):
        return [f"{node.values[0].value}<"]  # a family: AGENT_MODEL_<AGENT_TYPE>
    if isinstance(node, ast.Name):
        return constants.get(node.id, [])
    if isinstance(node, ast.Tuple | ast.List):
        return [s for item in node.elts for s in _strings(item, constants)]
    if isinstance(node, ast.Dict):
        return [s for key in node.keys for s in _strings(key, constants)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _strings(node.func.value, constants)  # DEPRECATED_NAMES.items()
    return []


def _module_constants(tree: ast.Module) -> dict[str, list[str]]:
    constants: dict[str, list[str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    constants[target.id] = _strings(stmt.value, constants)
    return constants


def _loop_names(tree: ast.Module, constants: dict[str, list[str]]) -> dict[str, list[str]]:
    """Loop variables bound to the strings they iterate over (``for name in (...)``)."""
    loops: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.comprehension):
            target = node.target
            if isinstance(target, ast.Tuple):
                target = target.elts[0]
            if isinstance(target, ast.Name):
                loops.setdefault(target.id, []).extend(_strings(node.iter, constants))
    return loops


def _lookups(tree: ast.Module) -> Iterator[str]:
    constants = _module_constants(tree)
    names = {**constants, **_loop_names(tree, constants)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_env(node.value):
            yield from _strings(node.slice, names)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "get" and _is_env(func.value):
                yield from _strings(node.args[0] if node.args else None, names)
            elif any(_is_env(arg) for arg in node.args):  # _port(env, "AGENTS_PORT", ...)
                for arg in node.args:
                    yield from _strings(arg, names)


def settings_read() -> set[str]:
    """Every setting name the code looks up in the environment."""
    found: set[str] = set()
    for source in SOURCES:
        path = ROOT / source
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            found.update(_lookups(ast.parse(file.read_text(), str(file))))
    return {n for n in found if SETTING.match(n.rstrip("<"))} - NOT_SETTINGS


def _named(text: str, name: str) -> bool:
    tokens = set(BACKTICKED.findall(text))
    if name.endswith("<"):
        return any(t.startswith(name) for t in tokens)
    return name in tokens


def test_the_collector_finds_the_settings_of_every_kind_of_lookup() -> None:
    read = settings_read()
    assert {
        "OPENAI_API_KEY",  # env.get("...")
        "AGENTS_PORT",  # _port(env, "...", ...)
        "AGENT_MODEL_<",  # env.get(f"..._{agent.value}")
        "AGENTS_TRACES",  # env.get(CONSTANT)
        "TEMPORAL_API_KEY",  # env.get(name) for name in CONSTANT
        "TEMPORAL_TLS_CERT",  # for old, new in CONSTANT.items(): overrides.get(old)
        "OFFLINE_SCENARIO",  # os.environ.get("...")
    } <= read


def test_every_setting_read_is_named_in_the_readme_and_the_settings_reference() -> None:
    read = settings_read()
    for page in ("README.md", "docs/settings.md"):
        text = (ROOT / page).read_text()
        missing = sorted(n for n in read if not _named(text, n))
        assert not missing, f"settings the code reads that {page} does not name: {missing}"


def _table_settings(text: str) -> set[str]:
    """The names in the first column of the page's tables."""
    names: set[str] = set()
    for line in text.splitlines():
        if line.startswith("| `"):
            names.update(BACKTICKED.findall(line.split("|")[1]))
    return names


def _taken_by_envconfig(name: str) -> bool:
    """Whether Temporal's envconfig (which the code hands the environment) reads ``name``."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp, "temporal.toml")
        config.write_text('[profile.default]\naddress = "elsewhere:7233"\n')
        value = str(config) if name == "TEMPORAL_CONFIG_FILE" else "/nowhere/x"
        if name == "TEMPORAL_TLS":
            value = "true"
        plain = {"TEMPORAL_CONFIG_FILE": str(Path(tmp, "none.toml"))}
        before = ClientConfigProfile.load(None, override_env_vars=plain).to_dict()
        after = ClientConfigProfile.load(None, override_env_vars={**plain, name: value})
        return after.to_dict() != before


def test_the_settings_reference_names_nothing_that_is_not_read() -> None:
    read = settings_read()
    documented = _table_settings((ROOT / "docs/settings.md").read_text())
    unread = sorted(
        n
        for n in documented
        if not any(n == r or (r.endswith("<") and n.startswith(r)) for r in read)
        and not _taken_by_envconfig(n)
    )
    assert not unread, f"docs/settings.md's tables name settings nothing reads: {unread}"
