"""Signed answer links in notices (webhook, Slack, email) against real receivers on 127.0.0.1,
a retry that resends to nobody who got theirs, and the settings of links and the email door."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_interrupts.activities.notify import SENT_TO, NotifySettings, build_payload
from agent_interrupts.activities.notify_channels import SLACK_TEXT_CHARS
from agent_interrupts.app.config import MailDoorSettings, notify_settings_from_env
from agent_interrupts.models.notifications import Channel, NoticeKind
from agent_interrupts.models.signing import ACCEPT, REPLY, verify
from tests.activities.test_notify import _deliver, _notice
from tests.support.receivers import HttpReceiver, SmtpReceiver

SECRET = "signing-secret-for-the-unit-tests-0123456789"
LINKS = {"AGENTS_SIGNING_SECRET": SECRET, "AGENTS_LINK_URL": "https://inbox.example/"}
WHEN = datetime(2026, 2, 28, 12, 30, tzinfo=UTC)
"""Within the notice's links' lifetime (72 hours from its ``at``)."""


def test_an_answerable_notice_carries_signed_links_and_a_settled_one_none() -> None:
    settings = notify_settings_from_env(LINKS)
    payload = build_payload(_notice(), "default", "http://ui", settings.signer, "ops")
    labels = [link.label for link in payload.links.answers]
    assert labels == [
        "Accept the recommendation",
        "cache: A in memory",
        "cache: B redis (recommended)",
    ]
    first = payload.links.answers[0].url
    assert first.startswith("https://inbox.example/answer/")
    grant = verify(SECRET, first.rsplit("/", 1)[1], WHEN)
    assert (grant.question, grant.answer, grant.to) == ("orchestrator-1-interrupt-1", ACCEPT, "ops")
    assert grant.expires == _notice().at + timedelta(hours=72), "the same token on every retry"
    settled = build_payload(_notice(NoticeKind.RESOLVED), "default", "http://ui", settings.signer)
    assert settled.links.answers == []
    assert build_payload(_notice(), "default", "http://ui").links.answers == [], "no secret"


async def test_slack_and_the_webhook_get_the_links_whole() -> None:
    with HttpReceiver().running() as http:
        settings = notify_settings_from_env(
            {
                **LINKS,
                "INTERRUPT_WEBHOOK_URL": f"{http.url}/hook",
                "SLACK_WEBHOOK_URL": f"{http.url}/slack",
            }
        )
        await _deliver(settings, Channel.WEBHOOK)
        await _deliver(settings, Channel.SLACK)
    hook, slack = (r.json() for r in http.requests)
    urls = [a["url"] for a in hook["links"]["answers"]]
    assert verify(SECRET, urls[1].rsplit("/", 1)[1], WHEN).to == "the webhook's receiver"
    text = next(b["text"]["text"] for b in slack["blocks"] if "*Answer*" in str(b))
    assert len(text) <= SLACK_TEXT_CHARS and text.count("<https://inbox.example/answer/") == 3
    assert "|cache: B redis (recommended)>" in text


async def test_each_recipient_gets_their_own_email_and_a_retry_skips_who_got_it() -> None:
    with SmtpReceiver().running() as smtp:
        env = {
            **LINKS,
            "SMTP_URL": smtp.url(),
            "INTERRUPT_EMAIL_TO": "a@example.test, b@example.test",
            "INTERRUPT_EMAIL_REPLY_TO": "answers@example.test",
        }
        settings = notify_settings_from_env(env)
        await _deliver(settings, Channel.EMAIL, f"{SENT_TO}a@example.test")
        assert [m["To"] for m in smtp.messages] == ["b@example.test"], "a got hers before"
        await _deliver(settings, Channel.EMAIL)
    mail = smtp.messages[-1]
    assert [m["To"] for m in smtp.messages] == [
        "b@example.test",
        "a@example.test",
        "b@example.test",
    ]
    assert mail["Reply-To"] == "answers@example.test"
    subject = str(mail["Subject"])
    assert subject.startswith("[agents] REVIEW_AGENT asks: Which cache? [#")
    grant = verify(SECRET, subject.rsplit("[#", 1)[1].rstrip("]"), WHEN)
    assert (grant.answer, grant.to) == (REPLY, "b@example.test")
    text = mail.get_body(("plain",)).get_content()
    assert "Answer with one click" in text and "Or reply to this email" in text
    html = mail.get_body(("html",)).get_content()
    assert '">Accept the recommendation</a></li>' in html
    ids = [m["Message-ID"] for m in smtp.messages]
    assert ids[0] == ids[2] != ids[1], "one id per recipient, the same on a retry"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"INTERRUPT_EMAIL_REPLY_TO": "a@b"},
            r"INTERRUPT_EMAIL_REPLY_TO \(the email door\) needs AGENTS_SIGNING_SECRET",
        ),
        ({"AGENTS_SIGNING_SECRET": "short"}, "AGENTS_SIGNING_SECRET must be at least 32"),
        ({**LINKS, "AGENTS_LINK_URL": "inbox.example"}, "AGENTS_LINK_URL must be an http"),
        ({**LINKS, "AGENTS_LINK_HOURS": "0"}, "AGENTS_LINK_HOURS must be a number of hours"),
    ],
)
def test_link_settings_errors_name_the_setting(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message) as err:
        notify_settings_from_env(env)
    assert "\n" not in str(err.value)


def test_the_email_door_needs_the_secret_and_defaults_to_loopback() -> None:
    assert MailDoorSettings.from_env({}) is None
    with pytest.raises(
        ValueError, match=r"^the email door \(AGENTS_MAIL_PORT\) needs AGENTS_SIGNING_SECRET"
    ):
        MailDoorSettings.from_env({"AGENTS_MAIL_PORT": "2525"})
    door = MailDoorSettings.from_env(
        {"AGENTS_MAIL_PORT": "2525", "AGENTS_SIGNING_SECRET": SECRET, "INTERRUPT_EMAIL_FROM": "x@y"}
    )
    assert door is not None and (door.host, door.port, door.sender) == ("127.0.0.1", 2525, "x@y")
    assert not door.any_sender and SECRET not in repr(door)
    settings = notify_settings_from_env(LINKS)
    assert settings.signer is not None and SECRET not in repr(settings)
    default = notify_settings_from_env(
        {"AGENTS_SIGNING_SECRET": SECRET, "AGENTS_INBOX_PORT": "8400"}
    )
    assert default.signer is not None and default.signer.base_url == "http://127.0.0.1:8400"
    assert isinstance(default, NotifySettings)
