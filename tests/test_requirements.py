"""Every requirement id the repository cites resolves in ``docs/requirements.md``, and no
reference points at a document or a tracker that a clone of the repository does not have.

The citation form is documented at the top of ``docs/requirements.md``: ``<document> <id>``
(``handler FR-008``, ``research R9``, ``resume §5``), or a bare id that only one document defines
(``FR-094``), with lists and ranges (``agents FR-001..005``, ``US24-US41``).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
REQUIREMENTS = "docs/requirements.md"
SELF = "tests/test_requirements.py"
"""This file's samples cite on purpose; the scanner's own tests below check them."""

CITATION = re.compile(
    r"(?:\b(?P<doc>routing|research|handler|agents|resume)\s+)?"
    r"(?<![\w§-])(?P<first>(?:FR|SC)-\d{3}|US\d{1,2}|R\d|§\d{1,2})(?!\w)"
    r"(?P<rest>(?:(?:\.\.|/|-)(?:(?:FR|SC)-|US|R|§)?\d+(?!\w))*)"
)
"""A citation: an optional document name, an id, then more ids of its list (``/``) or range
(``..`` or ``-``), each written whole (``FR-104..FR-108``) or as its number (``SC-003/004``)."""

OUTSIDE = re.compile(r"\b[Ii]ssues? \d+|\b[Ss]pec 00\d|DESIGN\.md")
"""References a clone cannot follow: a tracker's numbers, the spec documents, the design card."""

ENTRY = re.compile(r"^- \*\*`(?P<key>[^`]+)`\*\*", re.M)
DOCUMENT_ROW = re.compile(r"^\| `(?P<name>[a-z]+)` \|.*\|(?P<defines>[^|]*)\|\s*$", re.M)
PATH = re.compile(r"`(?P<path>[\w./-]+\.(?:py|jinja|toml|md|html|js|css))`")


def _number(prefix: str, n: int) -> str:
    return f"{prefix}{n:03}" if prefix in ("FR-", "SC-") else f"{prefix}{n}"


def expand(first: str, rest: str) -> tuple[list[str], list[str]]:
    """The ids written out, and the ids the ranges between them cover (ends included)."""
    match = re.fullmatch(r"(FR-|SC-|US|R|§)(\d+)", first)
    assert match is not None, first
    prefix, last = match[1], int(match[2])
    written, covered = [_number(prefix, last)], [_number(prefix, last)]
    for sep, number in re.findall(r"(\.\.|/|-)(?:(?:FR|SC)-|US|R|§)?(\d+)", rest):
        n = int(number)
        written.append(_number(prefix, n))
        span = [n] if sep == "/" else range(last + 1, n + 1)
        covered.extend(_number(prefix, k) for k in span)
        last = n
    return written, covered


@dataclass(frozen=True)
class Citation:
    path: str
    line: int
    text: str
    doc: str | None
    written: tuple[str, ...]
    covered: tuple[str, ...]


def citations(path: str, text: str) -> Iterator[Citation]:
    """The citations in ``text``. Research and resume ids count only with their name."""
    for m in CITATION.finditer(text):
        doc, start = m["doc"], m.start()
        if doc is None and m["first"][0] in "R§":
            continue
        written, covered = expand(m["first"], m["rest"])
        line = text.count("\n", 0, m.start()) + 1
        cited = text[start : m.end()]
        yield Citation(path, line, cited, doc, tuple(written), tuple(covered))


@dataclass(frozen=True)
class Requirements:
    defines: dict[str, frozenset[str]]
    """Document name -> the ids it defines."""
    entries: dict[tuple[str, str], str]
    """(document, id) -> the key of the entry that covers it."""
    problems: tuple[str, ...]


