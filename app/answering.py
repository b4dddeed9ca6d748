"""Answering an interrupt from a terminal: parse ``--choice ID=B`` flags, or ask interactively.

``ask`` reads through an async ``read(prompt)`` so that a prompt can be closed (cancelled) when
the question is answered elsewhere.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence

from agent_interrupts.models.agent_types import AGENT_NAME_PATTERN, agent_name
from agent_interrupts.models.interrupts import (
    InterruptRequestBase,
    InterruptResolution,
    InterruptType,
    OptionKey,
    StructuredChoice,
)
from agent_interrupts.models.resolution_rules import (
    has_words,
    redirect_problem,
    suggested_answer,
    untouched_parts,
)
from agent_interrupts.models.team import Team

YES = {"y", "yes", "true", "1"}
NO = {"n", "no", "false", "0"}


def _pairs(items: Sequence[str], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} takes ID=VALUE, got {item!r}")
        if key in out and out[key] != value:
            raise ValueError(f"{flag} {key} is given twice ({out[key]!r}, {value!r}): keep one")
        out[key] = value
    return out


def example_flags(request: InterruptRequestBase) -> str:
    """The flags of the recommended answer with the question's own ids (``--choice cache=B
    --confirm add-tests=yes``), to copy and edit; ``--text ...`` for a question of free text."""
    answer = suggested_answer(request)
    flags = [f"--choice {shlex.quote(f'{k}={v}')}" for k, v in answer["selectedChoices"].items()]
    flags += [
        f"--confirm {shlex.quote(f'{k}=' + ('yes' if v else 'no'))}"
        for k, v in answer["confirmations"].items()
    ]
    return " ".join(flags) or '--text "your answer"'


def resolution_from_flags(
    choices: Sequence[str],
    customs: Sequence[str],
    confirms: Sequence[str],
    text: str | None,
    *,
    request: InterruptRequestBase | None = None,
    in_parts: bool = False,
) -> InterruptResolution:
    """``--choice approach=B --custom approach="..." --confirm add-tests=yes`` -> resolution.

    With the ``request`` it answers, it is checked before it is sent: one ValueError names
    every problem in flags (never in the update's JSON field names) and offers only the options
    the question offers; ``--custom ID=TEXT`` alone then stands for ``--choice ID=CUSTOM``.
    ``in_parts``: the combined question's agents may be answered one at a time."""
    given = _pairs(choices, "--choice")
    custom = _pairs(customs, "--custom")
    answers = _pairs(confirms, "--confirm")
    if request is not None:
        given = {**dict.fromkeys(custom, OptionKey.CUSTOM.value), **given}
        if problems := flag_problems(request, given, custom, answers, text, in_parts=in_parts):
            raise ValueError("; ".join(problems))
    selected = {}
    for choice_id, key in given.items():
        try:
            selected[choice_id] = OptionKey(key.upper())
        except ValueError:
            keys = ", ".join(k.value for k in OptionKey)
            raise ValueError(f"--choice {choice_id}={key}: use one of {keys}") from None
    confirmations = {}
    for confirmation_id, answer in answers.items():
        if answer.lower() not in YES | NO:
            raise ValueError(f"--confirm {confirmation_id}={answer}: use yes or no")
        confirmations[confirmation_id] = answer.lower() in YES
    return InterruptResolution(
        selected_choices=selected,
        custom_inputs=custom,
        confirmations=confirmations,
        free_text=text,
    )


def stop_resolution(reason: str, other_answers: object) -> InterruptResolution:
    """``--stop "REASON"``: the run stops here; it is the whole answer."""
    if other_answers:
        raise ValueError("--stop is the whole answer: give it without --choice/--custom/--text")
    if not has_words(reason):
        raise ValueError('--stop needs the reason the run stops: --stop "..."')
    return InterruptResolution(stop_run=reason)


def with_continue_at(
    resolution: InterruptResolution,
    origin: str,
    target: str,
    field: str = "--continue-at",
    *,
    team: Team,
) -> InterruptResolution:
    """``--continue-at AGENT``: the answer, and the run goes on at ``target`` (one of
    ``origin``'s routes in the run's ``team``) instead of back to ``origin``; a problem names
    ``field``."""
    if not re.fullmatch(AGENT_NAME_PATTERN, target) or target not in team.nodes:
        agents = ", ".join(sorted(team.nodes))
        raise ValueError(
            f"{field} {target!r} is not an agent of team {team.name} (its agents: {agents})"
        )
    agent = agent_name(target)
    if problem := redirect_problem(origin, agent, team):
        raise ValueError(f"{field} {problem}")
    return resolution.model_copy(update={"continue_at": agent})


def flag_problems(
    request: InterruptRequestBase,
    given: Mapping[str, str],
    custom: Mapping[str, str],
    answers: Mapping[str, str],
    text: str | None,
    *,
    in_parts: bool = False,
) -> list[str]:
    """What is wrong with ``agents resolve`` flags for ``request``, each said in flags: the
    client-side twin of ``models.resolution_rules.resolution_problems``."""
    offered = {c.choice_id: c for c in request.choices}
    asked = {c.confirmation_id for c in request.confirmation_items}
    problems: list[str] = []
    for choice_id, key in given.items():
        choice = offered.get(choice_id)
        flag = f"--custom {choice_id}" if choice_id in custom else f"--choice {choice_id}={key}"
        if choice is None:
            problems.append(f"{flag}: the question has no choice {choice_id!r} ({_ids(offered)})")
        elif key.upper() not in (keys := _keys(choice)):
            problems.append(f"{flag}: use one of {', '.join(keys)}")
        elif key.upper() == OptionKey.CUSTOM.value and not custom.get(choice_id, "").strip():
            problems.append(f'{flag} needs your approach: --custom {choice_id}="..."')
        elif key.upper() != OptionKey.CUSTOM.value and choice_id in custom:
            problems.append(f"--custom {choice_id} goes with --choice {choice_id}=CUSTOM")
    for confirmation_id, answer in answers.items():
        if confirmation_id not in asked:
            problems.append(
                f"--confirm {confirmation_id}={answer}: the question asks no "
                f"{confirmation_id!r} ({_ids(asked, '--confirm')})"
            )
        elif answer.lower() not in YES | NO:
            problems.append(f"--confirm {confirmation_id}={answer}: use yes or no")
    if request.type is InterruptType.PAUSE or has_words(text):
        return problems  # free text decides what the flags leave open
    later = untouched_parts(request, given.keys() | answers.keys()) if in_parts else {}
    may_wait = {i for ids in later.values() for i in ids}
    missing = [
        f"--choice {c.choice_id}={'|'.join(_keys(c))}"
        for c in request.choices
        if c.choice_id not in given and c.choice_id not in may_wait
    ]
    missing += [f"--confirm {i}=yes|no" for i in sorted(asked - answers.keys() - may_wait)]
    if missing and text:
        problems.append(f"--text {text!r} has no letter or digit: it cannot decide anything")
    if missing:
        problems.append(
            f"no answer yet; add {' '.join(missing)} (or --text to let the agent decide)"
        )
    return problems


def _keys(choice: StructuredChoice) -> list[str]:
    """The option keys a choice offers, in order (A, B, ..., CUSTOM)."""
    return [key.value for key in OptionKey if key in choice.offered()]


def _ids(ids: Iterable[str], flag: str = "--choice") -> str:
    names = sorted(ids)
    return f"it asks {flag} for {', '.join(names)}" if names else f"it takes no {flag}"


STOP_KEY, CONTINUE_KEY = "S", "G"
"""The terminal's ways out beside a question's own options: stop the run, go on elsewhere."""


def ways_out_lines(origin: str, targets: Sequence[str]) -> list[str]:
    """The menu lines of the ways out every question has in the terminal (``ask``)."""
    lines = [f"  {STOP_KEY}) Stop the run here (you give the reason; the run ends)"]
    if targets:
        lines.append(
            f"  {CONTINUE_KEY}) Go on at another agent instead of {origin}: {', '.join(targets)}"
        )
    return lines


def ways_out_note(interrupt_id: str, targets: Sequence[str], *, menu: bool) -> str:
    """The line under a question shown in the terminal: besides its options, the run may stop
    or go on at one of ``targets`` (by the ``menu``'s keys, or by ``agents resolve``'s flags)."""
    flags = f'agents resolve {interrupt_id} --stop "REASON"'
    if targets:
        flags += f" | --continue-at {'|'.join(targets)}"
    if not menu:
        return f"besides its options you may stop the run or send it on: {flags}"
    keys = f"{STOP_KEY} stops the run" + (
        f", {CONTINUE_KEY} goes on at another agent" if targets else ""
    )
    return f"besides its options: {keys} ({flags})"


async def ask(
    request: InterruptRequestBase,
    read: Callable[[str], Awaitable[str]],
    origin: str | None = None,
    targets: Sequence[str] = (),
) -> InterruptResolution:
    """Menus for choices, yes/no for confirmations; Enter takes the recommendation/default.

    With the asking agent (``origin``), every menu also offers the ways out the inbox and
    ``agents resolve --stop/--continue-at`` offer: S stops the run (its reason is the whole
    answer), G picks one of ``targets`` (``origin``'s routes) for the run to go on at after the
    answer. A question without choices asks for them first."""
    ways = ways_out_lines(origin, targets) if origin is not None else []
    extra = [STOP_KEY, *([CONTINUE_KEY] if targets else [])] if ways else []
    continue_at: str | None = None
    selected: dict[str, OptionKey] = {}
    custom: dict[str, str] = {}
    if ways and not request.choices:
        print("\nBesides answering:")
        print("\n".join(ways))
        while True:
            raw = (await read(f"Enter to answer, or {'/'.join(extra)}: ")).strip().upper()
            if raw == STOP_KEY:
                return InterruptResolution(stop_run=await _reason(read))
            if raw == CONTINUE_KEY and targets:
                continue_at = await _target(read, targets)
                break
            if not raw:
                break
            print(f"  please press Enter or answer one of {'/'.join(extra)}")
    for choice in request.choices:
        print(f"\n{choice.question}")
        for option in choice.options:
            mark = "  (recommended)" if option.key == choice.recommended else ""
            print(f"  {option.key.value}) {option.description}{mark}")
        if ways:
            print("\n".join(ways))
        keys = "/".join(o.key.value for o in choice.options)
        allowed = [*(o.key.value for o in choice.options), *extra]
        while True:
            raw = (await read(f"Choose {keys}: ")).strip().upper()
            if not raw and choice.recommended is not None:
                raw = choice.recommended.value
            if raw == STOP_KEY and STOP_KEY in extra:
                return InterruptResolution(stop_run=await _reason(read))
            if raw == CONTINUE_KEY and CONTINUE_KEY in extra:
                continue_at = await _target(read, targets)
                print(f"  the run goes on at {continue_at} after your answer; now answer {keys}")
                continue
            if raw in {o.key.value for o in choice.options}:
                break
            print(f"  please answer one of {'/'.join(allowed)}")
        selected[choice.choice_id] = OptionKey(raw)
        while OptionKey(raw) is OptionKey.CUSTOM and not custom.get(choice.choice_id, "").strip():
            custom[choice.choice_id] = await read("Your approach: ")  # kept exactly as typed
    confirmations: dict[str, bool] = {}
    for item in request.confirmation_items:
        hint = "Y/n" if item.default_value else "y/N"
        while True:
            raw = (await read(f"{item.statement}? [{hint}] ")).strip().lower()
            if not raw:
                confirmations[item.confirmation_id] = item.default_value
                break
            if raw in YES | NO:
                confirmations[item.confirmation_id] = raw in YES
                break
            print("  please answer yes or no")
    note = await read("Anything else the agent should know (Enter to skip): ")
    return InterruptResolution(
        selected_choices=selected,
        custom_inputs=custom,
        confirmations=confirmations,
        free_text=note if note.strip() else None,
        continue_at=agent_name(continue_at) if continue_at else None,
    )


async def _reason(read: Callable[[str], Awaitable[str]]) -> str:
    """The reason a person stops the run (it must say something)."""
    while True:
        reason = (await read("Why stop the run? ")).strip()
        if has_words(reason):
            return reason
        print("  the run stops with your reason: write a few words")


async def _target(read: Callable[[str], Awaitable[str]], targets: Sequence[str]) -> str:
    """The agent the run goes on at: the only one, else picked by number or name."""
    if len(targets) == 1:
        return targets[0]
    for n, target in enumerate(targets, 1):
        print(f"  {n}) {target}")
    while True:
        raw = (await read(f"Go on at which agent? (1-{len(targets)} or its name) ")).strip()
        if raw.isdigit() and 1 <= int(raw) <= len(targets):
            return targets[int(raw) - 1]
        if raw.upper() in targets:
            return raw.upper()
        print(f"  please answer 1-{len(targets)} or one of {', '.join(targets)}")
