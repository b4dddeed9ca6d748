"""Every timeout and retry policy, in one place."""

from __future__ import annotations

from datetime import timedelta
from typing import TypedDict

from temporalio.common import RetryPolicy

LLM_REQUEST_TIMEOUT = timedelta(seconds=90)
"""Default for one HTTP request to the LLM endpoint; a worker setting (LLM_REQUEST_TIMEOUT)."""
LLM_VALIDATION_ATTEMPTS = 3
"""Default replies asked for when they fail validation (the error fed back); a worker setting
(LLM_VALIDATION_ATTEMPTS)."""
LLM_MAX_OUTPUT_TOKENS = 4096
"""Default output token limit of every request (``max_completion_tokens``); a worker setting
(LLM_MAX_OUTPUT_TOKENS, per agent LLM_MAX_OUTPUT_TOKENS_<AGENT>). A reply cut off there is
sent back as invalid."""
AGENT_CALL_MARGIN = timedelta(seconds=30)
"""Time an agent activity needs besides its LLM requests: prompts, validation, heartbeats."""
AGENT_START_TO_CLOSE = timedelta(hours=6)
"""The longest one agent call (all its requests) may take, whatever the model's pace: a bound
for a call that never ends, not a measure of the model. Liveness is the heartbeat (below), so
a slow local model needs only the worker's LLM_REQUEST_TIMEOUT; the worker refuses
settings whose requests could outlast this."""
AGENT_HEARTBEAT_INTERVAL = timedelta(seconds=1)
"""Long activities (agent calls, translations, reviews, pinning a workspace) heartbeat this often
while they wait, so a cancel lands within about a second."""
AGENT_HEARTBEAT_TIMEOUT = timedelta(seconds=3)
"""A worker that died in the middle of a long activity is noticed after this long without a
heartbeat, and the next attempt starts on a live worker (recovery within seconds).
Three missed beats: a busy worker's event loop does not lag that far (tested with both cores
busy)."""
STICKY_RESET_TIMEOUT = timedelta(seconds=2)
"""An attempt after a lost one clears its run's sticky queue before its work; a server that does
not answer within this costs the run its sticky wait, never the attempt."""
STICKY_RELEASE_TIMEOUT = timedelta(seconds=3)
"""A gracefully stopping worker clears the sticky queue of every run in its cache
(``app/sticky_release.py``) within this, after its drain (AGENTS_WORKER_DRAIN_SECONDS): the two
stay under the 15 s ``agents down`` gives a worker before it kills it."""
STICKY_RELEASES_AT_ONCE = 32
"""Sticky-queue resets a stopping worker sends at once (a full cache of 500 runs: 16 rounds)."""
KEPT_CALLS = 128
"""Model calls a worker keeps per kind of activity for a later attempt of the same activity
(``activities/kept_calls.py``): at most 1 MiB a reply, 128 MiB at worst."""
KEPT_REPLY_TTL = AGENT_START_TO_CLOSE
"""How long a finished call's reply waits for an attempt the server schedules after an outage:
as long as one attempt may take."""
ORPHANED_CALL_WAIT = timedelta(seconds=30)
"""A call whose attempt the server lost (timed out during an outage) goes on this long for the
next attempt to join it; the server schedules that one at once, so a call nobody joined by then
has its attempt on another worker, or its run ended, and is cancelled."""
HEARTBEAT_THROTTLE = timedelta(seconds=1)
"""Heartbeats reach the server at least this often, so a cancel lands within about a second."""

LLM_ENDPOINT_ATTEMPTS = 5
"""Default attempts of an agent call that meets the endpoint's retryable errors (429, 5xx,
timeouts); a worker setting (``LlmSettings.endpoint_attempts``, env LLM_ENDPOINT_ATTEMPTS)."""
AGENT_ACTIVITY_ATTEMPTS = 50
"""Temporal's attempts of one long activity. Lost workers retry up to this many times; the
endpoint's errors and one worker's local conditions stop sooner at their own counts
(``activities/attempts.py``), so a crash never spends the endpoint's attempts."""
WORKER_CONDITION_ATTEMPTS = 8
"""Attempts of a step that meets a condition local to the worker that took it (a workspace path
it cannot see, a program it lacks): retried so another worker can serve it (about 2 minutes of
backoff in all), then the run fails naming what to change."""

