"""Settings read from the environment (never inside workflow code).

Temporal connection settings are Temporal's standard ones, read by ``temporalio.envconfig``:
``TEMPORAL_ADDRESS``, ``TEMPORAL_NAMESPACE``, ``TEMPORAL_API_KEY``, ``TEMPORAL_TLS*``,
``TEMPORAL_PROFILE`` and the TOML file of ``TEMPORAL_CONFIG_FILE`` (shared with the ``temporal``
CLI). No address anywhere means: use the local stack of the state directory.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from temporalio.envconfig import ClientConfigProfile

from agent_interrupts.app.people import checked_name, person_name
from agent_interrupts.models.agent_types import AGENT_NAME_PATTERN
from agent_interrupts.models.policies import (
    LLM_ENDPOINT_ATTEMPTS,
    LLM_MAX_OUTPUT_TOKENS,
    LLM_REQUEST_TIMEOUT,
    LLM_VALIDATION_ATTEMPTS,
)

if TYPE_CHECKING:  # the activities' settings load where they are read (commands start fast)
    from agent_interrupts.activities.answer_links import LinkSigner
    from agent_interrupts.activities.llm import LlmSettings
    from agent_interrupts.activities.notify import NotifySettings
    from agent_interrupts.activities.output_schema import OutputProfile
    from agent_interrupts.models.answer_rules import AnswerRules
    from agent_interrupts.models.team_spec import TeamSpec

DEFAULT_TASK_QUEUE = "agents"
DEFAULT_NAMESPACE = "default"
DEFAULT_STATE_DIR = Path(".state")
DEFAULT_PORT = 7233
DEFAULT_UI_PORT = 8233
DEFAULT_INBOX_HOST = "127.0.0.1"
DEFAULT_INBOX_PORT = 8300
MIN_INBOX_TOKEN_CHARS = 16

OFFLINE_MAX_ACTIVITIES = 16
"""Default activities one worker runs at once with the offline model (a worker setting, env
AGENTS_WORKER_MAX_ACTIVITIES; with a model endpoint the SDK's 100). The offline model answers on
the worker's own event loop: with 100 at once, 200 concurrent runs made it late enough with
heartbeats that about 1 in 130 agent calls timed out and ran again (``bench.throughput``)."""
WORKER_DRAIN_SECONDS = 10.0
"""Default time a stopping ``worker.py`` lets its running activities finish before it cancels
them (a worker setting, env AGENTS_WORKER_DRAIN_SECONDS): a deploy then repeats no model call or
notice that was about to complete. ``agents down`` waits 15 s for a worker before killing it."""
WORKER_STICKY_SECONDS = 10.0
"""Default time a run's next workflow task waits for the worker that ran its last one (its sticky
queue, which holds the run's state in memory) before any worker may take it with the run's whole
history (a worker setting, env AGENTS_WORKER_STICKY_SECONDS; Temporal's default). A busy worker's
tasks wait on its sticky queue for a free workflow-task slot: with 100 concurrent runs on one
worker they waited up to 5 s, so with 2 s a third of them moved to the normal queue, where the
server sent each its run's whole history and it waited again behind new runs (``bench.throughput``,
quiet: 0.82x the same calls' rate, against 0.96x with 10 s; medians of 2 runs at load 8-13). A run
whose worker died waits this long only when no activity of its was lost with that worker (a killed
call's next attempt clears its run's sticky queue, ``activities/heartbeat.py``), e.g. its answer
arriving while it waited on a question: once, for as long as this. A worker stopped gracefully
clears the sticky queue of every run it caches (``app/sticky_release.py``): those never wait."""

WORKER_CACHED_WORKFLOWS = 500
"""Default number of workflows (a run, each of its questions) one worker holds in memory (a
worker setting, env AGENTS_WORKER_MAX_CACHED_WORKFLOWS; the SDK's default is 1,000). Chosen by
``bench.scale``: a cached waiting run costs the worker about 0.4 MB, while the answer of an evicted
one, which replays its short history, took no longer than a cached one's (0.18 against 0.27 s at
load 28): half the SDK's default halves the memory bound at no cost a person sees. A run's
history is at most ``HISTORY_HANDOVER_BYTES`` before it continues as new, which bounds a replay."""

WORKER_WORKFLOW_TASKS = 2
"""Default number of workflow tasks one worker runs at once (a worker setting, env
AGENTS_WORKER_MAX_WORKFLOW_TASKS; the SDK's default is 100, and 2 is the least it takes with a
cache). A workflow task is Python code holding the interpreter's lock from start to end, so tasks
run side by side only share it: each takes as many times longer as there are, and the worker's
event loop (its activities' heartbeats, the offline model) gets a smaller share. With 100 at once,
100 runs on a worker whose cores were oversubscribed 4x made their tasks overrun the SDK's
2-second deadlock check and the 10-second workflow-task timeout, retried again and again
(``bench.throughput``)."""

MAX_SETTING_SECONDS = 1e9
"""The most seconds a duration setting takes (about 31 years; more overflows a timedelta)."""
MAX_WORKER_ACTIVITIES = 100_000
MAX_LINK_HOURS = 24 * 366

DEPRECATED_NAMES = {
    "TEMPORAL_TLS_CERT": "TEMPORAL_TLS_CLIENT_CERT_PATH",
    "TEMPORAL_TLS_KEY": "TEMPORAL_TLS_CLIENT_KEY_PATH",
}
"""Old variable -> its standard name; the old ones still work for one release."""


@dataclass(frozen=True)
class TemporalSettings:
    """Where Temporal is. No address means: the local stack under ``state_dir``."""

    address: str | None = None
    namespace: str = DEFAULT_NAMESPACE
    task_queue: str = DEFAULT_TASK_QUEUE
    connect_config: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """Keyword arguments for ``Client.connect`` from envconfig (may hold the API key)."""
    state_dir: Path = DEFAULT_STATE_DIR
    port: int = DEFAULT_PORT
    ui_port: int = DEFAULT_UI_PORT
    warnings: tuple[str, ...] = ()
    """Deprecation notes for the person running the command."""

    @property
    def uses_api_key(self) -> bool:
        return bool(self.connect_config.get("api_key"))

    @property
    def uses_tls(self) -> bool:
        return bool(self.connect_config.get("tls"))

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> TemporalSettings:
        """Read envconfig (profile file + ``TEMPORAL_*``) and this project's own variables.

        Raises ValueError with one line naming the setting when something is unusable.
        """
        overrides = dict(env)
        notes = []
        for old, new in DEPRECATED_NAMES.items():
            if overrides.get(old):
                notes.append(f"{old} is deprecated; set {new} instead (the standard name)")
                overrides.setdefault(new, overrides[old])
        try:
            profile = ClientConfigProfile.load(
                env.get("TEMPORAL_PROFILE") or None, override_env_vars=overrides
            )
            config = dict(profile.to_client_connect_config())  # reads TLS files
        except Exception as err:  # the bridge raises its own ConfigError; files raise OSError
            raise ValueError(
                f"cannot read the Temporal settings: {err}; check TEMPORAL_PROFILE, "
                "TEMPORAL_CONFIG_FILE and the TEMPORAL_TLS_* paths"
            ) from None
        config.pop("target_host", None)
        return cls(
            address=profile.address or None,
            namespace=profile.namespace or DEFAULT_NAMESPACE,
            task_queue=env.get("TEMPORAL_TASK_QUEUE") or DEFAULT_TASK_QUEUE,
            connect_config=config,
            state_dir=Path(env.get("AGENTS_STATE_DIR") or DEFAULT_STATE_DIR),
            port=_port(env, "AGENTS_PORT", DEFAULT_PORT),
            ui_port=_port(env, "AGENTS_UI_PORT", DEFAULT_UI_PORT),
            warnings=tuple(notes),
        )


@dataclass(frozen=True)
class InboxSettings:
    """Where ``agents inbox`` listens, and the token every request must carry (None: none)."""

    host: str = DEFAULT_INBOX_HOST
    port: int = DEFAULT_INBOX_PORT
    token: str | None = field(default=None, repr=False)
    """The one token of everyone (its answers carry ``person``); None: none, or named ones."""
    people: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Named tokens: token -> the name of the person it belongs to (``NAME=TOKEN`` pairs)."""
    user_header: str | None = None
    """The header an authenticating proxy in front of the inbox sets to the person's name
    (``AGENTS_INBOX_USER_HEADER``); trusted only when set."""
    person: str | None = field(default_factory=person_name)
    """The name of answers that no named token or header names: the inbox's own
    ``AGENTS_USER``, else the login name of whoever started it."""
    signing_secret: str | None = field(default=None, repr=False)
    """``AGENTS_SIGNING_SECRET``: checks the signed answer links (``/answer/TOKEN``); None:
    the inbox answers no link."""

    @property
    def needs_token(self) -> bool:
        return self.token is not None or bool(self.people)

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] = os.environ,
        *,
        host: str | None = None,
        port: int | None = None,
        token: str | None = None,
    ) -> InboxSettings:
        """Flags first, then ``AGENTS_INBOX_PORT``, ``AGENTS_INBOX_TOKEN`` (one token, or
        ``NAME=TOKEN`` pairs separated by commas) and ``AGENTS_INBOX_USER_HEADER``.

        Raises ValueError naming the flag for a bind off loopback without a token (anyone who
        reaches the port could answer) and for a token too short to guess at.
        """
        host = host or DEFAULT_INBOX_HOST
        plain, people = inbox_tokens(token or env.get("AGENTS_INBOX_TOKEN") or "")
        if plain is None and not people and not is_loopback(host):
            raise ValueError(
                f"--host {host} is not a loopback address: give --token (or set "
                "AGENTS_INBOX_TOKEN) so that only people with the link can answer"
            )
        if port is not None and not 0 < port < 65536:
            raise ValueError(f"--port {port} is not a port number (1-65535)")
        header = env.get("AGENTS_INBOX_USER_HEADER", "").strip() or None
        if header is not None and not _HEADER_NAME.fullmatch(header):
            raise ValueError(
                f"AGENTS_INBOX_USER_HEADER {header[:60]!r} is not a header name "
                "(e.g. X-Forwarded-User)"
            )
        if header is not None and people:
            raise ValueError(
                "AGENTS_INBOX_USER_HEADER and named tokens (NAME=TOKEN) both name people: give "
                "one (a token holder could otherwise sign as anyone through the header)"
            )
        return cls(
            host,
            port or _port(env, "AGENTS_INBOX_PORT", DEFAULT_INBOX_PORT),
            plain,
            people,
            header,
            person_name(env=env),
            signing_secret(env),
        )


_HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}")


