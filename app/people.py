"""Who answers: the name a person's answers carry (``answeredBy``), never a process identity.

The CLI and the SDK sign an answer with ``--as NAME`` (the SDK's ``answered_by``), else
``AGENTS_USER``, else the login name of the person running them. The inbox signs each answer with
the name of the token it came with, or the header of an authenticating proxy
(``app/inbox/access.py``). Temporal's client identity (``pid@host``) names a process, not a person.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping

from pydantic import TypeAdapter, ValidationError

from agent_interrupts.models.limits import MAX_NAME_CHARS, PersonName

USER_SETTING = "AGENTS_USER"
_NAME: TypeAdapter[str] = TypeAdapter(PersonName)


def checked_name(name: str, where: str) -> str:
    """``name`` as an answer carries it (trimmed); ValueError naming ``where`` (a flag or a
    setting) when it is empty, longer than 100 characters or not one line of printable text."""
    try:
        return _NAME.validate_python(name)
    except ValidationError:
        raise ValueError(
            f"{where}: a name is one line of printable text, 1 to {MAX_NAME_CHARS} characters"
        ) from None


def person_name(given: str | None = None, env: Mapping[str, str] = os.environ) -> str | None:
    """The name this process answers as: ``given`` (``--as``), else ``AGENTS_USER``, else the
    login name; None when none of them is known."""
    if given is not None:
        return checked_name(given, "--as")
    if env.get(USER_SETTING):
        return checked_name(env[USER_SETTING], USER_SETTING)
    try:
        login = getpass.getuser()
    except (OSError, KeyError):  # no login name (a container without a passwd entry)
        return None
    return checked_name(login, "the login name") if login else None
