"""The Temporal UI's page of a workflow, from whatever address people configure."""

from __future__ import annotations

from agent_interrupts.models.ui_pages import workflow_page


def test_a_temporal_ui_link_names_the_namespace_and_workflow() -> None:
    page = "http://127.0.0.1:8233/namespaces/default/workflows/run%201"
    assert workflow_page("http://127.0.0.1:8233/", "default", "run 1") == page
    assert workflow_page(None, "default", "x") is None
    # the pages people configure (TEMPORAL_UI_URL), and what the CLI makes of them
    for given in (
        "http://127.0.0.1:8233/namespaces/default/workflows",
        "http://127.0.0.1:8233/namespaces/default/workflows/",
        "http://127.0.0.1:8233/namespaces/default/workflows/namespaces/default/workflows",
        "http://127.0.0.1:8233/namespaces/other/workflows?query=x",
    ):
        assert workflow_page(given, "default", "run 1") == page, given
    assert workflow_page("https://h.example/temporal/namespaces/ns/workflows", "ns", "r") == (
        "https://h.example/temporal/namespaces/ns/workflows/r"
    ), "a UI served under a path keeps it"
