"""The inbox's templates are compiled when it starts, once per process: a person's first page
compiles nothing and checks no file."""

from __future__ import annotations

import pytest
from jinja2 import Environment

from agent_interrupts.app.inbox.templating import environment


def test_every_template_is_loaded_before_any_page_and_compiled_once_per_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    environment()
    compiled: list[str | None] = []
    compile_source = Environment.compile

    def counted(self: Environment, source: object, name: str | None = None, *a: object) -> object:
        compiled.append(name)
        return compile_source(self, source, name, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(Environment, "compile", counted)
    templates = environment()
    assert compiled == [], "a second inbox in the process loads the compiled code"
    names = set(templates.list_templates(extensions=["html"]))
    assert {"page.html", "card.html", "cards.html", "lists.html"} <= names
    assert {key[1] for key in templates.cache} == names  # type: ignore[union-attr]
    assert templates.auto_reload is False, "no file is checked while the inbox runs"
