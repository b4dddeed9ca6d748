"""Export and stats: ``agents export`` (training data) and ``stats`` (rates beside targets)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_interrupts.app.cli.session import open_session

if TYPE_CHECKING:  # the heavy modules load in the commands that use them (fast --help, list)
    from agent_interrupts.app.config import TemporalSettings
    from agent_interrupts.app.stats import Line as StatLine


def export_plan(check: str | Sequence[str] | None, out: str | None) -> Literal["check", "export"]:
    """What ``agents export`` does (pure): verify the ``--check`` file, else write ``--out``;
    neither is a ValueError saying which to give."""
    if check:
        return "check"
    if not out:
        raise ValueError("give --out FILE to export, or --check FILE to verify a native export")
    return "export"


async def cmd_export(args: argparse.Namespace, settings: TemporalSettings) -> int:
    from agent_interrupts.app.export import Format, Kind
    from agent_interrupts.app.lineage_records import check_files

    if export_plan(args.check, args.out) == "check":
        report = check_files([Path(p) for p in args.check])
        print("\n".join(report.lines()))
        return 1 if report.unresolved else 0
    async with open_session(settings) as session:
        summary = await session.agents.export(
            Path(args.out),
            fmt=Format(args.format),
            kinds=[Kind(k) for k in args.kind],
            ids=args.ids,
            query=args.query,
            split=args.split,
            metadata=args.metadata,
            tool_results=Path(args.tool_results) if args.tool_results else None,
            without_names=args.without_names,
        )
    print("\n".join(summary.lines()))
    return 0


async def cmd_stats(args: argparse.Namespace, settings: TemporalSettings) -> int:
    async with open_session(settings) as session:
        lines = (await session.agents.stats(args.ids, args.query)).lines()
    if args.json:
        print(json.dumps([line.to_wire() for line in lines], indent=2))
        return 0
    for row in stats_rows(lines):
        print(row)
    return 0


def stats_rows(lines: Sequence[StatLine]) -> list[str]:
    """The text ``agents stats`` prints (pure): each rate beside its target, and its meaning."""
    rows = []
    for line in lines:
        mark = {True: "ok", False: f"below target ({line.short} short)", None: ""}[line.met]
        target = f"target: {_in_words(line.target)}" if line.target else ""
        rows.append(f"{line.name:<56} {line.value:<26} {target:<24} {mark}".rstrip())
        if line.meaning:
            rows.append(f"    {line.meaning}")
    return rows


def _in_words(target: str) -> str:
    """``>= 80%`` -> ``at least 80%``, ``< 2 s each`` -> ``under 2 s each``."""
    for sign, words in ((">= ", "at least "), ("<= ", "at most "), ("< ", "under ")):
        if target.startswith(sign):
            return words + target.removeprefix(sign)
    return target


def add_selection(command: argparse.ArgumentParser) -> None:
    command.add_argument("ids", nargs="*", metavar="ID", help="workflow ids (newest run)")
    command.add_argument(
        "--query",
        help='Temporal visibility query among closed runs, e.g. "StartTime > '
        "'2026-01-01T00:00:00Z'\" (default with no ID: every closed OrchestratorWorkflow run)",
    )


def export_options(exporter: argparse.ArgumentParser) -> None:
    from agent_interrupts.app.export import Format, Kind

    exporter.add_argument("--out", help="JSONL file to write")
    exporter.add_argument(
        "--check",
        metavar="FILE",
        nargs="+",
        help="verify a native export instead (with a preference file: the native export of the "
        "same runs beside it): every context id they name is defined by a record",
    )
    exporter.add_argument("--format", default="openai", choices=[f.value for f in Format])
    exporter.add_argument(
        "--kind",
        action="append",
        default=[],
        choices=[k.value for k in Kind],
        help="only these kinds (repeat; default: all)",
    )
    exporter.add_argument(
        "--split",
        type=float,
        help="fraction of runs for <out>.train.jsonl (by a stable hash); the rest: .valid",
    )
    exporter.add_argument(
        "--metadata", action="store_true", help="openai format: add each example's metadata"
    )
    exporter.add_argument(
        "--without-names",
        action="store_true",
        help="leave people's names out: answeredBy and forkedBy null, each name in a text "
        "replaced by 'a person' (ids kept: the lineage still closes)",
    )
    exporter.add_argument(
        "--tool-results",
        metavar="DIR",
        help="where the workers kept tool results (default: AGENT_TOOL_RESULTS_DIR, else "
        "<AGENTS_STATE_DIR>/tool-results)",
    )