def inbox_tokens(value: str) -> tuple[str | None, dict[str, str]]:
    """``--token`` / ``AGENTS_INBOX_TOKEN``: one token, or ``NAME=TOKEN`` pairs separated by
    commas (a token itself holds no comma, and no ``=`` before its end). Returns the plain
    token and the named ones (token -> name); ValueError naming the flag for a token too short
    to guess at, two plain tokens or a token given twice."""
    plain: list[str] = []
    people: dict[str, str] = {}
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        name, _, token = item.partition("=")
        if token.rstrip("=") and name.strip():  # NAME=TOKEN (base64's trailing '=' is a token)
            if token in people:
                raise ValueError("--token: a token is given twice; give each person their own")
            people[token] = checked_name(name, "--token NAME=TOKEN")
        else:
            plain.append(item)
    if len(plain) > 1 or (plain and people):
        raise ValueError(
            "--token: give one token, or NAME=TOKEN pairs separated by commas (one per person)"
        )
    for token in [*plain, *people]:
        if len(token) < MIN_INBOX_TOKEN_CHARS:
            raise ValueError(
                f"--token must be at least {MIN_INBOX_TOKEN_CHARS} characters, e.g. the output "
                'of: python -c "import secrets; print(secrets.token_urlsafe())"'
            )
    return (plain[0] if plain else None), people


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def signing_secret(env: Mapping[str, str] = os.environ, door: str | None = None) -> str | None:
    """``AGENTS_SIGNING_SECRET``; ValueError (one line naming it) when it is too short, or
    unset while ``door`` needs it."""
    from agent_interrupts.models.signing import secret_problem

    secret = env.get("AGENTS_SIGNING_SECRET") or None
    if secret is None and door is None:
        return None
    problem = secret_problem(secret, door or "a signed link")
    if problem is not None:
        raise ValueError(problem)
    return secret


