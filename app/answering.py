"""Answering an interrupt from a terminal: parse ``--choice ID=B`` flags, or ask interactively.

``ask`` reads through an async ``read(prompt)`` so that a prompt can be closed (cancelled) when
the question is answered elsewhere.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from models.interrupts import InterruptRequestBase, InterruptResolution, OptionKey

YES = {"y", "yes", "true", "1"}
NO = {"n", "no", "false", "0"}


def _pairs(items: Sequence[str], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} takes ID=VALUE, got {item!r}")
        out[key] = value
    return out


def resolution_from_flags(
    choices: Sequence[str],
    customs: Sequence[str],
    confirms: Sequence[str],
    text: str | None,
) -> InterruptResolution:
    """``--choice approach=B --custom approach="..." --confirm add-tests=yes`` -> resolution."""
    selected = {}
    for choice_id, key in _pairs(choices, "--choice").items():
        try:
            selected[choice_id] = OptionKey(key.upper())
        except ValueError:
            keys = ", ".join(k.value for k in OptionKey)
            raise ValueError(f"--choice {choice_id}={key}: use one of {keys}") from None
    confirmations = {}
    for confirmation_id, answer in _pairs(confirms, "--confirm").items():
        if answer.lower() not in YES | NO:
            raise ValueError(f"--confirm {confirmation_id}={answer}: use yes or no")
        confirmations[confirmation_id] = answer.lower() in YES
    return InterruptResolution(
        selected_choices=selected,
        custom_inputs=_pairs(customs, "--custom"),
        confirmations=confirmations,
        free_text=text,
    )


async def ask(
    request: InterruptRequestBase, read: Callable[[str], Awaitable[str]]
) -> InterruptResolution:
    """Menus for choices, yes/no for confirmations; Enter takes the recommendation/default."""
    selected: dict[str, OptionKey] = {}
    custom: dict[str, str] = {}
    for choice in request.choices:
        print(f"\n{choice.question}")
        for option in choice.options:
            mark = "  (recommended)" if option.key == choice.recommended else ""
            print(f"  {option.key.value}) {option.description}{mark}")
        keys = "/".join(o.key.value for o in choice.options)
        while True:
            raw = (await read(f"Choose {keys}: ")).strip().upper()
            if not raw and choice.recommended is not None:
                raw = choice.recommended.value
            if raw in {o.key.value for o in choice.options}:
                break
            print(f"  please answer one of {keys}")
        selected[choice.choice_id] = OptionKey(raw)
        while OptionKey(raw) is OptionKey.CUSTOM and not custom.get(choice.choice_id):
            custom[choice.choice_id] = (await read("Your approach: ")).strip()
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
    note = (await read("Anything else the agent should know (Enter to skip): ")).strip()
    return InterruptResolution(
        selected_choices=selected,
        custom_inputs=custom,
        confirmations=confirmations,
        free_text=note or None,
    )
