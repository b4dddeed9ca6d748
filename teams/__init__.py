"""The teams the package ships: each a folder with its file (``team.toml``) and one template per
agent (``docs/teams.md``); the software team's folder is also the package of its typed models
(``agent_interrupts.teams.software``)."""
