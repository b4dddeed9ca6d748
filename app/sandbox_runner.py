"""The workflows' sandbox, entered to run workflow code and for nothing else.

The SDK's sandboxed runner (``temporalio.worker.workflow_sandbox``) enters a run's sandbox (its
import hooks, restricted builtins and module table swapped in, then out) for every payload
sequence of every workflow task, only to ask the SDK's own instance which serialization context
the payloads belong to: a lookup in the instance's pending activities and children, no workflow
code. An agent step's input, summary and result, each seen by several of the SDK's passes, made
177 such entries a run of 19 steps, about 0.1 ms each. And every entry compiled its few lines of
glue again (``exec`` of a string: about 16 us).

``QuickSandboxRunner`` is the same sandbox (same restrictions, same passthrough modules; the
workflow's code, its activations and its module's import still run inside it) with those two
costs cut: the context lookups call the sandboxed instance's method directly, and the glue is
compiled once per process. It reaches into the SDK's private ``_Instance``; on an SDK whose
instance lacks what it uses, it is the SDK's runner unchanged.
"""

from __future__ import annotations

import functools
from types import CodeType
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


class QuickSandboxRunner(SandboxedWorkflowRunner):
    """``SandboxedWorkflowRunner`` whose instances enter the sandbox only to run workflow code."""

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        if not SUPPORTED:
            return super().create_instance(det)
        return _Instance(det, self.runner_class, self.restrictions)
