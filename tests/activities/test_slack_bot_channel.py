"""The Slack bot's notices against a Slack-shaped server (``tests/support/slack.py``): the
question posted with buttons, the final notice updating it in place even when the answer came
before the workflow heard of the post, a reminder in the thread, a refusal and a 429 mapped."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from agent_interrupts.activities.notify import build_payload
from agent_interrupts.activities.notify_channels import SlackBotChannel
from agent_interrupts.activities.slack_api import SlackApi
from agent_interrupts.models.errors import NotificationFailed, NotificationRefused
from agent_interrupts.models.interrupts import InterruptResolution, OptionKey
from agent_interrupts.models.notifications import NoticeKind, NotificationPayload, SlackMessage
from tests.activities.test_notify import _notice
from tests.support.slack import BOT_TOKEN, CHANNEL, FakeSlack, buttons, message_ts


def _payload(kind: NoticeKind, **update: object) -> NotificationPayload:
    notice = _notice(kind).model_copy(update=update)
    return build_payload(notice, "default", "http://ui.example:8233/")


def _bot(slack: FakeSlack, token: str = BOT_TOKEN) -> SlackBotChannel:
    return SlackBotChannel(SlackApi(token, slack.api_url, 5), CHANNEL, "https://inbox.test/")


async def test_an_answer_before_the_post_was_heard_of_still_updates_the_message() -> None:
    answer = InterruptResolution(selected_choices={"cache": OptionKey.A}, answered_by="grace")
    with FakeSlack().running() as slack:
        bot = _bot(slack)
        asked = await bot.send(_payload(NoticeKind.QUESTION))
        assert asked is not None and asked.channel == CHANNEL
        posted = slack.of("chat.postMessage")[0]
        assert "★ B: redis" in buttons(posted.args["blocks"])
        assert asked.ts == message_ts(posted)
        # the workflow never heard of the post (no slackMessage): this worker remembers it
        await bot.send(_payload(NoticeKind.REMINDER))
        await bot.send(_payload(NoticeKind.RESOLVED, resolution=answer))
        reminder = slack.of("chat.postMessage")[1].args
        assert reminder["thread_ts"] == asked.ts, "a reminder answers in the thread"
        update = slack.of("chat.update")[0].args
        assert (update["channel"], update["ts"]) == (CHANNEL, asked.ts)
        assert "Answered by grace (HUMAN)" in str(update["blocks"])
        # another worker, told where the message is by the notice
        other = _bot(slack)
        known = SlackMessage(channel=CHANNEL, ts=asked.ts)
        await other.send(_payload(NoticeKind.RESOLVED, resolution=answer, slack_message=known))
        assert len(slack.of("chat.update")) == 2
        # a worker that neither posted it nor was told posts the final notice anew
        await _bot(slack).send(_payload(NoticeKind.RESOLVED, resolution=answer))
        assert len(slack.of("chat.postMessage")) == 3


async def test_a_final_notice_waits_for_the_question_post_in_flight() -> None:
    with FakeSlack().running() as slack:
        bot = _bot(slack)
        slow = asyncio.create_task(bot.send(_payload(NoticeKind.QUESTION)))
        await asyncio.sleep(0)  # the question's post has started
        await bot.send(_payload(NoticeKind.TIMED_OUT))
        asked = await slow
        assert asked is not None
        assert slack.of("chat.update")[0].args["ts"] == asked.ts
        assert "Nobody answered by the deadline" in str(slack.of("chat.update")[0].args["blocks"])


async def test_a_wrong_token_is_refused_and_a_429_retried_after_its_delay() -> None:
    with FakeSlack(statuses={"chat.postMessage": [429]}).running() as slack:
        with pytest.raises(
            NotificationFailed, match=r"429 ratelimited; check SLACK_BOT_TOKEN"
        ) as err:
            await _bot(slack).send(_payload(NoticeKind.QUESTION))
        assert err.value.next_retry_delay == timedelta(seconds=1)
        with pytest.raises(NotificationRefused, match="invalid_auth") as refused:
            await _bot(slack, token="xoxb-wrong-token-123").send(_payload(NoticeKind.QUESTION))
        assert "xoxb-wrong-token-123" not in str(refused.value)