IMAP_SECURITIES = ("ssl", "starttls", "none")


@dataclass(frozen=True)
class ImapSettings:
    """The email door's second way in: an IMAP mailbox that ``agents inbox`` polls for replies
    to notices (``AGENTS_IMAP_*``)."""

    host: str
    port: int
    user: str
    password: str = field(repr=False)
    """``AGENTS_IMAP_PASSWORD``: a secret, never logged or shown."""
    mailbox: str = "INBOX"
    seconds: float = 30.0
    security: str = "ssl"
    """``ssl`` (IMAPS), ``starttls`` or ``none`` (plain text: a loopback server only)."""

    @property
    def where(self) -> str:
        """``user@host:port/mailbox``: the mailbox in a log line (no password)."""
        return f"{self.user}@{self.host}:{self.port}/{self.mailbox}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ImapSettings | None:
        """None unless ``AGENTS_IMAP_HOST`` is set; ValueError naming the setting otherwise."""
        from agent_interrupts.models.policies import IMAP_POLL_INTERVAL

        host = env.get("AGENTS_IMAP_HOST", "").strip()
        if not host:
            return None
        security = env.get("AGENTS_IMAP_SECURITY", "ssl").strip().lower() or "ssl"
        if security not in IMAP_SECURITIES:
            raise ValueError(
                f"AGENTS_IMAP_SECURITY must be ssl, starttls or none, not {security[:20]!r}"
            )
        user, password = env.get("AGENTS_IMAP_USER", ""), env.get("AGENTS_IMAP_PASSWORD", "")
        if not user or not password:
            raise ValueError(
                "AGENTS_IMAP_HOST needs AGENTS_IMAP_USER and AGENTS_IMAP_PASSWORD: the mailbox's "
                "login"
            )
        mailbox = env.get("AGENTS_IMAP_MAILBOX", "").strip() or "INBOX"
        if len(mailbox) > 200 or any(c in mailbox for c in '"\\\r\n'):
            raise ValueError("AGENTS_IMAP_MAILBOX must be a mailbox name without quotes or breaks")
        raw = env.get("AGENTS_IMAP_SECONDS", "").strip()
        seconds = IMAP_POLL_INTERVAL.total_seconds()
        if raw:
            try:
                seconds = float(raw)
            except ValueError:
                seconds = -1.0
            if not 1 <= seconds <= 3600:
                raise ValueError(f"AGENTS_IMAP_SECONDS must be 1 to 3600 seconds, not {raw[:20]!r}")
        return cls(
            host=host,
            port=_port(env, "AGENTS_IMAP_PORT", 993 if security == "ssl" else 143),
            user=user,
            password=password,
            mailbox=mailbox,
            seconds=seconds,
            security=security,
        )


