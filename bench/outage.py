"""Bench: Temporal server outages in the middle of model calls, one model call per agent step.

A real dev server on a SQLite file is killed at a random point of a run's first agent call and
started again on the same port after a random time (its state kept), ``--trials`` times, one run
each; one real worker in this process lives through every outage; a local OpenAI-compatible
server takes ``--call-seconds`` to answer each request and counts them. It prints, per trial,
where the outage started in the call, how long it lasted, the step's model requests and its
activity's attempts; then the model calls per agent step over all trials (aim: 1.00; before
the worker kept its calls across attempts, 5 of 6 outages that ended during the call asked
twice), and the machine's load."""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agent_interrupts.app.process_exit import exit_now
from bench.harness import bench_parser, load_average, positive_int, versions, versus_aim
from tests.support.server_outage import Outage, outages_in_calls

CALL_SECONDS = 12.0
LONGEST_OUTAGE = 15.0


@dataclass(frozen=True)
class OutageBench:
    outages: list[Outage]
    call_seconds: float
    seed: int


async def measure(
    *,
    trials: int,
    call_seconds: float = CALL_SECONDS,
    longest_outage: float = LONGEST_OUTAGE,
    seed: int | None = None,
) -> OutageBench:
    """``trials`` outages of 1 to ``longest_outage`` s, each starting at a uniform point of
    a ``call_seconds`` long model call."""
    seed = random.randrange(2**32) if seed is None else seed
    with tempfile.TemporaryDirectory() as tmp:
        outages = await outages_in_calls(
            Path(tmp),
            trials=trials,
            call_seconds=call_seconds,
            start_seconds=(0.2, call_seconds - 0.2),
            outage_seconds=(1, longest_outage),
            rng=random.Random(seed),
        )
    return OutageBench(outages, call_seconds, seed)


def report(bench: OutageBench) -> str:
    outages = bench.outages
    per_step = statistics.mean(o.requests for o in outages)
    back_in_call = [o for o in outages if o.start + o.length < bench.call_seconds]
    return "\n".join(
        [
            f"server outages in {bench.call_seconds:g} s model calls, {len(outages)} trials "
            f"(dev server on a SQLite file, seed {bench.seed}; {versions()})",
            *(
                f"  outage at {o.start:5.2f} s for {o.length:5.2f} s: {o.requests} model "
                f"call(s), {o.attempts} attempt(s)"
                for o in outages
            ),
            f"model calls per agent step: {versus_aim(per_step, 1, unit='')} (max "
            f"{max(o.requests for o in outages)}); {len(back_in_call)} of {len(outages)} "
            "outages ended before the call did",
            f"load average {load_average()}",
        ]
    )


def main() -> None:
    parser = bench_parser(
        "python -m bench.outage",
        __doc__.splitlines()[0],
        ("--trials", 20, "server outages, one per run"),
    )
    parser.add_argument(
        "--call-seconds",
        type=positive_int,
        default=int(CALL_SECONDS),
        help=f"how long the model takes to answer (default {CALL_SECONDS:g})",
    )
    parser.add_argument(
        "--longest-outage",
        type=positive_int,
        default=int(LONGEST_OUTAGE),
        metavar="SECONDS",
        help=f"outages last 1 s to this long (default {LONGEST_OUTAGE:g})",
    )
    parser.add_argument("--seed", type=int, help="the random points and lengths (default: any)")
    args = parser.parse_args()
    bench = asyncio.run(
        measure(
            trials=args.trials,
            call_seconds=args.call_seconds,
            longest_outage=args.longest_outage,
            seed=args.seed,
        )
    )
    print(report(bench))


if __name__ == "__main__":
    main()
    exit_now(0)  # no interpreter teardown: see app.process_exit
