"""Temporal settings through temporalio.envconfig: variables, TOML profiles, deprecated names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent_interrupts.activities.output_schema import OutputProfile, decoder_schema, longest_reply
from agent_interrupts.app.config import (
    WORKER_CACHED_WORKFLOWS,
    WORKER_WORKFLOW_TASKS,
    InboxSettings,
    TemporalSettings,
    llm_settings_from_env,
    stuck_check_seconds,
    unknown_agent_settings,
    worker_drain,
    worker_max_activities,
    worker_max_cached_workflows,
    worker_max_workflow_tasks,
    worker_sticky,
)
from agent_interrupts.app.worker_setup import served_agents
from agent_interrupts.models.graph import NODES
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import builtin_team_files, load_team_file
from agent_interrupts.models.team_spec import TeamSpec

PROFILES = """
[profile.default]
address = "default-host:7233"

[profile.prod]
address = "prod.example:7233"
namespace = "prod-ns"
api_key = "prod-key"
"""


@pytest.fixture
def config_file(tmp_path: Path) -> str:
    path = tmp_path / "temporal.toml"
    path.write_text(PROFILES)
    return str(path)


def test_nothing_set_means_the_local_stack(tmp_path: Path) -> None:
    settings = TemporalSettings.from_env({"TEMPORAL_CONFIG_FILE": str(tmp_path / "none.toml")})
    assert settings.address is None and settings.namespace == "default"
    assert settings.port == 7233 and settings.ui_port == 8233 and not settings.uses_tls


def test_profiles_are_read_like_the_temporal_cli(config_file: str) -> None:
    default = TemporalSettings.from_env({"TEMPORAL_CONFIG_FILE": config_file})
    assert default.address == "default-host:7233"
    prod = TemporalSettings.from_env(
        {"TEMPORAL_CONFIG_FILE": config_file, "TEMPORAL_PROFILE": "prod"}
    )
    assert (prod.address, prod.namespace) == ("prod.example:7233", "prod-ns")
    assert prod.uses_api_key and prod.uses_tls, "an API key turns TLS on"
    assert "prod-key" not in repr(prod), "secrets stay out of reprs"


def test_variables_override_the_profile(config_file: str) -> None:
    settings = TemporalSettings.from_env(
        {
            "TEMPORAL_CONFIG_FILE": config_file,
            "TEMPORAL_PROFILE": "prod",
            "TEMPORAL_ADDRESS": "other:7233",
            "TEMPORAL_NAMESPACE": "other-ns",
            "TEMPORAL_TLS": "false",
        }
    )
    assert (settings.address, settings.namespace) == ("other:7233", "other-ns")
    assert settings.uses_api_key and not settings.uses_tls


def test_unknown_profile_names_the_setting(config_file: str) -> None:
    with pytest.raises(ValueError, match="TEMPORAL_PROFILE"):
        TemporalSettings.from_env({"TEMPORAL_CONFIG_FILE": config_file, "TEMPORAL_PROFILE": "x"})


def test_old_tls_names_still_work_with_a_deprecation_note(tmp_path: Path) -> None:
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    cert.write_bytes(b"CERT")
    key.write_bytes(b"KEY")
    settings = TemporalSettings.from_env(
        {
            "TEMPORAL_CONFIG_FILE": str(tmp_path / "none.toml"),
            "TEMPORAL_ADDRESS": "h:7233",
            "TEMPORAL_TLS_CERT": str(cert),
            "TEMPORAL_TLS_KEY": str(key),
        }
    )
    tls = settings.connect_config["tls"]
    assert (tls.client_cert, tls.client_private_key) == (b"CERT", b"KEY")
    assert any("TEMPORAL_TLS_CLIENT_CERT_PATH" in w for w in settings.warnings)
    assert any("TEMPORAL_TLS_CLIENT_KEY_PATH" in w for w in settings.warnings)


def test_missing_certificate_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="TEMPORAL_TLS"):
        TemporalSettings.from_env(
            {
                "TEMPORAL_CONFIG_FILE": str(tmp_path / "none.toml"),
                "TEMPORAL_TLS_CLIENT_CERT_PATH": str(tmp_path / "missing.pem"),
            }
        )


@pytest.mark.parametrize("value", ["abc", "0", "70000"])
def test_bad_port_names_the_variable(value: str) -> None:
    with pytest.raises(ValueError, match="AGENTS_PORT"):
        TemporalSettings.from_env({"AGENTS_PORT": value})


def test_a_slow_model_is_a_setting_not_a_code_edit() -> None:
    """A 20-minute request timeout, attempts, output limits, temperature."""
    llm = llm_settings_from_env(
        {
            "LLM_REQUEST_TIMEOUT": "1200",
            "LLM_VALIDATION_ATTEMPTS": "2",
            "LLM_MAX_OUTPUT_TOKENS": "512",
            "LLM_MAX_OUTPUT_TOKENS_REVIEW_AGENT": "128",
            "LLM_TEMPERATURE": "0.2",
            "LLM_ENDPOINT_ATTEMPTS": "7",
            "LLM_MAX_PHASE_ROUNDS": "3",
            "LLM_MAX_QUESTIONS": "4",
        }
    )
    assert llm.request_timeout.total_seconds() == 1200 and llm.validation_attempts == 2
    assert llm.max_tokens_for("ORCHESTRATOR") == (512, "LLM_MAX_OUTPUT_TOKENS")
    assert llm.max_tokens_for("REVIEW_AGENT")[0] == 128
    assert llm.temperature == 0.2 and llm.endpoint_attempts == 7 and llm.max_phase_rounds == 3
    assert llm.max_questions == 4


def test_per_agent_settings_name_any_teams_agent_and_a_worker_warns_of_one_it_does_not_serve() -> (
    None
):
    env = {
        "OPENAI_API_KEY": "k",
        "AGENT_MODEL": "big",
        "AGENT_MODEL_TRIAGE": "triage-model",
        "AGENT_MODEL_REVIEW_AGENT": "reviewer-model",
        "LLM_MAX_OUTPUT_TOKENS_TRIAGE": "777",
        "AGENT_MODEL_TRIAGEE": "typo",
        "AGENT_MODEL_INVESTIGATOR": "",
    }
    llm = llm_settings_from_env(env)
    assert llm.model_for("TRIAGE") == "triage-model" and llm.setting_for("TRIAGE") == (
        "AGENT_MODEL_TRIAGE"
    )
    assert llm.model_for("REVIEW_AGENT") == "reviewer-model"
    assert llm.model_for("INVESTIGATOR") == "big", "an empty setting is unset"
    assert (
        llm.setting_for("INVESTIGATOR") == "AGENT_MODEL, or AGENT_MODEL_INVESTIGATOR for this agent"
    )
    assert llm.max_tokens_for("TRIAGE") == (777, "LLM_MAX_OUTPUT_TOKENS_TRIAGE")
    with pytest.raises(ValueError, match="LLM_MAX_OUTPUT_TOKENS_TRIAGE"):
        llm_settings_from_env({"LLM_MAX_OUTPUT_TOKENS_TRIAGE": "0"})
    served = served_agents({"incident-response": _incident_response()})
    (warning,) = unknown_agent_settings(env, served)
    assert warning.startswith("AGENT_MODEL_TRIAGEE names no agent of the teams this worker serves")
    assert unknown_agent_settings(env, {*served, "TRIAGEE"}) == []


def _incident_response() -> TeamSpec:
    return load_team_file(builtin_team_files()["incident-response"])


def test_the_small_profile_gives_a_declared_teams_agents_room_for_their_longest_reply() -> None:
    spec = _incident_response()
    team = build_team(spec)
    small = llm_settings_from_env({"LLM_PROFILE": "small"}, [spec])
    for agent, node in team.nodes.items():
        longest = longest_reply(decoder_schema(node.output_model, OutputProfile.SMALL))
        assert small.max_tokens_for(agent) == (longest, f"LLM_MAX_OUTPUT_TOKENS_{agent}")
    software_only = llm_settings_from_env({"LLM_PROFILE": "small"})
    assert software_only.max_tokens_for("TRIAGE")[0] < small.max_tokens_for("TRIAGE")[0]
    assert software_only.max_tokens_for("REVIEW_AGENT") == small.max_tokens_for("REVIEW_AGENT")


def test_the_small_profile_is_one_setting_and_every_part_of_it_can_be_overridden() -> None:
    small = llm_settings_from_env({"LLM_PROFILE": "small"})
    assert small.profile is OutputProfile.SMALL
    for agent, node in NODES.items():  # room for the longest reply its schema admits
        longest = longest_reply(decoder_schema(node.output_model, OutputProfile.SMALL))
        assert small.max_tokens_for(agent.value)[0] == longest
        # a discovery report holds SC-011's 10 file references, 5 tags and 3 queries
        assert longest < 4_000, "a small model's reply takes at most minutes on a CPU"
    assert small.temperature == 0 and small.validation_attempts == 2
    assert small.request_timeout.total_seconds() == 900 and small.max_phase_rounds == 1
    assert small.max_questions == 1
    mine = llm_settings_from_env(
        {"LLM_PROFILE": "SMALL", "LLM_MAX_OUTPUT_TOKENS": "300", "LLM_TEMPERATURE": "0.5"}
    )
    assert mine.max_tokens_for("ORCHESTRATOR") == (300, "LLM_MAX_OUTPUT_TOKENS")
    assert mine.temperature == 0.5 and mine.validation_attempts == 2
    standard = llm_settings_from_env({})
    assert standard.profile is OutputProfile.STANDARD and standard.temperature is None
    assert standard.max_phase_rounds is None, "unset: only the step budget bounds a loop"
    assert standard.max_questions is None


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("LLM_REQUEST_TIMEOUT", "soon"),
        ("LLM_MAX_OUTPUT_TOKENS", "0"),
        ("LLM_TEMPERATURE", "hot"),
        ("LLM_ENDPOINT_ATTEMPTS", "-1"),
        ("LLM_PROFILE", "tiny"),
        ("LLM_MAX_PHASE_ROUNDS", "0"),
        ("LLM_MAX_QUESTIONS", "many"),
    ],
)
def test_a_bad_model_setting_names_itself(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name):
        llm_settings_from_env({name: value})


@pytest.mark.parametrize(
    ("name", "read"),
    [
        ("AGENTS_WORKER_DRAIN_SECONDS", lambda env: worker_drain(env).total_seconds()),
        ("AGENTS_STUCK_CHECK_SECONDS", stuck_check_seconds),
    ],
)
def test_worker_seconds_settings_take_zero_or_more_and_name_themselves(
    name: str, read: Callable[[dict[str, str]], float]
) -> None:
    assert read({name: "2.5"}) == 2.5 and read({name: "0"}) == 0
    assert read({}) > 0, "a default"
    for bad in ("-1", "soon", "inf", "nan", "1e20"):
        with pytest.raises(ValueError, match=f"{name} must be a number of seconds from 0 to"):
            read({name: bad})


def test_max_activities_is_a_whole_number_or_unset() -> None:
    assert worker_max_activities({}) is None and worker_max_activities({"X": "1"}) is None
    assert worker_max_activities({"AGENTS_WORKER_MAX_ACTIVITIES": "40"}) == 40
    with pytest.raises(ValueError, match="AGENTS_WORKER_MAX_ACTIVITIES must be at most"):
        worker_max_activities({"AGENTS_WORKER_MAX_ACTIVITIES": "1" + "0" * 30})
    for bad in ("0", "-3", "many", "2.5"):
        with pytest.raises(ValueError, match="AGENTS_WORKER_MAX_ACTIVITIES must be a whole number"):
            worker_max_activities({"AGENTS_WORKER_MAX_ACTIVITIES": bad})


def test_the_worker_cache_is_a_whole_number_with_a_measured_default() -> None:
    name = "AGENTS_WORKER_MAX_CACHED_WORKFLOWS"
    assert worker_max_cached_workflows({}) == WORKER_CACHED_WORKFLOWS
    assert worker_max_cached_workflows({name: "250"}) == 250
    assert worker_max_cached_workflows({name: "0"}) == 0, "0: every task replays"
    for bad in ("-1", "many", "2.5", "1" + "0" * 30):
        with pytest.raises(ValueError, match=f"{name} must be a whole number from 0 to"):
            worker_max_cached_workflows({name: bad})


def test_workflow_tasks_at_once_are_a_whole_number_from_two() -> None:
    name = "AGENTS_WORKER_MAX_WORKFLOW_TASKS"
    assert worker_max_workflow_tasks({}) == WORKER_WORKFLOW_TASKS == 2
    assert worker_max_workflow_tasks({name: " 8 "}) == 8
    for bad in ("1", "0", "-2", "many", "2.5", "1" + "0" * 30):
        with pytest.raises(ValueError, match=f"{name} must be a whole number from 2 to"):
            worker_max_workflow_tasks({name: bad})


def test_the_sticky_wait_is_a_positive_number_of_seconds_that_names_itself() -> None:
    assert worker_sticky({}).total_seconds() == 10
    assert worker_sticky({"AGENTS_WORKER_STICKY_SECONDS": "0.5"}).total_seconds() == 0.5
    for bad in ("0", "-1", "soon"):
        with pytest.raises(ValueError, match="AGENTS_WORKER_STICKY_SECONDS"):
            worker_sticky({"AGENTS_WORKER_STICKY_SECONDS": bad})


def test_a_base_url_without_a_key_is_refused_with_its_password_redacted() -> None:
    with pytest.raises(ValueError, match="OPENAI_API_KEY is unset") as refused:
        llm_settings_from_env({"OPENAI_BASE_URL": "http://ada:s3cret-pass@host/v1"})
    assert "s3cret-pass" not in str(refused.value)


def test_a_proxy_header_beside_named_tokens_is_refused() -> None:
    env = {
        "AGENTS_INBOX_TOKEN": "ada=tok-ada-0123456789abcdef",
        "AGENTS_INBOX_USER_HEADER": "X-Forwarded-User",
    }
    with pytest.raises(ValueError, match="AGENTS_INBOX_USER_HEADER and named tokens"):
        InboxSettings.from_env(env)