@dataclass(frozen=True)
class MailDoorSettings:
    """The email door: the SMTP server of ``agents inbox`` that takes replies to notices (and
    the IMAP mailbox it polls for them), and the SMTP server its own replies (taken, refused) go
    out through."""

    host: str
    port: int
    """The SMTP server's port; 0: no SMTP server (replies come by IMAP only)."""
    secret: str = field(repr=False)
    smtp_url: str | None = field(default=None, repr=False)
    """``SMTP_URL``: where the door's replies go out; None: it sends none."""
    sender: str = "agent-interrupts@localhost"
    """The From of its replies: ``INTERRUPT_EMAIL_REPLY_TO``, else ``INTERRUPT_EMAIL_FROM``."""
    any_sender: bool = False
    """``AGENTS_MAIL_ANY_SENDER``: take a reply from any sender, not only the notice's
    addressee (the answer rules of the question still apply)."""
    imap: ImapSettings | None = None
    """``AGENTS_IMAP_HOST`` and the rest: the mailbox polled for replies; None: none."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> MailDoorSettings | None:
        """None unless ``AGENTS_MAIL_PORT`` or ``AGENTS_IMAP_HOST`` is set; ValueError naming
        the setting otherwise."""
        imap = ImapSettings.from_env(env)
        if not env.get("AGENTS_MAIL_PORT") and imap is None:
            return None
        door = (
            "the email door (AGENTS_MAIL_PORT)"
            if env.get("AGENTS_MAIL_PORT")
            else "the email door (AGENTS_IMAP_HOST)"
        )
        secret = signing_secret(env, door)
        assert secret is not None  # signing_secret raises for a door without one
        smtp_url = env.get("SMTP_URL") or None
        if smtp_url is not None:
            from agent_interrupts.activities.notify_channels import SmtpTarget

            SmtpTarget.parse(smtp_url)  # ValueError naming SMTP_URL
        flag = env.get("AGENTS_MAIL_ANY_SENDER", "").strip().lower()
        if flag not in ("", "0", "1", "no", "yes", "false", "true"):
            raise ValueError(f"AGENTS_MAIL_ANY_SENDER must be 1 or 0, not {flag[:20]!r}")
        return cls(
            host=env.get("AGENTS_MAIL_HOST") or DEFAULT_INBOX_HOST,
            port=_port(env, "AGENTS_MAIL_PORT", 0),
            secret=secret,
            smtp_url=smtp_url,
            sender=env.get("INTERRUPT_EMAIL_REPLY_TO")
            or env.get("INTERRUPT_EMAIL_FROM")
            or cls.sender,
            any_sender=flag in ("1", "yes", "true"),
            imap=imap,
        )


def _port(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if not raw:
        return default
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ValueError(f"{name}={raw!r} is not a port number (1-65535)")
    return int(raw)


SMALL_MODEL_SETTINGS: dict[str, str] = {
    "LLM_TEMPERATURE": "0",
    "LLM_VALIDATION_ATTEMPTS": "2",
    "LLM_REQUEST_TIMEOUT": "900",
    "LLM_MAX_PHASE_ROUNDS": "1",
    "LLM_MAX_QUESTIONS": "1",
}
"""What ``LLM_PROFILE=small`` sets unless the environment sets it too, besides the output limits
(``small_model_output_limits``): a model of a few hundred million parameters on a CPU (measured
with SmolLM2-135M on 2 cores, README "Small local models")."""


def small_model_output_limits(teams: Iterable[TeamSpec] = ()) -> dict[str, str]:
    """``LLM_PROFILE=small``'s output limits: each agent's the longest reply its small schema
    admits (``longest_reply``), so no reply is cut off; LLM_MAX_OUTPUT_TOKENS, for the calls
    that answer questions, the longest of theirs (any resume route, the reviewer's decision).
    The software team's agents, and ``teams``' (the declared teams a worker serves: an agent
    name two teams share takes the longer limit)."""
    from agent_interrupts.activities.output_schema import (
        OutputProfile,
        longest_reply,
        shared_decoder_schema,
    )
    from agent_interrupts.activities.route_filter import routing_schema
    from agent_interrupts.models.interrupt_flow import AgentReviewDecision
    from agent_interrupts.models.team_build import build_team, team_of

    small = OutputProfile.SMALL
    longest: dict[str, int] = {}
    answering = [shared_decoder_schema(AgentReviewDecision, small)]
    for team in [team_of(None), *(build_team(spec) for spec in teams)]:
        for agent, node in team.nodes.items():
            reply = longest_reply(shared_decoder_schema(node.output_model, small))
            longest[agent] = max(reply, longest.get(agent, 0))
        routing = team.interrupt_routing
        answering += [routing_schema(route, small, routing) for route in routing.route_aliases()]
    limits = {f"LLM_MAX_OUTPUT_TOKENS_{agent}": str(n) for agent, n in longest.items()}
    limits["LLM_MAX_OUTPUT_TOKENS"] = str(max(map(longest_reply, answering)))
    return limits


MODEL_PREFIX = "AGENT_MODEL_"
OUTPUT_TOKENS_PREFIX = "LLM_MAX_OUTPUT_TOKENS_"
PER_AGENT_PREFIXES = (MODEL_PREFIX, OUTPUT_TOKENS_PREFIX)
"""The per-agent settings: ``AGENT_MODEL_<AGENT>`` and ``LLM_MAX_OUTPUT_TOKENS_<AGENT>``, for
an agent of any team (the software team's, a declared team's) or the handler's calls."""
_AGENT_NAME = re.compile(AGENT_NAME_PATTERN)


def agents_named(env: Mapping[str, str], prefix: str) -> list[str]:
    """The agents the environment's ``<prefix><AGENT>`` settings name (set, not empty), sorted:
    any name an agent may have, of any team."""
    return sorted(
        name.removeprefix(prefix)
        for name, value in env.items()
        if name.startswith(prefix) and value and _AGENT_NAME.match(name.removeprefix(prefix))
    )


def unknown_agent_settings(env: Mapping[str, str], agents: Collection[str]) -> list[str]:
    """A line for each per-agent setting (``PER_AGENT_PREFIXES``) that names none of ``agents``
    (the agents of the teams a worker serves, and the handler's calls): it changes nothing."""
    return [
        f"{prefix}{agent} names no agent of the teams this worker serves, so it changes "
        "nothing; spell the agent's name as its team declares it (docs/teams.md), or serve its "
        "team (AGENTS_TEAMS)"
        for prefix in PER_AGENT_PREFIXES
        for agent in agents_named(env, prefix)
        if agent not in agents
    ]


def llm_settings_from_env(
    env: Mapping[str, str] = os.environ, teams: Iterable[TeamSpec] = ()
) -> LlmSettings:
    """OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_MODEL, AGENT_MODEL_<AGENT> overrides (any team's
    agent) and CONTROLLER_MODEL (answers AGENT_REVIEW questions and timeout escalations);
    LLM_PROFILE (``small``: SMALL_MODEL_SETTINGS are the defaults, with the output limits of the
    software team's agents and ``teams``')."""
    from agent_interrupts.activities.llm import DEFAULT_MODEL, LlmSettings
    from agent_interrupts.activities.output_schema import OutputProfile
    from agent_interrupts.activities.redaction import redact

    profile = _profile(env.get("LLM_PROFILE", "").strip())
    if profile is OutputProfile.SMALL:
        limits = {} if env.get("LLM_MAX_OUTPUT_TOKENS") else small_model_output_limits(teams)
        env = {**SMALL_MODEL_SETTINGS, **limits, **env}
    overrides = {agent: env[f"AGENT_MODEL_{agent}"] for agent in agents_named(env, MODEL_PREFIX)}
    if env.get("OPENAI_BASE_URL") and not env.get("OPENAI_API_KEY"):
        raise ValueError(
            f"OPENAI_BASE_URL is {redact(env['OPENAI_BASE_URL'])} but OPENAI_API_KEY is unset: "
            "the offline model would answer in place of that endpoint. Set OPENAI_API_KEY (any "
            "value, e.g. local, for a server that needs no key), or unset OPENAI_BASE_URL for the "
            "offline model"
        )
    return LlmSettings(
        api_key=env.get("OPENAI_API_KEY") or None,
        base_url=env.get("OPENAI_BASE_URL") or None,
        model=env.get("AGENT_MODEL") or DEFAULT_MODEL,
        agent_models=overrides,
        controller_model=env.get("CONTROLLER_MODEL") or None,
        endpoint_attempts=_positive(env, "LLM_ENDPOINT_ATTEMPTS", LLM_ENDPOINT_ATTEMPTS),
        request_timeout=timedelta(
            seconds=_positive(env, "LLM_REQUEST_TIMEOUT", int(LLM_REQUEST_TIMEOUT.total_seconds()))
        ),
        validation_attempts=_positive(env, "LLM_VALIDATION_ATTEMPTS", LLM_VALIDATION_ATTEMPTS),
        max_output_tokens=_positive(env, "LLM_MAX_OUTPUT_TOKENS", LLM_MAX_OUTPUT_TOKENS),
        agent_max_output_tokens={
            agent: _positive(env, f"LLM_MAX_OUTPUT_TOKENS_{agent}", 1)
            for agent in agents_named(env, OUTPUT_TOKENS_PREFIX)
        },
        temperature=_temperature(env.get("LLM_TEMPERATURE", "").strip()),
        context_tokens=_positive(env, "LLM_CONTEXT_TOKENS", 0) or None,
        profile=profile,
        max_phase_rounds=_positive(env, "LLM_MAX_PHASE_ROUNDS", 0) or None,
        max_questions=_positive(env, "LLM_MAX_QUESTIONS", 0) or None,
    )


def _profile(raw: str) -> OutputProfile:
    from agent_interrupts.activities.output_schema import OutputProfile

    try:
        return OutputProfile(raw.lower() or OutputProfile.STANDARD)
    except ValueError:
        names = ", ".join(p.value for p in OutputProfile)
        raise ValueError(f"LLM_PROFILE must be one of {names}, not {raw!r}") from None


def _temperature(raw: str) -> float | None:
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 2:
        raise ValueError(f"LLM_TEMPERATURE must be a number from 0 to 2, not {raw!r}")
    return value


def stuck_check_seconds(env: Mapping[str, str] = os.environ) -> float:
    """AGENTS_STUCK_CHECK_SECONDS: how often a worker looks for stuck runs (0: never)."""
    from agent_interrupts.app.stuck import STUCK_CHECK_SECONDS

    return _seconds(env, "AGENTS_STUCK_CHECK_SECONDS", STUCK_CHECK_SECONDS)


def worker_drain(env: Mapping[str, str] = os.environ) -> timedelta:
    """AGENTS_WORKER_DRAIN_SECONDS: how long a stopping worker lets running activities finish
    before it cancels them (0: cancel at once)."""
    return timedelta(seconds=_seconds(env, "AGENTS_WORKER_DRAIN_SECONDS", WORKER_DRAIN_SECONDS))


def worker_sticky(env: Mapping[str, str] = os.environ) -> timedelta:
    """AGENTS_WORKER_STICKY_SECONDS: how long a run's next workflow task waits for the worker that
    ran its last one before another worker may take it (more than 0)."""
    seconds = _seconds(env, "AGENTS_WORKER_STICKY_SECONDS", WORKER_STICKY_SECONDS)
    if seconds <= 0:
        raise ValueError("AGENTS_WORKER_STICKY_SECONDS must be more than 0 seconds, e.g. 10")
    return timedelta(seconds=seconds)


def worker_max_activities(env: Mapping[str, str] = os.environ) -> int | None:
    """AGENTS_WORKER_MAX_ACTIVITIES: activities one worker runs at once (unset: the default of
    ``app.worker_setup.build_worker``)."""
    if not env.get("AGENTS_WORKER_MAX_ACTIVITIES", "").strip():
        return None
    slots = _positive(env, "AGENTS_WORKER_MAX_ACTIVITIES", 1)
    if slots > MAX_WORKER_ACTIVITIES:
        raise ValueError(f"AGENTS_WORKER_MAX_ACTIVITIES must be at most {MAX_WORKER_ACTIVITIES}")
    return slots


def worker_max_cached_workflows(env: Mapping[str, str] = os.environ) -> int:
    """AGENTS_WORKER_MAX_CACHED_WORKFLOWS: workflows one worker holds in memory (0: none, each
    workflow task replays its run's history)."""
    raw = env.get("AGENTS_WORKER_MAX_CACHED_WORKFLOWS", "").strip()
    if not raw:
        return WORKER_CACHED_WORKFLOWS
    if not raw.isdigit() or int(raw) > MAX_WORKER_ACTIVITIES:
        raise ValueError(
            "AGENTS_WORKER_MAX_CACHED_WORKFLOWS must be a whole number from 0 to "
            f"{MAX_WORKER_ACTIVITIES}, not {raw!r}, e.g. {WORKER_CACHED_WORKFLOWS}"
        )
    return int(raw)


def worker_max_workflow_tasks(env: Mapping[str, str] = os.environ) -> int:
    """AGENTS_WORKER_MAX_WORKFLOW_TASKS: workflow tasks one worker runs at once (at least 2)."""
    raw = env.get("AGENTS_WORKER_MAX_WORKFLOW_TASKS", "").strip()
    if not raw:
        return WORKER_WORKFLOW_TASKS
    if not raw.isdigit() or not 2 <= int(raw) <= MAX_WORKER_ACTIVITIES:
        raise ValueError(
            "AGENTS_WORKER_MAX_WORKFLOW_TASKS must be a whole number from 2 to "
            f"{MAX_WORKER_ACTIVITIES}, not {raw!r}, e.g. {WORKER_WORKFLOW_TASKS}"
        )
    return int(raw)


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    try:
        seconds = float(raw) if raw else default
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_SETTING_SECONDS:
        raise ValueError(
            f"{name} must be a number of seconds from 0 to {MAX_SETTING_SECONDS:g}, not {raw!r}"
        )
    return seconds


def _positive(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {raw!r}")
    return int(raw)


def answer_rules_from_env(env: Mapping[str, str] = os.environ) -> AnswerRules | None:
    """``AGENTS_ANSWER_RULES``: the TOML file of who may answer which questions
    (docs/answer-rules.md); None when unset. Raises ValueError in one line naming the file."""
    from agent_interrupts.models.answer_rules import MAX_RULES_FILE_BYTES, rules_from_toml

    path = env.get("AGENTS_ANSWER_RULES", "").strip()
    if not path:
        return None
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_RULES_FILE_BYTES + 1)
    except OSError as err:
        raise ValueError(
            f"AGENTS_ANSWER_RULES {path!r} cannot be read ({err.strerror}); name a TOML file"
        ) from None
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        raise ValueError(f"AGENTS_ANSWER_RULES {path!r} is not UTF-8 text") from None
    return rules_from_toml(text, f"AGENTS_ANSWER_RULES {path!r}")


def notify_settings_from_env(env: Mapping[str, str] = os.environ) -> NotifySettings:
    """``INTERRUPT_WEBHOOK_URL``/``_SECRET``, ``SLACK_WEBHOOK_URL``, ``SMTP_URL`` with
    ``INTERRUPT_EMAIL_TO``/``_FROM``, ``INTERRUPT_REMINDERS`` and ``TEMPORAL_UI_URL``.

    Raises ValueError with one line naming the setting when something is unusable.
    """
    from agent_interrupts.activities.notify import NotifySettings, SmtpTarget

    urls = ("INTERRUPT_WEBHOOK_URL", "SLACK_WEBHOOK_URL", "TEMPORAL_UI_URL", *SLACK_URLS)
    for name in urls:
        if env.get(name) and not env[name].startswith(("http://", "https://")):
            raise ValueError(f"{name} must be an http:// or https:// URL")
    smtp = SmtpTarget.parse(env["SMTP_URL"]) if env.get("SMTP_URL") else None
    email_to = tuple(a.strip() for a in env.get("INTERRUPT_EMAIL_TO", "").split(",") if a.strip())
    if smtp is not None and not email_to:
        raise ValueError("SMTP_URL is set but INTERRUPT_EMAIL_TO is empty; name the recipients")
    if email_to and smtp is None:
        raise ValueError("INTERRUPT_EMAIL_TO is set but SMTP_URL is not; name the SMTP server")
    bot_token, channel = env.get("SLACK_BOT_TOKEN") or None, env.get("SLACK_CHANNEL") or None
    if bot_token and not channel:
        raise ValueError("SLACK_BOT_TOKEN is set but SLACK_CHANNEL is not; name the channel id")
    if bot_token and env.get("SLACK_WEBHOOK_URL"):
        raise ValueError(
            "SLACK_BOT_TOKEN and SLACK_WEBHOOK_URL both send Slack notices: give one (the bot's "
            "are answerable)"
        )
    ui_port = _port(env, "AGENTS_UI_PORT", DEFAULT_UI_PORT)
    reply_to = env.get("INTERRUPT_EMAIL_REPLY_TO", "").strip() or None
    door = "INTERRUPT_EMAIL_REPLY_TO (the email door)" if reply_to else None
    secret = signing_secret(env, door)
    return NotifySettings(
        webhook_url=env.get("INTERRUPT_WEBHOOK_URL") or None,
        webhook_secret=env.get("INTERRUPT_WEBHOOK_SECRET") or None,
        slack_url=env.get("SLACK_WEBHOOK_URL") or None,
        slack_bot_token=bot_token,
        slack_channel=channel,
        slack_api_url=env.get("SLACK_API_URL") or NotifySettings.slack_api_url,
        inbox_url=env.get("AGENTS_INBOX_URL") or None,
        smtp=smtp,
        email_to=email_to,
        email_from=env.get("INTERRUPT_EMAIL_FROM") or NotifySettings.email_from,
        reminders=_reminders(env.get("INTERRUPT_REMINDERS")),
        ui_url=env.get("TEMPORAL_UI_URL") or f"http://127.0.0.1:{ui_port}",
        signer=_link_signer(env, secret),
        reply_to=reply_to,
    )


def _link_signer(env: Mapping[str, str], secret: str | None) -> LinkSigner | None:
    """Signs answer links to ``AGENTS_LINK_URL`` (default: the inbox on this machine), valid
    for ``AGENTS_LINK_HOURS``; None without a secret."""
    from agent_interrupts.activities.answer_links import LinkSigner
    from agent_interrupts.models.policies import ANSWER_LINK_LIFETIME

    if secret is None:
        return None
    url = env.get("AGENTS_LINK_URL", "").strip().rstrip("/")
    if url and not url.startswith(("http://", "https://")):
        raise ValueError("AGENTS_LINK_URL must be an http:// or https:// URL (the inbox)")
    inbox_port = _port(env, "AGENTS_INBOX_PORT", DEFAULT_INBOX_PORT)
    default_hours = ANSWER_LINK_LIFETIME.total_seconds() / 3600
    raw = env.get("AGENTS_LINK_HOURS", "").strip()
    try:
        hours = float(raw) if raw else default_hours
    except ValueError:
        hours = -1.0
    if not 0 < hours <= MAX_LINK_HOURS:
        raise ValueError(
            f"AGENTS_LINK_HOURS must be a number of hours from 0 to {MAX_LINK_HOURS}, not {raw!r}"
        )
    return LinkSigner(
        secret=secret,
        base_url=url or f"http://{DEFAULT_INBOX_HOST}:{inbox_port}",
        lifetime=timedelta(hours=hours),
    )


SLACK_URLS = ("SLACK_API_URL", "AGENTS_INBOX_URL")


@dataclass(frozen=True)
class SlackDoorSettings:
    """The Slack door of ``agents inbox``: on when ``SLACK_SIGNING_SECRET`` is set (``POST
    /slack/actions``) or ``SLACK_APP_TOKEN`` is (Socket Mode), or both."""

    signing_secret: str | None = field(repr=False)
    """None: no HTTP endpoint (Socket Mode only)."""
    bot_token: str = field(repr=False)
    api_url: str
    users: Mapping[str, str] = field(default_factory=dict)
    """Slack user id -> the name their answers carry (``SLACK_USERS``); others: their profile's."""
    app_token: str | None = field(default=None, repr=False)
    """``SLACK_APP_TOKEN`` (``xapp-``): Socket Mode, a websocket the inbox opens to Slack."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> SlackDoorSettings | None:
        """None without ``SLACK_SIGNING_SECRET`` and ``SLACK_APP_TOKEN``; ValueError naming the
        setting when the door cannot work."""
        from agent_interrupts.activities.slack_api import DEFAULT_SLACK_API_URL

        secret = env.get("SLACK_SIGNING_SECRET") or None
        app_token = env.get("SLACK_APP_TOKEN") or None
        if secret is None and app_token is None:
            return None
        if app_token is not None and not app_token.startswith("xapp-"):
            raise ValueError(
                "SLACK_APP_TOKEN must be the app-level token (xapp-...) with connections:write"
            )
        token = env.get("SLACK_BOT_TOKEN") or None
        if token is None:
            given = "SLACK_SIGNING_SECRET" if secret is not None else "SLACK_APP_TOKEN"
            raise ValueError(
                f"{given} is set but SLACK_BOT_TOKEN is not; the Slack door needs "
                "the bot's token to update messages and open the answer form"
            )
        api = env.get("SLACK_API_URL") or DEFAULT_SLACK_API_URL
        if not api.startswith(("http://", "https://")):
            raise ValueError("SLACK_API_URL must be an http:// or https:// URL")
        users = slack_users(env.get("SLACK_USERS", ""))
        return cls(secret, token, api, users, app_token=app_token)


def slack_users(raw: str) -> dict[str, str]:
    """``SLACK_USERS``: ``U0123=Ada Lovelace,U0456=grace`` (Slack user id = name)."""
    users: dict[str, str] = {}
    for pair in (p.strip() for p in raw.split(",") if p.strip()):
        user, sep, name = pair.partition("=")
        if not sep or not user.strip():
            raise ValueError(
                f"SLACK_USERS: {pair[:60]!r} is not USER_ID=NAME (e.g. U0123ABC=Ada Lovelace)"
            )
        users[user.strip()] = checked_name(name, f"SLACK_USERS for {user.strip()[:30]}")
    return users


def _reminders(raw: str | None) -> tuple[float, ...]:
    """``0.5,0.9`` (the default); ``none`` or an empty value turns reminders off."""
    from agent_interrupts.activities.notify import DEFAULT_REMINDERS

    if raw is None:
        return DEFAULT_REMINDERS
    if raw.strip().lower() in ("", "none"):
        return ()
    try:
        fractions = tuple(float(part) for part in raw.split(","))
    except ValueError:
        fractions = ()
    if not fractions or not all(0 < f < 1 for f in fractions):
        raise ValueError(
            f"INTERRUPT_REMINDERS={raw[:60]!r} must list fractions of the time to the deadline "
            "between 0 and 1, e.g. 0.5,0.9 (or none)"
        )
    return tuple(sorted(set(fractions)))
