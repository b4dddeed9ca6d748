"""The workflows' sandbox, entered to run workflow code and for nothing else.

The SDK's sandboxed runner (``temporalio.worker.workflow_sandbox``) enters a run's sandbox (its
import hooks, restricted builtins and module table swapped in, then out) for every payload
sequence of every workflow task, only to ask the SDK's own instance which serialization context
the payloads belong to: a lookup in the instance's pending activities and children, no workflow
code. An agent step's input, summary and result, each seen by several of the SDK's passes, made
177 such entries a run of 19 steps, about 0.1 ms each. And every entry compiled its few lines of
glue again (``exec`` of a string: about 16 us).

A third cost is paid once per run: the sandbox imports the workflow's module again (that is what
keeps one run's module state from the next), and Python compiles its source again unless it finds
bytecode on disk, which it never does where ``PYTHONDONTWRITEBYTECODE`` is set (this project's
machines, many containers): about 5 ms of the orchestrator's 9 ms instance.

``QuickSandboxRunner`` is the same sandbox (same restrictions, same passthrough modules; the
workflow's code, its activations and its module's import still run inside it) with those costs
cut: the context lookups call the sandboxed instance's method directly, the glue is compiled once
per process, and so is the source of the modules named in ``compiled_once`` (a run still executes
its module afresh; only the compiled code object, which is immutable, is kept). It reaches into
the SDK's private ``_Instance``; on an SDK whose instance lacks what it uses, it is the SDK's
runner unchanged.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, PathFinder, SourceFileLoader
from types import CodeType, ModuleType
from typing import Any

import temporalio.converter
from temporalio.worker._command_aware_visitor import CommandInfo
from temporalio.worker._workflow_instance import WorkflowInstance, WorkflowInstanceDetails
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner
from temporalio.worker.workflow_sandbox import _runner as sdk_runner

IN_SANDBOX = "__temporal_in_sandbox"
"""The name the SDK's ``_Instance`` gives the sandboxed instance among its globals."""
SUPPORTED = all(
    hasattr(sdk_runner._Instance, name)
    for name in ("_run_code", "get_serialization_context", "get_external_store_context")
)
"""Whether this SDK's sandbox instance has what ``QuickSandboxRunner`` overrides."""


@functools.lru_cache(maxsize=64)
def compiled(code: str) -> CodeType:
    """The SDK's glue ``code``, compiled once (its strings are a handful per workflow type)."""
    return compile(code, "<string>", "exec")  # the name ``exec`` of a string gives it


class _SourceCompiledOnce(SourceFileLoader):
    """The path finder's loader for a source file, whose code object is kept for the process:
    the same source bytes at the same path give the same code object, neither compiled nor read
    from bytecode again."""

    _kept: dict[str, tuple[bytes, CodeType]] = {}
    """Per source path, the bytes last compiled and their code: one table for the process."""

    def get_code(self, fullname: str) -> CodeType | None:
        path = self.get_filename(fullname)
        source = self.get_data(path)
        kept = self._kept.get(path)
        if kept is not None and kept[0] == source:
            return kept[1]
        code = super().get_code(fullname)
        if code is not None:
            self._kept[path] = (source, code)
        return code


class CompiledOnce(MetaPathFinder):
    """Finds the modules named in ``modules`` as the path finder does, with a loader that
    compiles each one's source once per process (``_SourceCompiledOnce``); every other name is
    left to the finders after it."""

    def __init__(self) -> None:
        self.modules: frozenset[str] = frozenset()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in self.modules:
            return None
        spec = PathFinder.find_spec(fullname, path, target)
        if spec is not None and type(spec.loader) is SourceFileLoader and spec.origin:
            spec.loader = _SourceCompiledOnce(fullname, spec.origin)
        return spec


COMPILED_ONCE = CompiledOnce()
"""The process's one finder for the modules the sandbox imports once per run."""


def compile_once(modules: Iterable[str]) -> None:
    """Have ``modules`` compiled once per process when imported (idempotent)."""
    COMPILED_ONCE.modules |= frozenset(modules)
    if COMPILED_ONCE not in sys.meta_path:
        sys.meta_path.insert(0, COMPILED_ONCE)


class _Instance(sdk_runner._Instance):
    def _run_code(self, code: str, **extra_globals: Any) -> None:
        super()._run_code(compiled(code), **extra_globals)  # type: ignore[arg-type]

    def get_serialization_context(
        self, command_info: CommandInfo | None
    ) -> temporalio.converter.SerializationContext | None:
        sandboxed = self.globals_and_locals.get(IN_SANDBOX)
        if sandboxed is None:
            return super().get_serialization_context(command_info)
        return sandboxed.get_serialization_context(command_info)  # type: ignore[attr-defined]

    def get_external_store_context(self, command_info: CommandInfo | None) -> Any:
        sandboxed = self.globals_and_locals.get(IN_SANDBOX)
        if sandboxed is None:
            return super().get_external_store_context(command_info)
        return sandboxed.get_external_store_context(command_info)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class QuickSandboxRunner(SandboxedWorkflowRunner):
    """``SandboxedWorkflowRunner`` whose instances enter the sandbox only to run workflow code,
    and whose runs' imports of the ``compiled_once`` modules (the workflow definitions the sandbox
    imports afresh for every run) compile their source once per process."""

    compiled_once: tuple[str, ...] = ()

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        if self.compiled_once:
            compile_once(self.compiled_once)
        if not SUPPORTED:
            return super().create_instance(det)
        return _Instance(det, self.runner_class, self.restrictions)
