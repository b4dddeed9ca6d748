"""The software team is a team file, loaded, checked and built by the code every team goes
through; the manual quotes it as it is."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from agent_interrupts.models.errors import TeamFileError
from agent_interrupts.models.graph import SOFTWARE_TEAM
from agent_interrupts.models.team_build import build_from_spec
from agent_interrupts.models.team_files import (
    PROMPTS_DIR,
    load_software_team,
    load_team_file,
    own_partials,
    software_team_file,
    template_problem,
)
from agent_interrupts.models.team_spec import Role

ROOT = Path(__file__).parents[2]
SECTION = "## The software team's own file"


def test_the_manual_quotes_the_software_teams_file_as_it_is() -> None:
    page = (ROOT / "docs" / "teams.md").read_text()
    section = page.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```toml\n(.*?)```", section, re.S)
    text = software_team_file().read_text()
    assert len(blocks) >= 3
    for block in blocks:
        assert block in text, block.splitlines()[0]


def test_the_software_team_is_what_its_file_declares() -> None:
    spec = load_software_team()
    built = build_from_spec(spec)
    assert list(built.nodes) == [a.name for a in spec.agents] == list(SOFTWARE_TEAM.nodes)
    assert built.roles == SOFTWARE_TEAM.roles == {a.name: a.role for a in spec.agents}
    assert built.entry == spec.starts_at and built.entry_request["phase"] == "DISCOVERY"
    assert SOFTWARE_TEAM.with_role(Role.REVIEWER) == {"REVIEW_AGENT"}
    assert SOFTWARE_TEAM.write_tools == {a.name for a in spec.agents if "write" in a.tools}
    for agent in spec.agents:
        node = SOFTWARE_TEAM.node(agent.name)
        assert agent.classes is not None
        assert node.output_model.__name__ == agent.classes.routing
        assert node.request_model.__name__ == agent.classes.request
        assert node.phase == agent.phase
        assert node.template in SOFTWARE_TEAM.templates
    assert SOFTWARE_TEAM.builtin and SOFTWARE_TEAM.sha256 == "" and SOFTWARE_TEAM.pin.spec is None


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "software"
    shutil.copytree(software_team_file().parent, folder)
    return folder / "team.toml"


def test_routes_that_are_not_the_routings_are_refused_in_one_line(tmp_path: Path) -> None:
    file = _copy(tmp_path)
    text = file.read_text()
    file.write_text(text.replace('"The work is approved: go to the merger."', '"Merge it."'))
    with pytest.raises(TeamFileError) as err:
        load_team_file(file)
    assert err.value.problems == [
        f"{file}: agent REVIEW_AGENT: the route to MERGER_AGENT says 'Merge it.'; its routing "
        "says 'The work is approved: go to the merger.'"
    ]


def test_a_class_the_package_does_not_have_is_named(tmp_path: Path) -> None:
    file = _copy(tmp_path)
    file.write_text(file.read_text().replace('routing = "ReviewRouting"', 'routing = "Reviewing"'))
    with pytest.raises(TeamFileError) as err:
        load_team_file(file)
    assert err.value.problems == [
        f"{file}: agent REVIEW_AGENT: Reviewing is not a routing of the package"
    ]


def test_a_declared_team_may_have_several_orchestrators_and_start_at_one(tmp_path: Path) -> None:
    file = tmp_path / "team.toml"
    file.write_text(
        'name = "two-phases"\nstarts_at = "FIRST"\n[first_request]\nguidance = "Begin."\n'
        '[agents.FIRST]\nrole = "orchestrator"\ntemplate = "t.jinja"\n'
        '[agents.FIRST.routes]\nSECOND = "next phase"\n'
        '[agents.SECOND]\nrole = "orchestrator"\nphase = "LATER"\ntemplate = "t.jinja"\n'
        '[agents.SECOND.routes]\nEND = "done"\n'
    )
    (tmp_path / "t.jinja").write_text('{% extends "workflow/_agent_base.jinja" %}')
    team = build_from_spec(load_team_file(file))
    assert team.entry == "FIRST" and team.entry_request["guidance"] == "Begin."
    assert team.with_role(Role.ORCHESTRATOR) == {"FIRST", "SECOND"}
    file.write_text(file.read_text().replace('starts_at = "FIRST"\n', ""))
    with pytest.raises(TeamFileError, match="exactly one agent with role orchestrator"):
        load_team_file(file)


def test_the_software_teams_templates_are_templates_of_the_package() -> None:
    """Checked here, not at every start of a command (``load_software_team`` parses none)."""
    folder = software_team_file().parent
    own = own_partials({"name": "software"}, software_team_file())
    assert own == {"team/software/_software_agent.jinja": folder / "_software_agent.jinja"}
    for template in sorted(folder.glob("*.jinja")):
        assert template_problem(template.name, template.read_text(), own) is None, template.name
    assert template_problem("x.jinja", '{% extends "../../etc/passwd" %}') is not None


def test_the_software_teams_partial_is_its_own_and_no_declared_team_reaches_it(
    tmp_path: Path,
) -> None:
    """Its base lives beside its file, not in the package's prompts; a declared team's
    templates may extend only the package's prompts (theirs are pinned by their text)."""
    assert not (PROMPTS_DIR / "workflow" / "_software_agent.jinja").exists()
    assert (software_team_file().parent / "_software_agent.jinja").is_file()
    file = tmp_path / "team.toml"
    file.write_text(
        'name = "borrower"\n[agents.ONLY]\nrole = "orchestrator"\n'
        '[agents.ONLY.routes]\nEND = "done"\n'
    )
    (tmp_path / "_software_agent.jinja").write_text('{% extends "workflow/_agent_base.jinja" %}')
    for used in ("team/software/_software_agent.jinja", "team/borrower/_software_agent.jinja"):
        (tmp_path / "only.jinja").write_text(f'{{% extends "{used}" %}}')
        with pytest.raises(TeamFileError) as err:
            load_team_file(file)
        assert err.value.problems == [
            f"{file}: agent ONLY: template file only.jinja extends or includes {used!r}, which "
            "is not a template of the package's prompts/ (e.g. workflow/_agent_base.jinja)"
        ]
