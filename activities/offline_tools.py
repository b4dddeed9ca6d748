"""How the offline model uses tools: a fixed, deterministic discovery of the workspace.

An agent offered the code tools recalls and searches for the goal's words, reads the best hits,
retains what it found and reflects on it, then answers with references to the lines it read.
Agents offered only the memory tools answer at once. Everything is read from the transcript, so
the same messages always give the same calls.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

_STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "into", "is"}
    | {"it", "of", "on", "or", "the", "this", "that", "to", "with", "add", "make", "use", "new"}
    | {"all", "any", "can", "should"}
)
_HIT = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+): (?P<text>.*)$", re.MULTILINE)
_READ = re.compile(r"^(?P<path>\S+) lines (?P<start>\d+)-(?P<end>\d+) of \d+$", re.MULTILINE)
_CITED = re.compile(
    r'"path": "(?P<path>[^"]+)",\s*"startLine": (?P<start>\d+),\s*"endLine": (?P<end>\d+)'
)
"""A file reference in a request's JSON (the reports a collector consolidates)."""
_MEMORY_ID = re.compile(r"^#(?P<id>\d+) ", re.MULTILINE)
READ_FILES = 3
"""Files the offline model reads after its search."""
READ_BEFORE = 3
"""Lines read before the best hit of a file."""


@dataclass(frozen=True)
class Reference:
    """A line range the offline model saw, and the text that made it look relevant."""

    path: str
    start_line: int
    end_line: int
    note: str


def keywords(goal: str) -> list[str]:
    """The goal's content words, shortened to stems (``limiting`` -> ``limit``), at most four."""
    stems = []
    for word in re.findall(r"[a-z]{3,}", goal.lower()):
        if word in _STOPWORDS:
            continue
        stem = re.sub(r"(ing|ed|s)$", "", word) if len(word) > 5 else word
        if stem not in stems:
            stems.append(stem)
    return stems[:4] or ["main"]


def next_calls(
    goal: str,
    agent: str,
    offered: set[str],
    messages: list[dict[str, Any]],
    conflict: bool = False,
) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls of the next round, or [] to answer now."""
    if "write_file" in offered:
        return ticket_calls(goal, messages, conflict)
    if "search" not in offered:
        return []
    done = _results(messages)
    words = keywords(goal)
    if not done:
        calls: list[tuple[str, dict[str, Any]]] = []
        if "memory_recall" in offered:
            calls.append(("memory_recall", {"query": " ".join(words)}))
        pattern = r"\b(" + "|".join(re.escape(w) for w in words) + ")"
        calls.append(("search", {"pattern": pattern, "literal": False, "glob": None}))
        return calls
    tools = [tool for tool, _ in done]
    if "read_file" not in tools:
        hits = [h for h in _hits(done) if goal.lower() not in h[2].lower()]  # not the goal quoted
        return [
            (
                "read_file",
                {"path": path, "start_line": max(line - READ_BEFORE, 1), "end_line": line + 12},
            )
            for path, line in _best_files(hits, words)[:READ_FILES]
        ]
    if "memory_retain" not in tools and "memory_retain" in offered:
        refs = references(messages)
        content = f"{agent} on '{goal}': " + "; ".join(
            f"{r.path}:{r.start_line} {r.note}" for r in refs[:READ_FILES]
        )
        files = list(dict.fromkeys(r.path for r in refs))
        return [("memory_retain", {"content": content, "files": files, "context_ids": []})]
    if "memory_reflect" not in tools and "memory_reflect" in offered:
        ids = [
            int(m["id"])
            for tool, text in done
            if tool == "memory_recall"
            for m in _MEMORY_ID.finditer(text)
        ]
        ids += [
            json.loads(text)["retained"]
            for tool, text in done
            if tool == "memory_retain" and text.startswith("{")
        ]
        if not ids:
            return []
        insight = (
            f"What {agent} found for '{goal}' "
            + ("builds on earlier episodes" if len(ids) > 1 else "starts the record")
            + f" on {', '.join(words)}."
        )
        return [("memory_reflect", {"memory_ids": ids[-4:], "insight": insight})]
    return []


def references(messages: list[dict[str, Any]]) -> list[Reference]:
    """The line ranges read (best first), then the search hits not read: all seen in tool
    results; without tools, the references of the reports in the request (a collector)."""
    done = _results(messages)
    if not done:
        asked = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
        return [
            Reference(m["path"], int(m["start"]), int(m["end"]), "cited by a report")
            for m in _CITED.finditer(asked)
        ]
    hits = _hits(done)
    at = {(path, line): text for path, line, text in hits}
    first = {path: text for path, _, text in reversed(hits)}
    refs = []
    for tool, text in done:
        header = _READ.match(text) if tool == "read_file" else None
        if header is not None:
            path, start = header["path"], int(header["start"])
            note = at.get((path, start + READ_BEFORE)) or first.get(path, "read")
            refs.append(Reference(path, start, int(header["end"]), note))
    read = {r.path for r in refs}
    refs += [Reference(p, n, n, t) for p, n, t in hits if p not in read]
    return refs


def _results(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(tool, result text) of every tool call in the transcript, in order."""
    names: dict[str, str] = {}
    out = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
        if message.get("role") == "tool":
            name = names.get(str(message.get("tool_call_id")), "")
            out.append((name, str(message.get("content") or "")))
    return out


