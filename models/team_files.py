"""Team files: a team declared as data (TOML, ``docs/teams.md``) read into a ``TeamSpec``.

A team file names the team and its agents; each agent's prompt is a jinja2 template in a file
beside it::

    name = "incident-response"              # lower case, digits, dashes
    description = "..."
    [final]                                 # the run's final result (default: summary)
    summary = "str"
    [agents.TRIAGE]                         # agents in file order; the orchestrator first
    role = "orchestrator"                   # orchestrator|agent|dispatcher|dispatched|collector
    description = "..."
    phase = "TRIAGE"                        # default WORK
    tools = ["read"]                        # read; write (dispatched agents); default none
    template = "triage.jinja"               # default <slug>.jinja beside the team file
    [agents.TRIAGE.routes]                  # TARGET (an agent or END) = when to take it
    END = "The incident is not real."
    [agents.TRIAGE.result]                  # also request, question: NAME = TYPE or a table
    severity = "enum(SEV1|SEV2|SEV3)"
    hypotheses = { type = "list[str]", description = "..." }
    [types.Host]                            # a record type: fields; `Host`, `list[Host]` types
    name = "str"
    [enums]                                 # named enums: a list, or [enums.NAME] VALUE = meaning
    Severity = ["LOW", "HIGH"]

``dispatches = "AGENT"`` names a dispatcher's agent. A template file's text goes into the spec
(``AgentSpec.template``): a run carries its team whole, so an edited file never changes a running
run.

Every problem is one line naming the file and, where it has one, the agent; ``TeamFileError``
carries them all. The worker's teams are the built-in ones (``teams/`` in the package) and those of
the ``AGENTS_TEAMS`` setting: team files or directories separated by ``os.pathsep``.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_interrupts.models.agent_types import slug
from agent_interrupts.models.errors import TeamFileError
from agent_interrupts.models.team_build import TeamDefinitionError, build_team, team_problems
from agent_interrupts.models.team_spec import (
    MAX_TEAM_AGENTS,
    MAX_TEAM_SPEC_BYTES,
    MAX_TEMPLATE_CHARS,
    SOFTWARE_TEAM_NAME,
    AgentSpec,
    Role,
    TeamSpec,
)

TEAMS_SETTING = "AGENTS_TEAMS"
"""Team files or directories (``os.pathsep`` between them) the worker serves beside the built-in
teams; a directory means every ``*/team.toml`` and ``*.toml`` directly in it."""
TEAM_FILE = "team.toml"
"""A team's file in its own directory (``teams/incident-response/team.toml``)."""
PACKAGE = Path(__file__).resolve().parents[1]
"""The installed package's folder (in the repository: its top level)."""
BUILTIN_TEAMS_DIR = PACKAGE / "teams"
"""The teams the package ships: in the repository the top-level ``teams/`` folder."""
PROMPTS_DIR = PACKAGE / "prompts"
"""The templates a team's template may extend or include (``workflow/_agent_base.jinja``)."""

TEAM_KEYS = (
    "name",
    "description",
    "extends",
    "starts_at",
    "first_request",
    "classes",
    "final",
    "agents",
    "routes",
    "types",
    "enums",
    "descriptions",
    "final_description",
)
AGENT_KEYS = (
    "role",
    "description",
    "phase",
    "dispatches",
    "context",
    "tools",
    "template",
    "routes",
    "request",
    "result",
    "question",
    "classes",
    "descriptions",
)
FIELD_TABLES = ("request", "result", "question")
FIELD_KEYS = ("type", "description", "min_items", "max_chars", "optional", "filled", "default")
ROLES = ", ".join(r.value for r in Role)


def load_team_file(path: str | Path) -> TeamSpec:
    """The team ``path`` declares (a directory means its ``team.toml``), templates included;
    raises ``TeamFileError`` with every problem found."""
    file = Path(path)
    if file.is_dir():
        file = file / TEAM_FILE
    spec = _checked(file)
    if spec.name == SOFTWARE_TEAM_NAME:
        raise TeamFileError([_software_name(file)])
    return spec


def _checked(file: Path, *, parse: bool = True) -> TeamSpec:
    spec, problems = _read(file, parse=parse)
    if problems or spec is None:
        raise TeamFileError(problems or [f"{file}: not a team"])
    return spec


def software_team_file() -> Path:
    """The software team's file: every run's team unless it names another."""
    return BUILTIN_TEAMS_DIR / SOFTWARE_TEAM_NAME / TEAM_FILE


