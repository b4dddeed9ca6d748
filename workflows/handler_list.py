"""The handlers the Temporal UI lists: the named ones a person uses, never a blank entry.

Each workflow keeps a dynamic signal handler, so that a signal of any other name (a typo, an old
client) is recorded as an ERROR event instead of waiting unseen in the SDK's buffer. The SDK lists
a dynamic handler in its metadata query with an empty name, and the UI shows that as a blank,
pre-selected entry of its signal list. The metadata query is served here without blank entries;
nothing else changes (queries issue no commands, so replay is untouched).
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow

METADATA_QUERY = "__temporal_workflow_metadata"
"""The query the Temporal UI (and ``temporal workflow metadata``) reads handlers from."""


def list_named_handlers_only() -> None:
    """Serve this workflow's metadata query without dynamic handlers' blank-named entries.
    Call it from the workflow's ``__init__``."""
    listed = workflow.get_query_handler(METADATA_QUERY)
    if listed is None:  # an SDK without the query: nothing to hide
        return

    def named_only() -> Any:
        metadata = listed()
        definition = metadata.definition
        for handlers in (
            definition.signal_definitions,
            definition.query_definitions,
            definition.update_definitions,
        ):
            for blank in [h for h in handlers if not h.name]:
                handlers.remove(blank)
        return metadata

    workflow.set_query_handler(METADATA_QUERY, named_only)