def _hits(done: list[tuple[str, str]]) -> list[tuple[str, int, str]]:
    return [
        (m["path"], int(m["line"]), m["text"].strip()[:120])
        for tool, text in done
        if tool == "search"
        for m in _HIT.finditer(text)
    ]


def _best_files(hits: list[tuple[str, int, str]], words: list[str]) -> list[tuple[str, int]]:
    """Files by how many of the goal's words they match, then hits; each with its line that
    matches the most words."""
    matched: dict[str, set[str]] = {}
    counts: Counter[str] = Counter()
    best: dict[str, tuple[int, int]] = {}
    for path, line, text in hits:
        found = {w for w in words if w in text.lower()}
        matched.setdefault(path, set()).update(found)
        counts[path] += 1
        if path not in best or len(found) > best[path][0]:
            best[path] = (len(found), line)
    ranked = sorted(matched, key=lambda p: (-len(matched[p]), -counts[p], p))
    return [(p, best[p][1]) for p in ranked]


def tool_calls(
    calls: list[tuple[str, dict[str, Any]]], messages: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``calls`` as a message's ``tool_calls``, with ids unique within the step."""
    number = sum(1 for m in messages if m.get("tool_calls"))
    return [
        {
            "id": f"call_{number}_{i}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for i, (name, args) in enumerate(calls)
    ]


RECIPE = ".agents/offline-edits.json"
"""A workspace's edits for the offline ticket agents: ``{"edits": {"T-001": [{"path": ...,
"old": ..., "new": ...}]}}`` (exact snippets, applied with ``replace_snippet``)."""
_NUMBERED = re.compile(r"^\s*\d+\| ?", re.MULTILINE)
_REQUEST = re.compile(r"## Request\n```json\n(?P<json>.*?)\n```", re.DOTALL)


def ticket_calls(
    goal: str, messages: list[dict[str, Any]], conflict: bool
) -> list[tuple[str, dict[str, Any]]]:
    """A ticket agent's deterministic edits: read the workspace's recipe, apply this ticket's
    edits (without one, write a note on the ticket; with ``conflict``, every ticket writes the same
    note file, so their merge conflicts), run the verification once, then answer."""
    done = _results(messages)
    tools = [tool for tool, _ in done]
    ticket = ticket_id(messages)
    if not done:
        return [("read_file", {"path": RECIPE, "start_line": None, "end_line": None})]
    if "run_verification" in tools:
        return []
    if not any(t in tools for t in ("replace_snippet", "write_file")):
        recipe = _recipe(done[0][1]).get(ticket)
        if recipe:
            return [("replace_snippet", dict(edit)) for edit in recipe]
        path = ".agents-notes/shared.md" if conflict else f".agents-notes/{ticket}.md"
        note = f"# {ticket}\n\n{ticket} works towards: {goal}\n"
        return [("write_file", {"path": path, "content": note})]
    return [("run_verification", {})]


def ticket_id(messages: list[dict[str, Any]]) -> str:
    """The ticket id of the request in the prompt."""
    asked = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    found = _REQUEST.search(asked)
    try:
        request = json.loads(found["json"]) if found else {}
    except ValueError:
        request = {}
    return str(request.get("ticketId") or "T-000")


def _recipe(text: str) -> dict[str, list[dict[str, str]]]:
    if text.startswith("error:"):
        return {}
    body = _NUMBERED.sub("", text.split("\n", 1)[1] if "\n" in text else "")
    try:
        edits = json.loads(body).get("edits") or {}
    except (ValueError, AttributeError):
        return {}
    return edits if isinstance(edits, dict) else {}


_HUNK = re.compile(
    r"^\+\+\+ b/(?P<path>\S+)$|^@@ -\S+ \+(?P<start>\d+)(?:,(?P<count>\d+))? @@", re.M
)


def diff_references(messages: list[dict[str, Any]]) -> list[Reference]:
    """The new-side line ranges of the ticket diffs in a review's request (its findings cite
    them), or [] when the request carries none."""
    asked = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    found = _REQUEST.search(asked)
    try:
        request = json.loads(found["json"]) if found else {}
    except ValueError:
        return []
    refs = []
    changes = request.get("ticketChanges") if isinstance(request, dict) else None
    for change in changes if isinstance(changes, list) else []:
        if not isinstance(change, dict):
            continue  # a declared team's field of that name: not the software team's changes
        path = ""
        for m in _HUNK.finditer(str((change.get("diff") or {}).get("text") or "")):
            if m["path"]:
                path = m["path"]
            elif path and int(m["count"] or 1) > 0:
                start = int(m["start"])
                end = start + int(m["count"] or 1) - 1
                refs.append(Reference(path, start, end, f"changed by {change.get('ticketId')}"))
    return refs