def parse_requirements(text: str) -> Requirements:
    defines: dict[str, frozenset[str]] = {}
    for row in DOCUMENT_ROW.finditer(text):
        defined = [expand(m["first"], m["rest"])[1] for m in CITATION.finditer(row["defines"])]
        defines[row["name"]] = frozenset(i for ids in defined for i in ids)
    entries: dict[tuple[str, str], str] = {}
    problems: list[str] = []
    for m in ENTRY.finditer(text):
        key = m["key"]
        found = list(citations(REQUIREMENTS, key))
        if len(found) != 1 or found[0].text != key:
            problems.append(f"entry `{key}` is not one citation")
            continue
        doc, covered, problem = resolve(found[0], defines)
        if problem:
            problems.append(f"entry `{key}`: {problem}")
            continue
        assert doc is not None
        for i in covered:
            if (doc, i) in entries:
                problems.append(f"{doc} {i} has two entries: `{entries[doc, i]}` and `{key}`")
            entries[doc, i] = key
    return Requirements(defines, entries, tuple(problems))


def resolve(
    c: Citation, defines: dict[str, frozenset[str]]
) -> tuple[str | None, list[str], str | None]:
    """The citation's document and the ids it covers, or why it cannot be read as one."""
    if c.doc is not None:
        if c.doc not in defines:
            return None, [], f"no document is named {c.doc!r}"
        docs = [c.doc]
    else:
        docs = sorted(d for d, ids in defines.items() if set(c.written) <= ids)
    if not docs:
        return None, [], f"no document defines {', '.join(c.written)}"
    if len(docs) > 1:
        names = " or ".join(f"`{d} {c.text}`" for d in docs)
        return None, [], f"{c.text} is defined by {' and '.join(docs)}: write {names}"
    doc = docs[0]
    missing = [i for i in c.written if i not in defines[doc]]
    if missing:
        return None, [], f"{doc} defines no {', '.join(missing)}"
    return doc, [i for i in c.covered if i in defines[doc]], None


def unresolved(found: Iterable[Citation], req: Requirements) -> Iterator[str]:
    """One line per citation that has no entry (or cannot be read as one)."""
    for c in found:
        where = f"{c.path}:{c.line}: {c.text!r}"
        doc, ids, problem = resolve(c, req.defines)
        if problem:
            yield f"{where}: {problem}"
            continue
        for i in ids:
            if (str(doc), i) not in req.entries:
                yield f"{where}: {doc} {i} has no entry in {REQUIREMENTS}"