COUNTED_RETRY_DELAY = timedelta(seconds=1)
COUNTED_RETRY_DELAY_MAX = timedelta(seconds=30)
"""The endpoint's errors and a worker's local conditions wait 1, 2, 4 ... 30 s between attempts
(``next_retry_delay`` of their failures)."""
LOST_WORKER_RETRY_INTERVAL = timedelta(milliseconds=200)
"""A heartbeat timeout (a worker died) is retried at once on a live worker: no backoff helps."""

AGENT_RETRY = RetryPolicy(
    initial_interval=LOST_WORKER_RETRY_INTERVAL,
    backoff_coefficient=1.0,
    maximum_attempts=AGENT_ACTIVITY_ATTEMPTS,
    non_retryable_error_types=[
        "InvalidLlmReply",
        "LlmConfigurationError",
        "LlmReplyTooLarge",
        "PromptRenderError",
        "UnknownAgentType",
        "UnknownTeam",
    ],
)


class ActivityConfig(TypedDict, total=False):
    """The timeouts and retry policy of an activity call, merged into it (``**config``)."""

    start_to_close_timeout: timedelta
    heartbeat_timeout: timedelta
    retry_policy: RetryPolicy


AGENT_ACTIVITY = ActivityConfig(
    start_to_close_timeout=AGENT_START_TO_CLOSE,
    heartbeat_timeout=AGENT_HEARTBEAT_TIMEOUT,
    retry_policy=AGENT_RETRY,
)
"""A long model call's (an agent, a translation, a review, the controller's shadow answer):
bounded by ``AGENT_START_TO_CLOSE``, alive while it heartbeats, retried on a live worker."""
"""A lost worker's attempt is retried at once; the endpoint's errors (429, 5xx, timeouts) and a
worker's local conditions back off and stop at their own counts (``activities/attempts.py``); bad
replies and bad credentials are not retried."""

QUESTION_QUIET_ROUND_TRIPS = 2
"""Agents of one fan-out whose questions arrive together share one question: once an agent asks
while others still run, its question waits for round trips through the server (the
``round_trip`` activity: what arrived meanwhile comes in the next workflow task) until this many
in a row brought no other agent's reply (``fan_out_answers``). A question alone waits these
round trips, tens of milliseconds each; a timer would fire a second later at best."""
QUESTION_MAX_ROUND_TRIPS = 10
"""The most round trips a fan-out's question waits while its agents' replies keep arriving."""
ROUND_TRIP_TIMEOUT = timedelta(seconds=2)
"""The longest one round trip may take (no worker free to run it: the question is asked then)."""
ROUND_TRIP_RETRY = RetryPolicy(maximum_attempts=1)
"""A round trip is never retried: the question is asked instead."""
SHADOW_DELAY = timedelta(seconds=1)
"""A shadow answer waits this long before it asks the controller, so the run's next step gets the
worker (and the model) first."""
AUTONOMY_TIMEOUT = timedelta(minutes=2)
"""Deciding whether the controller answers a question: reading the recorded shadow answers."""

HISTORY_HANDOVER_BYTES = 4 * 1024 * 1024
"""A workflow continues as new once its history is this large (or when the server suggests it,
whichever comes first): far below the server's 50 MB limit, so a flood of signals is absorbed."""

LLM_REPLY_LIMIT = 1024 * 1024
"""Bytes of one LLM reply: half of Temporal's 2 MiB payload limit, leaving room for the event."""

