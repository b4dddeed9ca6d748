"""The notification channels against real receivers on 127.0.0.1, and their settings."""

from __future__ import annotations

import ast
import hashlib
import hmac
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from temporalio.testing import ActivityEnvironment

from agent_interrupts.activities import notify_channels
from agent_interrupts.activities.notify import (
    DELIVERED,
    NotificationActivities,
    NotifySettings,
    build_payload,
)
from agent_interrupts.app.config import notify_settings_from_env
from agent_interrupts.models.errors import NotificationFailed, NotificationRefused
from agent_interrupts.models.notifications import (
    Channel,
    Delivery,
    Notice,
    NoticeKind,
    NotificationPayload,
    Question,
)
from agent_interrupts.models.policies import (
    NOTIFY_REQUEST_TIMEOUT,
    NOTIFY_RETRY,
    NOTIFY_SCHEDULE_TO_CLOSE,
    NOTIFY_START_TO_CLOSE,
)
from tests.cli.support import free_port
from tests.support.interrupts import question_input
from tests.support.receivers import HttpReceiver, SmtpReceiver

SECRET = "whsec-unit-4d9e2b"


def _notice(kind: NoticeKind = NoticeKind.QUESTION) -> Notice:
    job = question_input()
    return Notice(
        delivery_id=f"orchestrator-1-interrupt-1/{kind}",
        kind=kind,
        interrupt_id="orchestrator-1-interrupt-1",
        orchestrator_id="orchestrator-1",
        origin=job.origin,
        question=Question.of(job.request),
        deadline=datetime(2026, 3, 1, 12, tzinfo=UTC),
        on_timeout=job.on_timeout,
        at=datetime(2026, 2, 28, 12, tzinfo=UTC),
    )


def _payload(kind: NoticeKind = NoticeKind.QUESTION) -> NotificationPayload:
    return build_payload(_notice(kind), "default", "http://ui.example:8233/")


async def _deliver(settings: NotifySettings, channel: Channel, *details: str) -> None:
    env = ActivityEnvironment()
    env.info = env.info.__class__(**{**env.info.__dict__, "heartbeat_details": list(details)})
    await env.run(
        NotificationActivities(settings).notify, Delivery(channel=channel, notice=_notice())
    )


def test_payload_has_the_link_and_commands_with_the_recommended_answer() -> None:
    payload = _payload().to_wire()
    assert payload["links"] == {
        "ui": "http://ui.example:8233/namespaces/default/workflows/orchestrator-1-interrupt-1"
    }
    assert payload["commands"] == {
        "resolve": "agents resolve orchestrator-1-interrupt-1 --choice cache=B",
        "temporalUpdate": "temporal workflow update execute --namespace default --workflow-id "
        "orchestrator-1-interrupt-1 --name resolve_validated --input "
        """'{"selectedChoices":{"cache":"B"},"customInputs":{},"confirmations":{},"freeText":""}'""",
    }
    assert _payload(NoticeKind.RESOLVED).commands is None, "a settled question has no commands"


async def test_webhook_is_signed_and_carries_the_delivery_id() -> None:
    with HttpReceiver().running() as http:
        await _deliver(NotifySettings(webhook_url=http.url, webhook_secret=SECRET), Channel.WEBHOOK)
    (got,) = http.requests
    digest = hmac.new(SECRET.encode(), got.body, hashlib.sha256).hexdigest()
    assert got.headers["X-Interrupt-Signature"] == f"sha256={digest}"
    assert got.headers["X-Interrupt-Delivery"] == got.json()["deliveryId"]
    assert got.headers["X-Interrupt-Kind"] == "question"


async def test_a_retry_after_a_recorded_delivery_sends_nothing() -> None:
    with HttpReceiver().running() as http:
        await _deliver(NotifySettings(webhook_url=http.url), Channel.WEBHOOK, DELIVERED)
    assert http.requests == []


@pytest.mark.parametrize(
    ("statuses", "error", "text"),
    [
        ([503], NotificationFailed, "answered 503 receiver says no; check INTERRUPT_WEBHOOK_URL"),
        ([429], NotificationFailed, "answered 429"),
        ([401], NotificationRefused, "answered 401 receiver says no; check INTERRUPT_WEBHOOK_URL"),
    ],
)
async def test_webhook_failures_say_whether_a_retry_helps(
    statuses: list[int], error: type[Exception], text: str
) -> None:
    with HttpReceiver(statuses=statuses).running() as http, pytest.raises(Exception) as err:
        await _deliver(NotifySettings(webhook_url=http.url), Channel.WEBHOOK)
    assert err.value.__class__.__name__ == "ApplicationError"
    assert err.value.type == error.__name__  # type: ignore[attr-defined]
    assert text in str(err.value)


async def test_a_slow_or_absent_receiver_is_retryable_and_named() -> None:
    fast = timedelta(seconds=0.2)
    with HttpReceiver(hang=True).running() as http, pytest.raises(Exception) as slow:
        await _deliver(NotifySettings(webhook_url=http.url, request_timeout=fast), Channel.WEBHOOK)
    assert "did not answer within 0.2s; check INTERRUPT_WEBHOOK_URL" in str(slow.value)
    url = f"http://127.0.0.1:{free_port()}/hook"
    with pytest.raises(Exception) as down:
        await _deliver(NotifySettings(webhook_url=url), Channel.WEBHOOK)
    assert f"the webhook {url} is unreachable (ConnectError)" in str(down.value)
    assert down.value.type == "NotificationFailed"  # type: ignore[attr-defined]