def load_software_team() -> TeamSpec:
    """The software team's own file (the package's: the one file named ``software``), read and
    checked as every team file is; its templates are parsed by the package's tests, not at
    every start of a command (``template_problem``)."""
    return _checked(software_team_file(), parse=False)


def builtin_team_files() -> dict[str, Path]:
    """The teams shipped in the package beside the software team, by name
    (``incident-response``) -> their file."""
    if not BUILTIN_TEAMS_DIR.is_dir():
        return {}
    return {
        p.parent.name: p
        for p in sorted(BUILTIN_TEAMS_DIR.glob(f"*/{TEAM_FILE}"))
        if p.parent.name != SOFTWARE_TEAM_NAME
    }


def team_files(setting_value: str) -> list[Path]:
    """The files an ``AGENTS_TEAMS`` value names, in its order; raises ``TeamFileError`` for an
    entry that is neither a file nor a directory holding team files."""
    found: list[Path] = []
    problems: list[str] = []
    for entry in filter(None, (e.strip() for e in setting_value.split(os.pathsep))):
        path = Path(entry).expanduser()
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            inside = sorted(path.glob(f"*/{TEAM_FILE}")) + sorted(path.glob("*.toml"))
            if not inside:
                problems.append(
                    f"{TEAMS_SETTING}: {entry} holds no team file (*/{TEAM_FILE} or *.toml)"
                )
            found.extend(inside)
        else:
            problems.append(f"{TEAMS_SETTING}: {entry} is neither a team file nor a directory")
    if problems:
        raise TeamFileError(problems)
    return found


def load_teams(setting_value: str) -> dict[str, TeamSpec]:
    """The teams an ``AGENTS_TEAMS`` value names, by name; raises ``TeamFileError`` with every
    problem of every file, two files with one team name, and a team named ``software``."""
    return _load(team_files(setting_value))


def configured_teams(env: Mapping[str, str]) -> dict[str, TeamSpec]:
    """Every team but the software team that a worker (or a command) with ``env`` serves: the
    built-in ones, then those of ``AGENTS_TEAMS`` (a team file there replaces a built-in team of
    its name: an edited copy of a shipped team)."""
    named = _load(team_files(env.get(TEAMS_SETTING, "")))
    shipped = [p for name, p in builtin_team_files().items() if name not in named]
    return {**_load(shipped), **named}


def resolve_team(choice: str, env: Mapping[str, str]) -> TeamSpec | None:
    """The team ``--team`` names: a team file or its directory when ``choice`` is a path, else
    a built-in or ``AGENTS_TEAMS`` team by name; None for the software team."""
    if choice == SOFTWARE_TEAM_NAME:
        return None
    if os.sep in choice or "/" in choice or choice.endswith(".toml") or Path(choice).exists():
        return load_team_file(choice)
    teams = configured_teams(env)
    if choice not in teams:
        raise TeamFileError([unknown_team(choice, teams)])
    return teams[choice]


def setting_team_file(name: str, env: Mapping[str, str]) -> Path | None:
    """The file of ``AGENTS_TEAMS`` (in ``env``) that declares team ``name``; None for a team
    it does not declare (a built-in one). Its files are read as ``configured_teams`` read them."""
    for path in team_files(env.get(TEAMS_SETTING, "")):
        spec, _ = _read(path)
        if spec is not None and spec.name == name:
            return path
    return None


def unknown_team(name: str, known: Iterable[str]) -> str:
    """The line for a team nobody here serves, naming the setting that adds it."""
    names = ", ".join(sorted({SOFTWARE_TEAM_NAME, *known}))
    return (
        f"no team is named {name!r} here (teams: {names}); add its team file or directory to "
        f"{TEAMS_SETTING} where the worker runs (and where you run the command), or name the "
        "file itself"
    )


def _load(paths: Sequence[Path]) -> dict[str, TeamSpec]:
    teams: dict[str, TeamSpec] = {}
    where: dict[str, Path] = {}
    problems: list[str] = []
    read: set[Path] = set()
    for path in paths:
        if path.resolve() in read:  # a file named twice (a directory and itself) is read once
            continue
        read.add(path.resolve())
        spec, found = _read(path)
        problems += found
        if spec is None:
            continue
        if spec.name == SOFTWARE_TEAM_NAME:
            problems.append(_software_name(path))
        elif spec.name in teams:
            problems.append(
                f"{path}: team {spec.name!r} is declared by {where[spec.name]} too; team "
                "names are unique: rename one"
            )
        else:
            teams[spec.name] = spec
            where[spec.name] = path
    if problems:
        raise TeamFileError(problems)
    return teams


def _software_name(file: Path) -> str:
    return (
        f"{file}: the team name {SOFTWARE_TEAM_NAME!r} is the built-in software team's; "
        "choose another"
    )


