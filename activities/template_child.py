"""The process that renders one untrusted template (``activities/template_sandbox.py`` starts it
as ``python -m agent_interrupts.activities.template_child``).

It imports only the standard library and jinja2, so it starts in a fraction of a second; it says
``ready`` on its first line, then reads one job (JSON) from its standard input and writes one
line of JSON: ``{"text": ...}`` or ``{"problem": ...}``. The template renders in jinja2's
``ImmutableSandboxedEnvironment`` (no attribute writes, no unsafe calls, ``range`` bounded), its
output is cut at the job's ``maxChars``, and the process may use at most the job's
``memoryBytes`` of address space, a few seconds of CPU and no file writes. The time bound is the
parent's: it kills this process when the render takes longer.
"""

from __future__ import annotations

import json
import resource
import sys
import traceback
from typing import Any

from jinja2 import StrictUndefined, TemplateSyntaxError
from jinja2.loaders import ChoiceLoader, DictLoader, FileSystemLoader
from jinja2.sandbox import ImmutableSandboxedEnvironment

READY = "ready"
"""The child's first line: imported and bounded, waiting for its job (the render's time is
counted from here)."""


def _bound(memory_bytes: int, cpu_seconds: int) -> None:
    """This process's limits: address space, CPU seconds from now, and no file writes."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime) + cpu_seconds
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def _line(err: BaseException, template: str) -> str:
    """`` (line N)``: where in ``template`` the error was raised, when a frame says."""
    frames = traceback.extract_tb(err.__traceback__)
    lines = [f.lineno for f in frames if f.filename in (template, "<template>") and f.lineno]
    return f" (line {lines[-1]})" if lines else ""


def render(job: dict[str, Any]) -> dict[str, str]:
    """``{"text": ...}``: the job's template rendered with its values; else ``{"problem": ...}``
    in words."""
    template, limit = job["template"], job["maxChars"]
    env = ImmutableSandboxedEnvironment(
        loader=ChoiceLoader([FileSystemLoader(job["promptsDir"]), DictLoader(job["sources"])]),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        auto_reload=False,
    )
    parts: list[str] = []
    size = 0
    try:
        for chunk in env.get_template(template).generate(**job["values"]):
            size += len(chunk)
            if size > limit:
                return {"problem": f"its output passed {limit:,} characters, the most it may have"}
            parts.append(chunk)
    except MemoryError:
        parts.clear()
        return {"problem": f"it needed more than {job['memoryBytes'] // 2**20:,} MiB of memory"}
    except RecursionError:
        return {"problem": "it recursed too deeply (a macro or an include that calls itself)"}
    except TemplateSyntaxError as err:
        return {"problem": f"line {err.lineno}: {err.message}"}
    except Exception as err:  # the template raised: its own fault, said in one line
        return {"problem": f"{type(err).__name__}: {err}{_line(err, template)}"}
    return {"text": "".join(parts)}


def main() -> None:
    job_limits = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    _bound(job_limits.get("memoryBytes", 512 * 2**20), job_limits.get("cpuSeconds", 10))
    sys.stdout.write(READY + "\n")
    sys.stdout.flush()
    job = json.loads(sys.stdin.read())
    sys.stdout.write(json.dumps(render(job)) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