async def test_slack_gets_block_kit_and_its_url_is_never_quoted() -> None:
    with HttpReceiver(statuses=[200, 404]).running() as http:
        settings = NotifySettings(slack_url=f"{http.url}/services/T/B/tok-secret-9a8b")
        await _deliver(settings, Channel.SLACK)
        with pytest.raises(Exception) as err:
            await _deliver(settings, Channel.SLACK)
    message = http.requests[0].json()
    assert message["text"] == "REVIEW_AGENT asks: Which cache?"
    kinds = [b["type"] for b in message["blocks"]]
    assert kinds == ["header", "section", "section", "context", "section", "actions"]
    assert "*B*: redis _(recommended)_" in message["blocks"][2]["text"]["text"]
    assert "Slack answered 404" in str(err.value) and "SLACK_WEBHOOK_URL" in str(err.value)
    assert "tok-secret-9a8b" not in str(err.value)


async def test_email_is_text_and_html_and_a_wrong_password_names_smtp_url() -> None:
    with SmtpReceiver(password="right-password-1").running() as smtp:
        good = notify_settings_from_env(
            {"SMTP_URL": smtp.url(), "INTERRUPT_EMAIL_TO": "a@example.test, b@example.test"}
        )
        await _deliver(good, Channel.EMAIL)
        bad = notify_settings_from_env(
            {"SMTP_URL": smtp.url("wrong-password-2"), "INTERRUPT_EMAIL_TO": "a@example.test"}
        )
        with pytest.raises(Exception) as err:
            await _deliver(bad, Channel.EMAIL)
    (mail,) = smtp.messages
    assert mail["Subject"] == "[agents] REVIEW_AGENT asks: Which cache?"
    assert mail["To"] == "a@example.test, b@example.test"
    assert mail["Message-ID"] == "<orchestrator-1-interrupt-1.question@agent-interrupts>"
    text = mail.get_body(("plain",)).get_content()
    html = mail.get_body(("html",)).get_content()
    assert "B: redis (recommended)" in text and "agents resolve orchestrator-1-interrupt-1" in text
    assert "<h3>REVIEW_AGENT asks: Which cache?</h3>" in html
    assert err.value.type == "NotificationRefused"  # type: ignore[attr-defined]
    assert "refused the login of 'notifier'; check the user and password in SMTP_URL" in str(
        err.value
    )
    assert "wrong-password-2" not in str(err.value)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"INTERRUPT_WEBHOOK_URL": "ftp://x"}, "INTERRUPT_WEBHOOK_URL must be an http"),
        ({"SMTP_URL": "mailto:x"}, "SMTP_URL must look like smtp://host:25"),
        ({"SMTP_URL": "smtp://h:25"}, "INTERRUPT_EMAIL_TO is empty"),
        ({"INTERRUPT_EMAIL_TO": "a@b"}, "SMTP_URL is not"),
        ({"INTERRUPT_REMINDERS": "0.5,1.5"}, "INTERRUPT_REMINDERS='0.5,1.5' must list fractions"),
    ],
)
def test_settings_errors_are_one_line_naming_the_setting(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message) as err:
        notify_settings_from_env(env)
    assert "\n" not in str(err.value)


def test_settings_defaults_and_channels() -> None:
    assert notify_settings_from_env({}).channels == []
    settings = notify_settings_from_env(
        {
            "INTERRUPT_WEBHOOK_URL": "https://hooks.example/x",
            "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/x",
            "SMTP_URL": "smtps://u:p%40ss@mail.example",
            "INTERRUPT_EMAIL_TO": "a@example.test",
            "INTERRUPT_REMINDERS": "0.9,0.25",
            "AGENTS_UI_PORT": "9233",
        }
    )
    assert settings.channels == [Channel.WEBHOOK, Channel.SLACK, Channel.EMAIL]
    assert settings.smtp is not None and settings.smtp.port == 465
    assert settings.smtp.password == "p@ss" and "p@ss" not in repr(settings)
    assert settings.reminders == (0.25, 0.9)
    assert settings.ui_url == "http://127.0.0.1:9233"
    assert notify_settings_from_env({"INTERRUPT_REMINDERS": "none"}).reminders == ()


def test_notify_timeouts_compose() -> None:
    """An attempt's delivery times out before the attempt; every attempt and backoff fits the
    bounded time after which the failure becomes a WARNING event."""
    assert NOTIFY_REQUEST_TIMEOUT < NOTIFY_START_TO_CLOSE
    attempts = NOTIFY_RETRY.maximum_attempts
    backoffs = sum(
        (
            min(
                NOTIFY_RETRY.initial_interval * NOTIFY_RETRY.backoff_coefficient**n,
                NOTIFY_RETRY.maximum_interval or timedelta.max,
            )
            for n in range(attempts - 1)
        ),
        timedelta(),
    )
    assert NOTIFY_START_TO_CLOSE * attempts + backoffs <= NOTIFY_SCHEDULE_TO_CLOSE


def test_a_notice_links_the_question_once_whatever_page_is_configured() -> None:
    """``TEMPORAL_UI_URL`` set to the page people copy from the UI: the notice's link is not
    doubled (it was ``.../workflows/namespaces/default/workflows/ID``)."""
    configured = "http://ui.example:8233/namespaces/default/workflows"
    link = build_payload(_notice(), "default", configured).links.ui
    assert link == "http://ui.example:8233/namespaces/default/workflows/orchestrator-1-interrupt-1"


def test_the_channels_import_nothing_from_notify() -> None:
    """``notify`` imports its channels; the channels never import ``notify`` back, not even for
    a type (``SmtpTarget`` lives with the email channel that uses it)."""
    tree = ast.parse(Path(notify_channels.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "agent_interrupts.activities.notify" not in imported
