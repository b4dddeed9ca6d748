"""``AGENTS_IMAP_*``: the mailbox the email door polls, each wrong value refused in one line
naming its setting; the password never shown."""

from __future__ import annotations

import pytest

from agent_interrupts.app.config import ImapSettings, MailDoorSettings

SECRET = "signing-secret-for-the-imap-settings-0123456789"
IMAP = {
    "AGENTS_IMAP_HOST": "imap.example.test",
    "AGENTS_IMAP_USER": "answers@example.test",
    "AGENTS_IMAP_PASSWORD": "imap-password-DISTINCTIVE",
}


def test_a_mailbox_is_read_over_imaps_every_30_seconds_unless_told_otherwise() -> None:
    imap = ImapSettings.from_env(IMAP)
    assert imap is not None
    assert (imap.port, imap.security, imap.mailbox, imap.seconds) == (993, "ssl", "INBOX", 30)
    assert imap.where == "answers@example.test@imap.example.test:993/INBOX"
    assert "imap-password-DISTINCTIVE" not in repr(imap)
    told = ImapSettings.from_env(
        {**IMAP, "AGENTS_IMAP_SECURITY": "starttls", "AGENTS_IMAP_MAILBOX": "Agents/Replies"}
        | {"AGENTS_IMAP_SECONDS": "5"}
    )
    assert told is not None
    assert (told.port, told.security, told.mailbox, told.seconds) == (
        143,
        "starttls",
        "Agents/Replies",
        5,
    )
    assert ImapSettings.from_env({}) is None


@pytest.mark.parametrize(
    ("setting", "value", "said"),
    [
        ("AGENTS_IMAP_SECURITY", "tls", "AGENTS_IMAP_SECURITY must be ssl, starttls or none"),
        ("AGENTS_IMAP_PASSWORD", "", "AGENTS_IMAP_HOST needs AGENTS_IMAP_USER and"),
        ("AGENTS_IMAP_USER", "", "AGENTS_IMAP_HOST needs AGENTS_IMAP_USER and"),
        ("AGENTS_IMAP_SECONDS", "0", "AGENTS_IMAP_SECONDS must be 1 to 3600 seconds"),
        ("AGENTS_IMAP_SECONDS", "soon", "AGENTS_IMAP_SECONDS must be 1 to 3600 seconds"),
        ("AGENTS_IMAP_PORT", "99999", "AGENTS_IMAP_PORT='99999' is not a port number"),
        ("AGENTS_IMAP_MAILBOX", 'a"b', "AGENTS_IMAP_MAILBOX must be a mailbox name"),
    ],
)
def test_a_wrong_imap_setting_names_itself(setting: str, value: str, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        ImapSettings.from_env({**IMAP, setting: value})
    assert said in str(refused.value) and "\n" not in str(refused.value)
    assert "imap-password-DISTINCTIVE" not in str(refused.value)


def test_the_email_door_may_take_replies_by_imap_alone() -> None:
    mail = MailDoorSettings.from_env({**IMAP, "AGENTS_SIGNING_SECRET": SECRET})
    assert mail is not None and mail.port == 0, "no SMTP server of its own"
    assert mail.imap is not None and mail.imap.host == "imap.example.test"
    env = {**IMAP, "AGENTS_SIGNING_SECRET": SECRET, "AGENTS_MAIL_PORT": "2525"}
    both = MailDoorSettings.from_env(env)
    assert both is not None and both.port == 2525 and both.imap is not None
    with pytest.raises(ValueError, match="AGENTS_IMAP_HOST"):
        MailDoorSettings.from_env(IMAP)  # no signing secret
    assert MailDoorSettings.from_env({"AGENTS_SIGNING_SECRET": SECRET}) is None