NOTIFY_REQUEST_TIMEOUT = timedelta(seconds=10)
"""One delivery: an HTTP request to a webhook or Slack, or one SMTP session."""
NOTIFY_START_TO_CLOSE = NOTIFY_REQUEST_TIMEOUT + timedelta(seconds=5)
"""One notify attempt: its one delivery times out before this."""
NOTIFY_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=60),
    maximum_attempts=6,
    non_retryable_error_types=["NotificationRefused"],
)
"""A receiver that is down is tried again with backoff; one that refuses (4xx) is not."""
NOTIFY_SCHEDULE_TO_CLOSE = timedelta(minutes=3)
"""Every attempt of one delivery with the backoffs between them (2+4+8+16+32 s) fits in this;
then the failure becomes a WARNING event on the interrupt."""
SLACK_API_RETRIES = 2
"""A Slack Web API call that answers 500 or 503 is tried again this often inside one attempt
(backoff 0.5 s, 1 s), before the attempt fails and the retry policy takes over."""
SLACK_RETRY_AFTER_CAP = timedelta(seconds=60)
"""The longest ``Retry-After`` of a Slack 429 honoured as the next attempt's delay."""
SLACK_DOOR_ATTEMPTS = 4
"""The Slack door's own calls after a click (``chat.update``, the reply to ``response_url``):
attempts, each waiting the 429's ``Retry-After`` or a doubling backoff from 0.5 s."""
SLACK_POST_WAIT = timedelta(seconds=10)
"""A final notice or a reminder whose question is still being posted by this worker waits this
long for the post, to update that message rather than post another."""
SLACK_POSTS_KEPT = 10_000
"""Question messages a worker remembers having posted (the newest), for the notices that follow."""
SLACK_REQUEST_AGE = timedelta(minutes=5)
"""A signed Slack request older (or newer) than this is refused; one seen before, too."""
NOTICE_PRIORITY = 5
"""The task-queue priority of a notice's delivery (Temporal's priority keys run 1, first, to 5,
last; an agent step has the default 3): a burst of notices (10,000 reminders due together) waits
behind the agent steps of the runs that are working instead of in front of them."""
REMINDER_SPREAD = 0.1
"""A reminder is due up to this share of its time from the question's start later than its
fraction says, by the question's id (the same after a continue-as-new): questions raised together
are not reminded in the same second."""
REMINDER_SPREAD_MAX = timedelta(minutes=10)
"""The most a reminder is moved later by ``REMINDER_SPREAD``."""
NOTIFY_PLAN_TIMEOUT = timedelta(seconds=5)
"""The local activity that reads which channels the worker's settings enable."""
ANSWER_RULES_TIMEOUT = timedelta(seconds=5)
"""The activity that reads who may answer a question (the worker's answer rules, in memory)."""
ANSWER_RULES_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=200),
    maximum_attempts=3,
    non_retryable_error_types=["NotFoundError"],  # a worker built without the activity
)
"""Three tries of that activity; a worker without it is not asked again."""

SEARCH_ATTRIBUTES_TIMEOUT = timedelta(seconds=10)
"""The local activity that lists the namespace's search attributes (once, for a run started
without ``AgentPhase``); one attempt: a run whose server will not say goes on without them."""

TEAM_LOAD_TIMEOUT = timedelta(seconds=30)
"""Reading the run's team from the worker (it holds its teams in memory)."""
TEAM_LOAD_RETRY = RetryPolicy(
    initial_interval=LOST_WORKER_RETRY_INTERVAL,
    backoff_coefficient=1.0,
    maximum_attempts=AGENT_ACTIVITY_ATTEMPTS,
    non_retryable_error_types=["UnknownTeam"],
)
WORKSPACE_PIN_TIMEOUT = timedelta(minutes=10)
"""Cloning or fetching a run's workspace and extracting its commit."""
WORKSPACE_PIN_RETRY = RetryPolicy(
    initial_interval=LOST_WORKER_RETRY_INTERVAL,
    backoff_coefficient=1.0,
    maximum_attempts=AGENT_ACTIVITY_ATTEMPTS,
    non_retryable_error_types=["WorkspaceUnavailable"],
)
"""A source that is not a repository, or a ref that names no commit, fails the run at once; a path
the worker cannot see is retried (``WORKER_CONDITION_ATTEMPTS``) so another worker can pin it."""