@cache
def tracked_texts() -> tuple[tuple[str, str], ...]:
    """Every tracked text file but the recorded histories (data), symlinks and binaries."""
    try:
        listing = subprocess.run(
            ["git", "ls-files", "--stage", "-z"],
            cwd=REPO,
            capture_output=True,
            check=True,
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files: list[tuple[str, str]] = []
    for record in filter(None, listing.split("\0")):
        meta, path = record.split("\t", 1)
        symlink = meta.startswith("120000 ")
        if symlink or (path.startswith("tests/histories/") and path.endswith(".json")):
            continue
        data = (REPO / path).read_bytes()
        if b"\0" in data:
            continue
        files.append((path, data.decode("utf-8", errors="replace")))
    return tuple(files)


@cache
def requirements() -> Requirements:
    return parse_requirements((REPO / REQUIREMENTS).read_text())


def test_the_requirements_page_reads_as_entries() -> None:
    req = requirements()
    assert {"routing", "research", "handler", "agents", "resume"} <= set(req.defines)
    assert "FR-001" in req.defines["handler"] and "FR-001" in req.defines["agents"]
    assert "US40" not in req.defines["agents"]
    assert not req.problems, "\n".join(req.problems)


def test_every_cited_id_has_an_entry() -> None:
    req = requirements()
    problems: list[str] = []
    for path, text in tracked_texts():
        if path in (REQUIREMENTS, SELF):
            continue
        problems.extend(unresolved(citations(path, text), req))
    assert not problems, "\n".join(problems)


def test_no_reference_points_outside_the_repository() -> None:
    problems = [
        f"{path}:{text.count(chr(10), 0, m.start()) + 1}: {m[0]!r}: say what it means, or cite "
        f"the requirement ({REQUIREMENTS})"
        for path, text in tracked_texts()
        if path not in (REQUIREMENTS, SELF)
        for m in OUTSIDE.finditer(text)
    ]
    assert not problems, "\n".join(problems)


def test_every_entry_says_where_it_is_implemented_and_tested_with_files_that_exist() -> None:
    text = (REPO / REQUIREMENTS).read_text()
    starts = [m.start() for m in ENTRY.finditer(text)]
    ends = [*starts[1:], len(text)]
    problems: list[str] = []
    for start, end in zip(starts, ends, strict=True):
        block = re.split(r"\n(?=#)", text[start:end])[0]
        key = ENTRY.match(block)
        assert key is not None
        for part in ("Code:", "Tests:"):
            if part not in block:
                problems.append(f"`{key['key']}` has no {part!r}")
    for m in PATH.finditer(text):
        if not (REPO / m["path"]).exists():
            problems.append(f"{REQUIREMENTS} names {m['path']}, which does not exist")
    assert not problems, "\n".join(problems)


# -- the scanner itself ------------------------------------------------------------------------

PAGE = """
| name | document | what | defines |
|---|---|---|---|
| `handler` | `002.txt` | one handler | `FR-001..012`, `US1..4` |
| `agents` | `003.txt` | every agent | `FR-001..112`, `US1..39`, `US41` |
| `research` | `001.txt` | notes | `R1..9` |

- **`handler FR-008`** Events re-route. Code: `x.py`. Tests: `y.py`.
- **`FR-094`** Parts answered alone. Code: `x.py`. Tests: `y.py`.
- **`US24-US41`** Per-agent fields. Code: `x.py`. Tests: `y.py`.
- **`research R9`** Loop breaker. Code: `x.py`. Tests: `y.py`.
"""


def _problems(text: str) -> list[str]:
    req = parse_requirements(PAGE)
    assert not req.problems, req.problems
    return list(unresolved(citations("f.py", text), req))


def test_the_scanner_expands_lists_and_ranges() -> None:
    assert expand("FR-001", "..005") == (["FR-001", "FR-005"], [f"FR-00{i}" for i in range(1, 6)])
    assert expand("SC-003", "/004/008")[1] == ["SC-003", "SC-004", "SC-008"]
    assert expand("FR-104", "..FR-106")[1] == ["FR-104", "FR-105", "FR-106"]
    assert expand("US19", "-22")[1] == ["US19", "US20", "US21", "US22"]
    req = parse_requirements(PAGE)
    assert req.entries["agents", "US41"] == "US24-US41"
    assert ("agents", "US40") not in req.entries, "a range covers only the ids its document has"


def test_the_scanner_passes_cited_ids_that_have_entries() -> None:
    text = "(handler FR-008) a part (FR-094; US39), research R9 item 4; R5 and §5 alone are not"
    assert _problems(text) == []


def test_the_scanner_names_the_file_and_the_id_without_an_entry() -> None:
    assert _problems("guarded (agents FR-008)") == [
        "f.py:1: 'agents FR-008': agents FR-008 has no entry in docs/requirements.md"
    ]
    assert _problems("\n\nsee US23") == [
        "f.py:3: 'US23': agents US23 has no entry in docs/requirements.md"
    ]
    assert _problems("FR-999") == ["f.py:1: 'FR-999': no document defines FR-999"]
    assert _problems("research R9/R5") == [
        "f.py:1: 'research R9/R5': research R5 has no entry in docs/requirements.md"
    ]


def test_the_scanner_refuses_an_id_two_documents_define_unless_it_is_qualified() -> None:
    assert _problems("see FR-008") == [
        "f.py:1: 'FR-008': FR-008 is defined by agents and handler: write `agents FR-008` or "
        "`handler FR-008`"
    ]
    assert _problems("see spec 002 FR-008")[0].startswith("f.py:1: 'FR-008': FR-008 is defined")


def test_the_outside_references_are_found_and_links_are_not() -> None:
    text = (
        "(issue 17) Issue 30 item 8: issues 9, 17 spec 003 FR-015, Spec 000's table, DESIGN.md "
        "https://github.com/temporalio/sdk-python/issues/300 SC011_TAGS spec_003"
    )
    assert [m[0] for m in OUTSIDE.finditer(text)] == [
        "issue 17",
        "Issue 30",
        "issues 9",
        "spec 003",
        "Spec 000",
        "DESIGN.md",
    ]