class _Unreadable(Exception):
    """A file that is not a regular file of at most the bytes asked for: why, in words."""


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; else ``_Unreadable``
    (or OSError). Opened without blocking, so a FIFO or a device never stalls the loader, and
    never read past ``limit``."""
    if "\0" in str(path):
        raise _Unreadable("its name holds a NUL character")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _Unreadable("it is not a regular file (a FIFO, a device or a socket)")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _Unreadable(f"it has more than {limit:,} bytes, the most it may have")
    return data


def _read(file: Path, *, parse: bool = True) -> tuple[TeamSpec | None, list[str]]:
    """The team a file declares, or None, and its problems (one line each)."""
    try:
        raw = read_regular_file(file, MAX_TEAM_SPEC_BYTES)
    except _Unreadable as err:
        return None, [f"{file}: cannot read the team file: {err}"]
    except OSError as err:
        return None, [f"{file}: cannot read the team file: {err.strerror or err}"]
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, [f"{file}: not UTF-8 text"]
    except tomllib.TOMLDecodeError as err:
        return None, [f"{file}: not valid TOML: {err}"]
    except RecursionError:
        return None, [
            f"{file}: not valid TOML: arrays or inline tables nested too deeply; a team file "
            "nests a few levels at most"
        ]
    problems = [f"{file}: {p}" for p in _shape_problems(data)]
    if problems:  # unknown keys named, the rest is read on: a typo hides no other problem
        data = _known_keys(data)
        if _shape_problems(data):
            return None, problems
    agents = data.get("agents", {})
    wire: dict[str, Any] = {k: v for k, v in data.items() if k != "agents"}
    if "final" in wire:
        wire["final"] = _fields(wire["final"])
    if "types" in wire:
        wire["types"] = {name: _fields(table) for name, table in wire["types"].items()}
    if "enums" in wire:  # a list of values, or a table of values and their meanings
        wire["enums"] = {
            name: dict.fromkeys(values, "") if isinstance(values, list) else values
            for name, values in wire["enums"].items()
        }
    wire["agents"] = []
    for name, table in agents.items():
        agent = {"name": name, **table}
        for what in FIELD_TABLES:
            if what in agent:
                agent[what] = _fields(agent[what])
        template, problem = _template(
            file, name, table.get("template"), parse=parse, own=own_partials(data, file)
        )
        if problem:
            problems.append(f"{file}: agent {name}: {problem}")
        agent["template"] = template
        wire["agents"].append(agent)
    try:
        spec = TeamSpec.model_validate(wire)
    except ValidationError as err:
        names = list(agents)
        problems += [f"{file}: {_validation_line(e, names)}" for e in err.errors()]
        return None, problems
    problems += [f"{file}: {p}" for p in team_problems(spec)]
    size = len(json.dumps(spec.to_wire(), separators=(",", ":")).encode())
    if size > MAX_TEAM_SPEC_BYTES:
        problems.append(
            f"{file}: the team takes {size:,} bytes as JSON with its templates; at most "
            f"{MAX_TEAM_SPEC_BYTES:,} (a run records it whole): shorten the templates"
        )
    if not problems:
        try:
            build_team(spec)
        except TeamDefinitionError as err:
            problems.append(f"{file}: {err}")
    return (None if problems else spec), problems


def _shape_problems(data: dict[str, Any]) -> list[str]:
    """Keys the format does not have and tables that are not tables (pydantic checks values)."""
    found = [
        f"unknown key {key!r} (a team file has: {', '.join(TEAM_KEYS)}; agents are "
        "[agents.NAME] tables)"
        for key in data
        if key not in TEAM_KEYS
    ]
    agents = data.get("agents")
    if not isinstance(agents, dict) or not agents:
        found.append("no agents: declare each in an [agents.NAME] table")
        return found
    if len(agents) > MAX_TEAM_AGENTS:  # before any template is read
        found.append(f"{len(agents):,} agents; a team has at most {MAX_TEAM_AGENTS}")
        return found
    found += _types_shape_problems(data.get("types", {}))
    found += _enums_shape_problems(data.get("enums", {}))
    if isinstance(data.get("final"), dict):
        found += [f"final result {p}" for p in _field_problems(data["final"])]
    elif "final" in data:
        found.append("`final` is a table of fields: [final] NAME = TYPE")
    for name, table in agents.items():
        if not isinstance(table, dict):
            found.append(f"agent {name}: `agents.{name}` is a value, not an [agents.{name}] table")
            continue
        found += [
            f"agent {name}: unknown key {key!r} (an agent has: {', '.join(AGENT_KEYS)})"
            for key in table
            if key not in AGENT_KEYS
        ]
        if "role" in table and table["role"] not in {r.value for r in Role}:
            found.append(f"agent {name}: role {table['role']!r} is not one of {ROLES}")
        for what in ("routes", *FIELD_TABLES):
            value = table.get(what, {})
            if not isinstance(value, dict):
                found.append(f"agent {name}: `{what}` is a table: [agents.{name}.{what}]")
            elif what != "routes":
                found += [f"agent {name}: {what} {p}" for p in _field_problems(value)]
        template = table.get("template")
        if template is not None and not isinstance(template, str):
            found.append(f"agent {name}: `template` is a file name beside the team file")
    return found


def _known_keys(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the keys the format does not have (``_shape_problems`` names them)."""

    def fields(table: Any) -> Any:
        if not isinstance(table, dict):
            return table
        return {
            name: {k: v for k, v in value.items() if k in FIELD_KEYS}
            if isinstance(value, dict)
            else value
            for name, value in table.items()
        }

    known = {k: v for k, v in data.items() if k in TEAM_KEYS}
    if "final" in known:
        known["final"] = fields(known["final"])
    agents = known.get("agents")
    if isinstance(agents, dict):
        known["agents"] = {
            name: {
                k: fields(v) if k in FIELD_TABLES else v
                for k, v in table.items()
                if k in AGENT_KEYS
            }
            if isinstance(table, dict)
            else table
            for name, table in agents.items()
        }
    return known


