"""Every write to a run's state is a ``RunBook`` verb (``workflows/run_book.py``), its events'
``SupervisorEvents`` (``workflows/supervisor_events.py``): no other module of ``workflows/``
assigns to the state, mutates one of its lists or dicts, or calls the blackboard's writers."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import agent_interrupts.workflows as workflows_package

WORKFLOWS = Path(workflows_package.__file__).resolve().parent
OWNERS = {"run_book.py", "supervisor_events.py"}
BOOK_HELPERS = {"blackboard.py"}
"""The blackboard's bounded append: pure functions of the state it is given, called by the
run book alone (``BLACKBOARD_WRITERS``)."""
BLACKBOARD_WRITERS = {"record", "remember_output"}
STATE_NAMES = {"state", "_state"}
"""How the state is reached: ``state``, ``self._state``, ``book.state``, ``self._book.state``."""
MUTATORS = {
    "append",
    "extend",
    "insert",
    "pop",
    "popitem",
    "remove",
    "clear",
    "update",
    "setdefault",
    "sort",
    "reverse",
}


def _through_state(expr: ast.expr, aliases: set[str]) -> bool:
    """Whether ``expr`` names the state or something inside it (``state.code.tickets[0]``)."""
    while isinstance(expr, ast.Attribute | ast.Subscript):
        if isinstance(expr, ast.Attribute) and expr.attr in STATE_NAMES:
            return True
        expr = expr.value
    return isinstance(expr, ast.Name) and (expr.id in STATE_NAMES or expr.id in aliases)


def _aliases(function: ast.AST) -> set[str]:
    """Local names bound to the state or a part of it (``code = state.code``)."""
    found: set[str] = set()
    while True:
        more = {
            target.id
            for node in ast.walk(function)
            if isinstance(node, ast.Assign) and _through_state(node.value, found)
            for target in node.targets
            if isinstance(target, ast.Name) and target.id not in STATE_NAMES
        }
        if more <= found:
            return found
        found |= more


def _written(target: ast.expr, aliases: set[str]) -> bool:
    if isinstance(target, ast.Tuple | ast.List):
        return any(_written(t, aliases) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _written(target.value, aliases)
    return isinstance(target, ast.Attribute | ast.Subscript) and _through_state(
        target.value, aliases
    )


def state_writes(source: str) -> list[str]:
    """Each write to the state in ``source``, as ``line: code``."""
    tree = ast.parse(source)
    found: dict[int, str] = {}
    scopes = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    ]
    for scope in [tree, *scopes]:
        aliases = _aliases(scope) if scope is not tree else set()
        for node in ast.walk(scope):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            elif isinstance(node, ast.Call):
                func = node.func
                if (
                    isinstance(func, ast.Attribute)
                    and func.attr in MUTATORS
                    and _through_state(func.value, aliases)
                ):
                    targets = [func]
                elif isinstance(func, ast.Name) and func.id == "setattr" and node.args:
                    if _through_state(node.args[0], aliases):
                        targets = [func]
                elif (
                    isinstance(func, ast.Attribute)
                    and func.attr in BLACKBOARD_WRITERS
                    and isinstance(func.value, ast.Name)
                    and func.value.id == "blackboard"
                ):
                    targets = [func]
                if targets:
                    found[node.lineno] = ast.unparse(node)
                continue
            if any(_written(t, aliases) for t in targets):
                found[node.lineno] = ast.unparse(node)
    return [f"{line}: {code}" for line, code in sorted(found.items())]


def _modules() -> list[Path]:
    return sorted(
        p for p in WORKFLOWS.glob("*.py") if p.name not in OWNERS and p.name not in BOOK_HELPERS
    )


@pytest.mark.parametrize("module", _modules(), ids=lambda p: p.name)
def test_only_the_run_book_writes_the_run_state(module: Path) -> None:
    writes = state_writes(module.read_text())
    assert not writes, (
        f"workflows/{module.name} writes the run's state outside RunBook; name a RunBook verb "
        "for each (workflows/run_book.py): " + "; ".join(writes)
    )


def test_the_scan_sees_each_kind_of_write() -> None:
    source = """
def step(self, book, step):
    state = book.state
    code = state.code
    state.pending = step
    self._state.steps_taken += 1
    book.state.open_questions = []
    code.worktrees = []
    state.last_outputs["a"] = 1
    state.history.append(1)
    del state.processed_event_ids[:3]
    setattr(state.curated, "x", 1)
    handed, state.open_questions = state.open_questions, []
    blackboard.remember_output(state, 1)
    self._state = state  # rebinding the reference writes nothing
    pending = state.pending.model_copy()
    return pending
"""
    assert [w.split(":")[0] for w in state_writes(source)] == [str(n) for n in range(5, 15)]
