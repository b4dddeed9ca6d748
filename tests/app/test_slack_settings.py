"""The Slack door's settings and its replay guard, pure: one line naming the setting to fix."""

from __future__ import annotations

import pytest

from agent_interrupts.app.config import SlackDoorSettings, notify_settings_from_env, slack_users
from agent_interrupts.app.inbox.slack import ReplayGuard
from agent_interrupts.models.notifications import Channel


def test_the_bot_turns_the_slack_channel_on_and_needs_its_channel() -> None:
    settings = notify_settings_from_env(
        {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_CHANNEL": "C0", "AGENTS_INBOX_URL": "https://in/"}
    )
    assert settings.channels == [Channel.SLACK] and settings.inbox_url == "https://in/"
    assert "xoxb-1" not in repr(settings)
    with pytest.raises(ValueError, match="SLACK_CHANNEL is not"):
        notify_settings_from_env({"SLACK_BOT_TOKEN": "xoxb-1"})
    with pytest.raises(ValueError, match="give one"):
        notify_settings_from_env(
            {"SLACK_BOT_TOKEN": "x", "SLACK_CHANNEL": "C0", "SLACK_WEBHOOK_URL": "https://h/"}
        )
    with pytest.raises(ValueError, match="SLACK_API_URL must be an http"):
        notify_settings_from_env({"SLACK_API_URL": "slack.com"})


def test_the_door_is_on_with_the_signing_secret_and_needs_the_bot_token() -> None:
    assert SlackDoorSettings.from_env({}) is None
    with pytest.raises(ValueError, match="SLACK_BOT_TOKEN is not"):
        SlackDoorSettings.from_env({"SLACK_SIGNING_SECRET": "s"})
    door = SlackDoorSettings.from_env(
        {"SLACK_SIGNING_SECRET": "s", "SLACK_BOT_TOKEN": "t", "SLACK_USERS": "U1=Ada Lovelace"}
    )
    assert door is not None and door.users == {"U1": "Ada Lovelace"}
    assert door.api_url == "https://slack.com/api/" and "'s'" not in repr(door)


def test_slack_users_are_id_name_pairs() -> None:
    assert slack_users(" U1 = Ada ,U2=grace,") == {"U1": "Ada", "U2": "grace"}
    with pytest.raises(ValueError, match="SLACK_USERS: 'U1' is not USER_ID=NAME"):
        slack_users("U1")
    with pytest.raises(ValueError, match="SLACK_USERS for U1"):
        slack_users("U1=" + "x" * 101)


def test_a_signature_is_taken_once_within_the_window() -> None:
    now = [1_000.0]
    guard = ReplayGuard(lambda: now[0])
    assert guard.first_time("v0=a") and not guard.first_time("v0=a")
    assert guard.first_time("v0=b")
    now[0] += 11 * 60  # both sides of the 5-minute window have passed: forgotten, and stale anyway
    assert guard.first_time("v0=a")