def _field_problems(fields: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for field, value in fields.items():
        if isinstance(value, dict):
            found += [
                f"field {field}: unknown key {key!r} (a field has: {', '.join(FIELD_KEYS)})"
                for key in value
                if key not in FIELD_KEYS
            ]
        elif not isinstance(value, str):
            found.append(
                f'field {field}: give its type ({field} = "str") or a table ({field} = '
                '{ type = "str", description = "..." })'
            )
    return found


def _types_shape_problems(types: Any) -> list[str]:
    """``[types.NAME]`` tables of fields (pydantic checks the names and values)."""
    if not isinstance(types, dict):
        return ["`types` holds record types, one table each: [types.NAME] FIELD = TYPE"]
    found: list[str] = []
    for name, table in types.items():
        if isinstance(table, dict):
            found += [f"type {name}: {p}" for p in _field_problems(table)]
        else:
            found.append(f"type {name}: `types.{name}` is a value, not a [types.{name}] table")
    return found


def _enums_shape_problems(enums: Any) -> list[str]:
    """``[enums]``: each a list of values or a table of values and their meanings."""
    if not isinstance(enums, dict):
        return ['`enums` holds named enums: [enums] NAME = ["A", "B"] or [enums.NAME] A = "..."']
    found: list[str] = []
    for name, values in enums.items():
        if isinstance(values, list) and all(isinstance(v, str) for v in values):
            if len(set(values)) < len(values):
                found.append(f"enum {name}: a value is listed more than once; list each once")
        elif not isinstance(values, dict):
            found.append(
                f'enum {name}: give its values (["A", "B"]) or a table of values and their '
                f'meanings ([enums.{name}] A = "what A means")'
            )
    return found


def _fields(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: {"type": v} if isinstance(v, str) else v for k, v in fields.items()}


PARTIAL_PREFIX = "_"
"""A template file beside a team file whose name starts so is a partial its agents' templates
extend or include (``team/<team>/_NAME.jinja``), not an agent's template."""


def own_partials(data: Mapping[str, Any], file: Path) -> dict[str, Path]:
    """The partials ``file``'s templates may extend or include besides the package's prompts,
    by the name they use (``team/software/_software_agent.jinja``): those beside the file of a
    team whose templates the package ships and renders in the worker (the software team's);
    a declared team's templates are pinned by their text, so theirs may use none."""
    if data.get("name") != SOFTWARE_TEAM_NAME:
        return {}
    return {
        f"team/{SOFTWARE_TEAM_NAME}/{p.name}": p
        for p in sorted(file.parent.glob(f"{PARTIAL_PREFIX}*.jinja"))
    }


def software_partials() -> dict[str, str]:
    """The software team's partials' text by the name its templates use."""
    file = software_team_file()
    return {
        name: path.read_text(encoding="utf-8")
        for name, path in own_partials({"name": SOFTWARE_TEAM_NAME}, file).items()
    }


def _template(
    file: Path,
    agent: str,
    name: str | None,
    *,
    parse: bool = True,
    own: Mapping[str, Path] | None = None,
) -> tuple[str, str | None]:
    """The text of an agent's template file, and why it cannot be one (None when it can;
    ``parse``: check it as a template too)."""
    relative = name if name is not None else f"{slug(agent)}.jinja"
    if not relative.isprintable():
        return "", (
            f"template file name {relative!r} holds a NUL or another control character; name "
            "a file beside the team file"
        )
    path = file.parent / relative
    if not path.resolve().is_relative_to(file.parent.resolve()):
        return "", f"template file {relative} is not in the team file's directory"
    try:
        text = read_regular_file(path, MAX_TEMPLATE_CHARS * 4).decode("utf-8")
    except FileNotFoundError:
        return "", f"template file {relative} not found (looked for {path})"
    except _Unreadable as err:
        return "", f"cannot read template file {relative}: {err}"
    except (OSError, UnicodeDecodeError) as err:
        return "", f"cannot read template file {relative}: {err}"
    if len(text) > MAX_TEMPLATE_CHARS:
        return "", (
            f"template file {relative} has {len(text):,} characters; at most {MAX_TEMPLATE_CHARS:,}"
        )
    return text, template_problem(relative, text, own) if parse else None


def template_problem(relative: str, text: str, own: Mapping[str, Path] | None = None) -> str | None:
    """Why ``text`` is not a template a team may have: not jinja2, or it extends or includes
    something other than the package's prompts or its ``own`` partials (``own_partials``;
    None when it may)."""
    from jinja2 import TemplateSyntaxError, meta  # a command that reads no template skips it
    from jinja2.sandbox import SandboxedEnvironment

    try:
        parsed = SandboxedEnvironment().parse(text)
    except TemplateSyntaxError as err:
        return f"template file {relative}, line {err.lineno}: not a jinja2 template: {err}"
    prompts = PROMPTS_DIR.resolve()
    for used in meta.find_referenced_templates(parsed):
        if used is not None and used in (own or {}):
            continue
        inside = used is not None and (prompts / used).resolve().is_relative_to(prompts)
        if used is not None and not (inside and (prompts / used).is_file()):
            return (
                f"template file {relative} extends or includes {used!r}, which is not a "
                f"template of the package's prompts/ (e.g. workflow/_agent_base.jinja)"
            )
    return None


def _validation_line(error: Mapping[str, Any], names: list[str]) -> str:
    """One pydantic error as a line naming the agent and the field it is about."""
    loc = list(error["loc"])
    where = "team"
    if loc[:1] == ["agents"] and len(loc) >= 2 and isinstance(loc[1], int):
        name = names[loc[1]] if loc[1] < len(names) else str(loc[1])
        where, loc = f"agent {name}", loc[2:]
        if loc == ["name"]:
            return (
                f"{where}: the agent's name (its [agents.NAME] key) is upper case letters, "
                "digits and underscores, starting with a letter, at most 48 characters"
            )
    elif loc[:1] == ["final"]:
        where, loc = "final result", loc[1:]
    elif loc[:1] == ["types"] and len(loc) >= 2:
        if loc[-1] == "[key]" and len(loc) == 3:
            return (
                f"type name {loc[1]!r} is not CamelCase (a capital letter, then letters and "
                "digits, at most 40 characters)"
            )
        where, loc = f"type {loc[1]}", ["record", *loc[2:]]
    elif loc[:1] == ["enums"] and len(loc) >= 2:
        if loc[-1] == "[key]":
            if len(loc) == 3:
                return (
                    f"enum name {loc[1]!r} is not CamelCase (a capital letter, then letters and "
                    "digits, at most 40 characters)"
                )
            return (
                f"enum {loc[1]}: value {loc[2]!r} is not upper case letters, digits and "
                "underscores starting with a letter (at most 40 characters)"
            )
        where, loc = f"enum {loc[1]}", loc[2:]
    elif loc[:1] == ["descriptions"] and loc[-1] == "[key]":
        return f"descriptions: {loc[1]!r} is not CamelCase: name a record type or an enum"
    if loc == ["name"] and where == "team":
        return (
            f"team name {error.get('input')!r}: lower case letters, digits and dashes, "
            "starting with a letter, at most 40 characters"
        )
    if "[key]" in loc:
        field = loc[-2]
        what = f"{loc[0]} " if len(loc) > 2 else ""
        return (
            f"{where}: {what}field name {field!r} is not snake_case (lower case letters, "
            "digits and underscores, starting with a letter, at most 40 characters)"
        )
    at = ".".join(str(p) for p in loc if p != AgentSpec.__name__)
    return f"{where}: {at}: {error['msg']}" if at else f"{where}: {error['msg']}"
