"""A worker process's startup heap, kept out of the garbage collector's full passes.

A worker's heap once it is built holds about 143,000 objects the collector tracks, which live as
long as the process (the modules it imported: the SDK, its protobufs, pydantic's schemas, the
openai SDK, the prompts' templates). The collector's oldest generation walks all of them on every
full pass, and the runs' own short-lived objects (each run's sandboxed workflow module, its
payloads, its model replies) trigger such passes as they pile up: 100-250 ms each on this
project's bench machine, about 1 ms of CPU per agent step. Frozen once the worker is built
(``gc.freeze``: moved to a permanent generation the collector skips), a full pass walks only what
the runs made since. The collector still runs; frozen objects are never freed, which is what
startup objects are for.
"""

from __future__ import annotations

import gc

_frozen = False


def freeze_startup_heap() -> bool:
    """Collect the garbage startup left (import-time cycles), then freeze what is left. Once per
    process: a second worker built in the same process (tests, benches) would freeze the first
    one's garbage for good. True if it froze now."""
    global _frozen
    if _frozen:
        return False
    _frozen = True
    gc.collect()
    gc.freeze()
    return True
