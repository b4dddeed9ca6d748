"""Signed answer tokens: what one grants, and every way a token is refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_interrupts.models.signing import (
    ACCEPT,
    MAX_TOKEN_CHARS,
    REPLY,
    Grant,
    TokenRefused,
    form_key,
    secret_problem,
    sign,
    verify,
)

SECRET = "a-signing-secret-of-at-least-32-characters"
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
GRANT = Grant("run-1-interrupt-1", "choice:cache:B", "alice@example.test", NOW + timedelta(hours=1))


def test_a_token_carries_its_question_answer_addressee_and_expiry() -> None:
    token = sign(SECRET, GRANT)
    assert verify(SECRET, token, NOW) == GRANT
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")


def test_an_expired_token_is_refused_naming_when() -> None:
    token = sign(SECRET, GRANT)
    with pytest.raises(TokenRefused, match="expired at 2026-01-02 04:04 UTC"):
        verify(SECRET, token, GRANT.expires)


def test_another_secret_or_an_altered_question_never_checks() -> None:
    token = sign(SECRET, GRANT)
    with pytest.raises(TokenRefused, match="signature does not check"):
        verify("another-signing-secret-of-32-characters!", token, NOW)
    other = sign(SECRET, Grant("run-2-interrupt-1", ACCEPT, GRANT.to, GRANT.expires))
    spliced = other.split(".")[0] + "." + token.split(".")[1]
    with pytest.raises(TokenRefused, match="signature does not check"):
        verify(SECRET, spliced, NOW)  # one question's signature never answers another


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300) | st.from_regex(r"[A-Za-z0-9_-]{0,80}\.[A-Za-z0-9_-]{0,60}"))
def test_any_text_is_refused_in_one_line_never_another_error(text: str) -> None:
    with pytest.raises(TokenRefused) as refused:
        verify(SECRET, text, NOW)
    assert "\n" not in str(refused.value)


def test_a_token_too_long_is_refused_before_it_is_read() -> None:
    with pytest.raises(TokenRefused, match="malformed"):
        verify(SECRET, "a" * MAX_TOKEN_CHARS + ".b", NOW)


def test_the_form_key_is_the_tokens_own() -> None:
    one, two = sign(SECRET, GRANT), sign(SECRET, Grant("q", REPLY, "bob", GRANT.expires))
    assert form_key(SECRET, one) != form_key(SECRET, two)
    assert form_key(SECRET, one) != form_key("x" * 40, one)


def test_a_door_without_a_secret_names_the_setting() -> None:
    assert secret_problem(None, "the email door") == (
        "the email door needs AGENTS_SIGNING_SECRET: set it (the same value on workers and the "
        "inbox)"
    )
    assert "at least 32 characters" in (secret_problem("short", "x") or "")
    assert secret_problem(SECRET, "x") is None
