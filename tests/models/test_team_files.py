"""Team files (``models/team_files.py``): the shipped team and the manual's example load; every bad
definition is one line naming the file and the agent; ``AGENTS_TEAMS`` names files and
directories, and refuses two teams of one name and a team called ``software``."""

from __future__ import annotations

import os
import re
import threading
import time
from contextlib import suppress
from pathlib import Path

import pytest
from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from agent_interrupts.models.agent_types import slug
from agent_interrupts.models.interrupts import CUSTOM_OPTION_TEXT
from agent_interrupts.models.team_files import (
    PROMPTS_DIR,
    TEAMS_SETTING,
    TeamFileError,
    builtin_team_files,
    configured_teams,
    load_team_file,
    load_teams,
    resolve_team,
    team_files,
)
from agent_interrupts.models.team_spec import (
    MAX_TEAM_AGENTS,
    MAX_TEAM_SPEC_BYTES,
    Role,
    spec_problems,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "tiny-team" / "team.toml"
TEMPLATE = '{% extends "workflow/_agent_base.jinja" %}{% block role %}Work.{% endblock %}\n'
LEAD = """
[agents.LEAD]
role = "orchestrator"
[agents.LEAD.routes]
END = "done"
"""


def _team(where: Path, text: str, name: str = "tiny", templates: bool = True) -> Path:
    """A team file in ``where`` (``name = ...`` first), with a template for each agent."""
    where.mkdir(parents=True, exist_ok=True)
    file = where / "team.toml"
    file.write_text(f'name = "{name}"\n{text}')
    if templates:
        for agent in re.findall(r"^\[agents\.(\w+)\]$", text, re.M):
            (where / f"{slug(agent)}.jinja").write_text(TEMPLATE)
    return file


def _problems(file: Path) -> list[str]:
    with pytest.raises(TeamFileError) as caught:
        load_team_file(file)
    assert str(caught.value) == "\n".join(caught.value.problems)
    return caught.value.problems


def _one(file: Path) -> str:
    (problem,) = _problems(file)
    assert problem.startswith(f"{file}: "), "the line names the file"
    return problem.removeprefix(f"{file}: ")


# -- the shipped team and the manual's example ---------------------------------------------------


def test_the_incident_response_team_ships_and_loads_with_no_problem() -> None:
    files = builtin_team_files()
    assert set(files) >= {"incident-response"}
    team = load_team_file(files["incident-response"])
    assert team.name == "incident-response" and spec_problems(team) == []
    assert {a.name: a.role for a in team.agents} == {
        "TRIAGE": Role.ORCHESTRATOR,
        "INVESTIGATION_DISPATCH": Role.DISPATCHER,
        "INVESTIGATOR": Role.DISPATCHED,
        "FINDINGS_COLLECTOR": Role.COLLECTOR,
        "REMEDIATION": Role.AGENT,
        "REMEDIATION_REVIEW": Role.AGENT,
    }
    assert team.entry.name == "TRIAGE" and team.agents[0] is team.entry, "file order is kept"
    triage = team.agent("TRIAGE")
    assert triage.result["severity"].type == "enum(SEV1|SEV2|SEV3)"
    assert set(triage.routes) == {"INVESTIGATION_DISPATCH", "END"}
    assert team.agent("INVESTIGATION_DISPATCH").dispatches == "INVESTIGATOR"
    investigator = team.agent("INVESTIGATOR")
    assert investigator.request["hypothesis"].type == "str"
    assert {k: f.type for k, f in investigator.result.items()} == {
        "finding": "text",
        "confirmed": "bool",
        "evidence": "list[str]",
    }
    assert "access_needed" in investigator.question
    assert set(team.agent("FINDINGS_COLLECTOR").routes) == {"REMEDIATION", "TRIAGE"}
    assert team.agent("REMEDIATION").question["risky_step"].type == "str"
    assert set(team.agent("REMEDIATION_REVIEW").routes) == {"END", "REMEDIATION"}
    assert {k: f.type for k, f in team.final.items()} == {
        "summary": "str",
        "root_cause": "text",
        "actions": "list[str]",
    }
    assert all(
        a.template.startswith('{% extends "workflow/_agent_base.jinja" %}') for a in team.agents
    )


def test_every_builtin_team_is_named_as_its_directory() -> None:
    for name, file in builtin_team_files().items():
        assert load_team_file(file).name == name


@pytest.mark.parametrize("file", [*builtin_team_files().values(), EXAMPLE], ids=str)
def test_every_shipped_template_renders_on_the_agent_base(file: Path) -> None:
    """What ``activities/prompting.py::template_values`` gives a template is all it uses, and
    its intro replaces the software team's."""
    env = SandboxedEnvironment(
        loader=FileSystemLoader(PROMPTS_DIR), undefined=StrictUndefined, autoescape=False
    )
    field = {"name": "reason", "kind": "string", "description": "why"}
    for agent in load_team_file(file).agents:
        text = env.from_string(agent.template).render(
            agent_type=agent.name,
            output_name=f"{agent.name.title()}Output",
            routes=[f"to{t.title()}" for t in agent.routes],
            interrupt={
                "class_name": "Question",
                "route": "interruptRequest",
                "base_fields": [field],
                "own_fields": [{**field, "name": n} for n in agent.question],
            },
            dispatcher=None,
            custom_option_text=CUSTOM_OPTION_TEXT,
        )
        assert f"\n\nYou are the {agent.name} agent of a" in text
        assert "software workflow" not in text and "## Your role" in text


def test_the_manuals_example_loads_and_is_quoted_whole_in_the_manual() -> None:
    team = load_team_file(EXAMPLE)
    assert team.name == "release-notes" and [a.name for a in team.agents] == ["WRITER", "EDITOR"]
    page = (ROOT / "docs" / "teams.md").read_text()
    assert f"```toml\n{EXAMPLE.read_text()}```" in page
    for template in EXAMPLE.parent.glob("*.jinja"):
        assert f"```jinja\n{template.read_text()}```" in page, template.name


def test_a_directory_means_its_team_file() -> None:
    assert load_team_file(EXAMPLE.parent) == load_team_file(EXAMPLE)


# -- bad definitions: one line each, naming the file and the agent -------------------------------


def test_a_route_to_an_unknown_agent(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD + 'TRIAGE = "the name is wrong"\n')
    assert _one(file) == (
        "agent LEAD: route to 'TRIAGE', which is not an agent of the team (agents: LEAD; or END)"
    )


def test_a_dispatcher_without_its_agent(tmp_path: Path) -> None:
    text = LEAD + (
        'FAN = "fan out"\n[agents.FAN]\nrole = "dispatcher"\ndispatches = "WORKER"\n'
        '[agents.FAN.routes]\nEND = "done"\n'
    )
    problem = _one(_team(tmp_path, text))
    assert problem == "agent FAN: a dispatcher needs `dispatches` naming an agent of the team " + (
        "(has 'WORKER')"
    )


def test_a_cycle_with_no_exit(tmp_path: Path) -> None:
    text = (
        '[agents.LEAD]\nrole = "orchestrator"\n[agents.LEAD.routes]\nLOOP = "go"\n'
        '[agents.LOOP]\n[agents.LOOP.routes]\nLEAD = "back"\n'
    )
    file = _team(tmp_path, text)
    assert _one(file) == (
        "agents LEAD, LOOP: no chain of routes from them reaches END (a cycle with no exit); "
        "give one of them a route to END"
    )


@pytest.mark.parametrize("kind", ["dict[str,int]", "any", "list[list[str]]"])
def test_a_field_type_a_strict_schema_cannot_express(tmp_path: Path, kind: str) -> None:
    file = _team(tmp_path, LEAD + f'[agents.LEAD.result]\nhosts = "{kind}"\n')
    assert _one(file).startswith(
        f"agent LEAD: result field hosts: field type {kind!r} cannot be expressed by a strict "
    )


def test_duplicate_agent_names_are_refused_by_toml_itself(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD + LEAD)
    problem = _one(file)
    assert (
        problem == "not valid TOML: Cannot declare ('agents', 'LEAD') twice (at line 8, column 13)"
    )


def test_two_files_with_one_team_name(tmp_path: Path) -> None:
    first = _team(tmp_path / "a", LEAD, name="same")
    second = _team(tmp_path / "b", LEAD, name="same")
    with pytest.raises(TeamFileError) as caught:
        load_teams(os.pathsep.join([str(first), str(second)]))
    assert caught.value.problems == [
        f"{second}: team 'same' is declared by {first} too; team names are unique: rename one"
    ]


def test_a_team_named_software_is_refused(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD, name="software")
    with pytest.raises(TeamFileError, match=r"the team name 'software' is the built-in"):
        load_teams(str(file))


def test_a_toml_syntax_error_names_the_line(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD + "[agents.LEAD.result\n")
    assert _one(file) == (
        "not valid TOML: Expected ']' at the end of a table declaration (at line 7, column 20)"
    )


def test_unknown_keys_are_named_where_they_are(tmp_path: Path) -> None:
    text = (
        'colour = "blue"\n'
        + LEAD
        + 'nxet = "typo"\n'
        + '[agents.LEAD.result]\nhosts = { type = "str", desc = "typo" }\n'
    )
    file = _team(tmp_path, text.replace('END = "done"\nnxet', 'END = "done"\n[x]\nnxet'))
    problems = [p.removeprefix(f"{file}: ") for p in _problems(file)]
    assert problems[0].startswith("unknown key 'colour' (a team file has: name, description")
    assert problems[1].startswith("unknown key 'x'")
    file = _team(tmp_path, LEAD.replace("[agents.LEAD.routes]", 'rol = "x"\n[agents.LEAD.routes]'))
    assert _one(file).startswith("agent LEAD: unknown key 'rol' (an agent has: role, description")
    file = _team(tmp_path, LEAD + '[agents.LEAD.result]\nhosts = { type = "str", desc = "x" }\n')
    assert _one(file) == (
        "agent LEAD: result field hosts: unknown key 'desc' (a field has: type, description, "
        "min_items, max_chars, optional, filled, default)"
    )


def test_a_key_typo_hides_none_of_the_files_other_problems(tmp_path: Path) -> None:
    text = LEAD.replace('role = "orchestrator"', 'role = "orchestrator"\ndescripton = "typo"') + (
        '[agents.LEAD.result]\nhosts = "dict[str,int]"\n'
        '[agents.FIX]\n[agents.FIX.routes]\nENDD = "done"\n'
    )
    file = _team(tmp_path, text)
    (tmp_path / "fix.jinja").unlink()
    problems = [p.removeprefix(f"{file}: ") for p in _problems(file)]
    assert problems[0].startswith("agent LEAD: unknown key 'descripton' (an agent has: role")
    assert problems[1] == "agent FIX: template file fix.jinja not found (looked for " + (
        f"{tmp_path / 'fix.jinja'})"
    )
    assert problems[2:] == [
        "agent LEAD: result field hosts: field type 'dict[str,int]' cannot be expressed by a "
        "strict schema; use str, text, int, float, bool, enum(A|B|...), a record type or enum "
        "of the team ([types.NAME], [enums]) or list[...] of one of those",
        "agent FIX: route to 'ENDD', which is not an agent of the team (agents: FIX, LEAD; or END)",
    ]


def test_an_unknown_role(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD.replace('"orchestrator"', '"boss"'))
    assert _one(file) == (
        "agent LEAD: role 'boss' is not one of orchestrator, agent, dispatcher, dispatched, "
        "collector, reviewer, merger, context-manager"
    )


def test_a_bad_agent_name_and_a_bad_field_name(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD.replace("LEAD", "lead"))
    assert _one(file).startswith("agent lead: the agent's name (its [agents.NAME] key) is upper")
    file = _team(tmp_path, LEAD + '[agents.LEAD.request]\nHostName = "str"\n')
    assert _one(file).startswith("agent LEAD: request field name 'HostName' is not snake_case")
    file = _team(tmp_path, LEAD, name="Tiny Team")
    assert _one(file).startswith("team name 'Tiny Team': lower case letters, digits and dashes")


def test_a_value_of_the_wrong_type_is_one_line(tmp_path: Path) -> None:
    file = _team(
        tmp_path, LEAD.replace('role = "orchestrator"', 'role = "orchestrator"\ntools = "read"')
    )
    assert _one(file) == "agent LEAD: tools: Input should be a valid list"


def test_a_missing_template_file(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD, templates=False)
    assert _one(file) == (
        f"agent LEAD: template file lead.jinja not found (looked for {tmp_path / 'lead.jinja'})"
    )
    file = _team(
        tmp_path,
        LEAD.replace("[agents.LEAD.routes]", 'template = "x/y.jinja"\n[agents.LEAD.routes]'),
    )
    assert _one(file).startswith("agent LEAD: template file x/y.jinja not found")


def test_a_template_that_is_not_jinja(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD)
    (tmp_path / "lead.jinja").write_text("line one\n{% block role %}never closed\n")
    problem = _one(file)
    assert problem.startswith("agent LEAD: template file lead.jinja, line 2: not a jinja2 template")


def test_a_template_that_extends_no_template_of_the_package(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD)
    (tmp_path / "lead.jinja").write_text('{% extends "workflow/_agent_bsae.jinja" %}')
    assert _one(file).startswith(
        "agent LEAD: template file lead.jinja extends or includes 'workflow/_agent_bsae.jinja', "
        "which is not a template of the package's prompts/"
    )


def test_a_team_over_the_size_limit(tmp_path: Path) -> None:
    agents = [f"A{i}" for i in range(20)]
    text = LEAD.replace('END = "done"', 'A0 = "go"')
    for here, onward in zip(agents, [*agents[1:], "END"], strict=True):
        text += f'[agents.{here}]\n[agents.{here}.routes]\n{onward} = "on"\n'
    file = _team(tmp_path, text)
    for agent in agents:
        (tmp_path / f"{slug(agent)}.jinja").write_text("x" * 15_000)
    problem = _one(file)
    assert problem.startswith("the team takes ") and f"at most {MAX_TEAM_SPEC_BYTES:,}" in problem


def test_every_problem_of_a_file_is_reported_at_once(tmp_path: Path) -> None:
    text = (
        '[agents.LEAD]\nrole = "orchestrator"\n[agents.LEAD.routes]\nNOWHERE = "x"\n'
        '[agents.LEAD.result]\nblob = "object"\n[agents.OTHER]\ntools = ["shell"]\n'
    )
    problems = _problems(_team(tmp_path, text))
    assert len(problems) == 4, problems
    assert {p.split(": ")[1] for p in problems} == {"agent LEAD", "agent OTHER"}


# -- AGENTS_TEAMS, and a run's --team ----------------------------------------------------------


def test_the_setting_names_files_and_directories(tmp_path: Path) -> None:
    one = _team(tmp_path / "teams" / "one", LEAD, name="one")
    two = tmp_path / "teams" / "two.toml"
    two.write_text(f'name = "two"\n{LEAD}')
    (tmp_path / "teams" / "lead.jinja").write_text(TEMPLATE)
    three = _team(tmp_path / "elsewhere", LEAD, name="three")
    setting = os.pathsep.join([str(tmp_path / "teams"), "", f" {three} ", str(one)])
    assert team_files(setting) == [one, two, three, one]
    assert list(load_teams(setting)) == ["one", "two", "three"], "a file named twice is read once"
    assert load_teams("") == {}


def test_the_setting_names_what_it_cannot_use(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    setting = os.pathsep.join([str(tmp_path / "empty"), str(tmp_path / "gone.toml")])
    with pytest.raises(TeamFileError) as caught:
        load_teams(setting)
    assert caught.value.problems == [
        f"{TEAMS_SETTING}: {tmp_path / 'empty'} holds no team file (*/team.toml or *.toml)",
        f"{TEAMS_SETTING}: {tmp_path / 'gone.toml'} is neither a team file nor a directory",
    ]


def test_a_worker_serves_the_builtin_teams_and_the_settings(tmp_path: Path) -> None:
    mine = _team(tmp_path / "mine", LEAD, name="mine")
    assert set(configured_teams({})) == set(builtin_team_files())
    assert set(configured_teams({TEAMS_SETTING: str(mine)})) == {*builtin_team_files(), "mine"}
    edited = _team(tmp_path / "edited", LEAD, name="incident-response")
    served = configured_teams({TEAMS_SETTING: str(edited)})  # replaces the shipped one
    assert served["incident-response"] == load_team_file(edited)
    twice = _team(tmp_path / "twice", LEAD, name="mine")
    with pytest.raises(TeamFileError, match=r"team 'mine' is declared by .* too"):
        configured_teams({TEAMS_SETTING: os.pathsep.join([str(mine), str(twice)])})


def test_a_template_outside_the_team_files_directory_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password")
    file = _team(tmp_path / "team", LEAD, name="tiny")
    file.write_text(
        file.read_text().replace(
            'role = "orchestrator"', 'role = "orchestrator"\ntemplate = "../secret.txt"', 1
        )
    )
    problems = _problems(file)
    assert any("not in the team file's directory" in p for p in problems), problems


def test_team_names_a_team_by_name_or_by_path(tmp_path: Path) -> None:
    mine = _team(tmp_path / "mine", LEAD, name="mine")
    env = {TEAMS_SETTING: str(mine)}
    assert resolve_team("software", env) is None
    assert resolve_team("incident-response", {}) == load_team_file(
        builtin_team_files()["incident-response"]
    )
    assert resolve_team("mine", env) == load_team_file(mine)
    assert resolve_team(str(mine.parent), {}) == load_team_file(mine)
    with pytest.raises(TeamFileError) as caught:
        resolve_team("mine", {})
    (line,) = caught.value.problems
    assert line.startswith("no team is named 'mine' here (teams: incident-response, software)")
    assert TEAMS_SETTING in line


# -- team files are untrusted input: refused in one line, never a traceback or a stall ---------


def test_deeply_nested_toml_is_one_line_not_a_recursion_error(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD)
    file.write_text(file.read_text() + "deep = " + "[" * 100_000 + "\n")
    assert _one(file).startswith("not valid TOML: arrays or inline tables nested too deeply")


def test_a_team_file_named_software_is_refused_when_named_by_path(tmp_path: Path) -> None:
    """``agents run --team DIR`` refuses it as ``AGENTS_TEAMS`` does, never runs the built-in
    team instead."""
    file = _team(tmp_path / "mine", LEAD, name="software")
    for choice in (str(file.parent), str(file)):
        with pytest.raises(TeamFileError) as caught:
            resolve_team(choice, {})
        assert caught.value.problems == [
            f"{file}: the team name 'software' is the built-in software team's; choose another"
        ]
    with pytest.raises(TeamFileError) as caught:
        load_teams(str(file))
    assert caught.value.problems == [
        f"{file}: the team name 'software' is the built-in software team's; choose another"
    ]


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ("agents.LEAD.result", "model_config"),
        ("agents.LEAD.result", "to_wire"),
        ("agents.LEAD.result", "team_agent"),
        ("agents.LEAD.question", "origin"),
        ("agents.LEAD.question", "reason"),
        ("agents.WORK.request", "guidance"),
        ("agents.WORK.request", "model_fields"),
        ("final", "json"),
    ],
)
def test_a_field_name_the_generated_model_has_is_refused(
    tmp_path: Path, table: str, field: str
) -> None:
    text = LEAD.replace('END = "done"', 'WORK = "work"') + (
        '[agents.WORK]\n[agents.WORK.routes]\nEND = "done"\n'
    )
    file = _team(tmp_path, f'{text}[{table}]\n{field} = "str"\n')
    problem = _one(file)
    what = table.split(".")[-1]
    where = "final result" if table == "final" else f"agent {table.split('.')[1]}: {what}"
    assert problem.startswith(f"{where} field {field}: the name is reserved (the generated "), (
        problem
    )