CODE_WORK_TIMEOUT = timedelta(hours=1)
"""One git step of the agents' code changes, with its verification run (whose own limit,
``AGENT_TEST_TIMEOUT``, is the worker's setting); liveness is the heartbeat."""
CODE_WORK_HEARTBEAT = AGENT_HEARTBEAT_TIMEOUT
"""Code work heartbeats every second from its worker thread, like the agents' calls."""
CODE_WORK_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=AGENT_ACTIVITY_ATTEMPTS,
    non_retryable_error_types=["WorktreeLimit"],
)
"""git lock contention and lost workers retry; too many worktrees on disk fails the run with
the setting's name."""

TEMPLATE_RENDER_TIMEOUT = timedelta(seconds=2)
"""The longest a declared team's template may take to render (``activities/template_sandbox.py``):
its render process is killed then, and the agent's step fails in one line naming the team and
the template, not retried. A template renders in milliseconds; this bounds one that loops."""
TEMPLATE_SANDBOX_START_TIMEOUT = timedelta(seconds=30)
"""How long a render process may take to start (import jinja2) before the render's own time
counts; a worker too busy to start one fails the attempt as a worker condition (retried)."""

ANSWER_LINK_LIFETIME = timedelta(days=3)
"""How long a notice's signed answer links and reply token answer (``AGENTS_LINK_HOURS``)."""
MAIL_DOOR_SESSION_TIMEOUT = timedelta(seconds=60)
"""An SMTP client of the email door idle this long is disconnected."""
MAIL_REPLY_BYTES = 1024 * 1024
"""The largest email the email door takes (SMTP SIZE); a larger one is refused at once."""
IMAP_POLL_INTERVAL = timedelta(seconds=30)
"""How often ``agents inbox`` reads the email door's IMAP mailbox (``AGENTS_IMAP_SECONDS``)."""
IMAP_SESSION_TIMEOUT = timedelta(seconds=60)
"""The longest one IMAP command of the email door's poll may take (connect, login, fetch)."""
IMAP_RETRY_FIRST = timedelta(seconds=2)
IMAP_RETRY_MAX = timedelta(minutes=5)
"""A failed poll (the server down, a refused login) is tried again after IMAP_RETRY_FIRST,
doubling up to IMAP_RETRY_MAX, then at the poll interval once a poll succeeds."""
IMAP_MESSAGES_PER_POLL = 50
"""Unseen messages one poll takes; the rest wait for the next poll."""
SLACK_ACK_TIMEOUT = timedelta(seconds=2.5)
"""How long the Slack door's Socket Mode waits for an interaction's answer before it acknowledges
the envelope without one (Slack wants the acknowledgement within 3 s; the answer goes on)."""

FORK_ANSWER_WAIT = timedelta(seconds=30)
"""How long ``client.fork`` waits for a fork to ask its question again before it answers it
(a fork asks it once its link is checked: a worker must serve the fork's task queue)."""
FORK_ENDED_LOOK = timedelta(milliseconds=500)
"""While it waits, how often ``client.fork`` looks whether the fork ended instead (its link
refused): it then says why at once."""
FORK_CHECK_TIMEOUT = timedelta(minutes=5)
"""How long a worker may take to check a fork's link: one replay of the parent's run that
holds the point (at most 500 steps: about a second on a busy machine, ``bench.fork``)."""
FORK_CHECK_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=10,
    non_retryable_error_types=["ForkRefused"],
)
"""A check the server or the worker cut short is tried again; a link that does not hold
(``ForkRefused``) is not."""
