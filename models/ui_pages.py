"""Pages of the Temporal UI: the one place a workflow's link is made (CLI, inbox, notices)."""

from __future__ import annotations

from urllib.parse import quote, urlsplit, urlunsplit


def workflow_page(ui_url: str | None, namespace: str, workflow_id: str) -> str | None:
    """The Temporal UI's page of a workflow (a run or a question), or None without a UI.
    ``ui_url`` is the UI's address (``http://127.0.0.1:8233``, one under a path) or any page of
    it people copy (``.../namespaces/NS/workflows``): what follows its ``/namespaces/`` is
    replaced by this namespace's page of the workflow."""
    if not ui_url:
        return None
    base = urlsplit(ui_url)
    path = base.path.partition("/namespaces/")[0].rstrip("/")
    page = f"{path}/namespaces/{quote(namespace, safe='')}/workflows/{quote(workflow_id, safe='')}"
    return urlunsplit((base.scheme, base.netloc, page, "", ""))