def test_a_nul_in_a_template_name_is_one_line_naming_the_agent(tmp_path: Path) -> None:
    file = _team(
        tmp_path,
        LEAD.replace("\n[agents.LEAD.routes]", '\ntemplate = "a\\u0000b"\n[agents.LEAD.routes]'),
    )
    assert _one(file) == (
        "agent LEAD: template file name 'a\\x00b' holds a NUL or another control character; "
        "name a file beside the team file"
    )


def _loaded_within(file: Path, seconds: float) -> list[str]:
    """The problems of ``file``, loaded in a thread that must finish within ``seconds``."""
    found: list[list[str]] = []
    thread = threading.Thread(target=lambda: found.append(_problems(file)), daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():  # unblock the loader: open the FIFO's other end
        with (
            suppress(OSError),
            open(os.open(file.parent / "lead.jinja", os.O_WRONLY | os.O_NONBLOCK), "w"),
        ):
            pass
        pytest.fail(f"loading {file} blocked for {seconds} s")
    return found[0]


def test_a_fifo_as_a_template_is_refused_without_blocking(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD, templates=False)
    os.mkfifo(tmp_path / "lead.jinja")
    (problem,) = _loaded_within(file, 10)
    assert problem == (
        f"{file}: agent LEAD: cannot read template file lead.jinja: it is not a regular file "
        "(a FIFO, a device or a socket)"
    )


def test_a_fifo_as_the_team_file_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "team.toml")
    (problem,) = _loaded_within(tmp_path / "team.toml", 10)
    assert problem.endswith(
        "cannot read the team file: it is not a regular file (a FIFO, a device or a socket)"
    )


def test_too_many_agents_are_refused_before_any_template_is_read(tmp_path: Path) -> None:
    """10,000 agents: one line, and none of their (missing) templates looked for."""
    agents = "".join(f"A{i} = {{}}\n" for i in range(10_000))
    file = _team(tmp_path, f"{LEAD}[agents]\n{agents}", templates=False)
    started = time.thread_time()  # this thread's CPU: a busy machine stretches the wall clock
    assert _one(file) == f"10,001 agents; a team has at most {MAX_TEAM_AGENTS}"
    assert time.thread_time() - started < 2


def test_an_enum_that_names_a_value_twice_is_refused(tmp_path: Path) -> None:
    file = _team(tmp_path, LEAD + '[agents.LEAD.result]\nseverity = "enum(A|B|A)"\n')
    assert _one(file) == (
        "agent LEAD: result field severity: field type 'enum(A|B|A)' names A more than once; "
        "name each once"
    )
