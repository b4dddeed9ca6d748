"""The namespace's keyword search attributes, for a run started without ours (by the Temporal UI,
``temporal workflow start`` or another language's SDK): the workflow sets them itself when the
namespace has them, so its questions are listed like any other."""

from __future__ import annotations

from temporalio import activity
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.service import RPCError


@activity.defn
async def list_keyword_search_attributes() -> list[str]:
    """The names of the run's namespace's custom keyword attributes; none when the server will
    not list them (a namespace whose key may not use the operator service): the run then goes on
    without, as before."""
    client = activity.client()
    namespace = client.namespace
    try:
        listed = await client.operator_service.list_search_attributes(
            ListSearchAttributesRequest(namespace=namespace)
        )
    except RPCError as err:
        activity.logger.warning(
            "cannot list the search attributes of namespace %s (%s); runs started without "
            "AgentPhase stay out of the inbox",
            namespace,
            err.message,
        )
        return []
    keyword = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
    return sorted(name for name, kind in listed.custom_attributes.items() if kind == keyword)
