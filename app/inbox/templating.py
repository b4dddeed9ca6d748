"""The inbox's jinja2 environment: autoescape on, every template compiled when the inbox starts
(never on a person's first page), and the compiled code kept for the process, so a second inbox
in the same process (the tests', a bench's) loads it instead of compiling again."""

from __future__ import annotations

from jinja2 import BytecodeCache, Environment, PackageLoader, StrictUndefined
from jinja2.bccache import Bucket


class _Compiled(BytecodeCache):
    """Compiled templates by name and source checksum, in memory (a few hundred KB at most:
    only the package's own templates)."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _Compiled()


def environment() -> Environment:
    """A new environment (its globals are the caller's) with every template loaded; the
    templates ship in the package, so none is checked for changes while the inbox runs."""
    templates = Environment(
        loader=PackageLoader("agent_interrupts.app.inbox"),
        autoescape=True,
        undefined=StrictUndefined,
        auto_reload=False,
        bytecode_cache=_COMPILED,
    )
    for name in templates.list_templates(extensions=["html"]):
        templates.get_template(name)
    return templates
