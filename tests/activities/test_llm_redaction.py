"""Secrets and credential-shaped values are redacted from text and log records."""

from __future__ import annotations

import logging
import uuid

import pytest

from agent_interrupts.activities.redaction import (
    REDACTED,
    RedactingFilter,
    add_secret,
    install_log_redaction,
    redact,
)

NO_ENV: dict[str, str] = {}


def _secret() -> str:
    """A configured value with no credential shape: only the configuration can redact it."""
    return f"plain{uuid.uuid4().hex}"


def test_a_registered_secret_is_replaced_wherever_it_appears() -> None:
    secret = _secret()
    add_secret(secret)
    text = f"HTTP 400: Incorrect API key provided: {secret}. Header was {secret}"
    assert redact(text, NO_ENV) == (
        f"HTTP 400: Incorrect API key provided: {REDACTED}. Header was {REDACTED}"
    )


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "TEMPORAL_API_KEY"])
def test_secrets_in_the_environment_are_replaced(name: str) -> None:
    secret = _secret()
    assert redact(f"echo: {secret}", {name: secret}) == f"echo: {REDACTED}"
    assert secret in redact(f"echo: {secret}", {"OTHER": secret}), "only the named variables"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc.DEF-123_xyz", f"Authorization: Bearer {REDACTED}"),
        ("authorization=basic dXNlcjpwYXNzd29yZA==", f"authorization=basic {REDACTED}"),
        ("key sk-proj-AbCdEf0123456789 rejected", f"key {REDACTED} rejected"),
        ('{"api_key": "q1w2e3r4t5y6"}', f'{{"api_key": "{REDACTED}"}}'),
        ("x-api-key=q1w2e3r4t5y6u7", f"x-api-key={REDACTED}"),
        ("http://bob:hunter2hunter2@llm.local/v1", f"http://bob:{REDACTED}@llm.local/v1"),
    ],
)
def test_credential_shapes_are_replaced_without_configuration(text: str, expected: str) -> None:
    assert redact(text, NO_ENV) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the model 'gpt-4o-mini' did not produce a valid OrchestratorRouting in 3 attempts",
        "ask-me-later is not a key; neither is task-12345678",
        "check OPENAI_BASE_URL and that the server is running at http://127.0.0.1:8080/v1",
        "a token budget of 4096 tokens",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text, NO_ENV) == text


def test_short_configured_values_are_not_treated_as_secrets() -> None:
    add_secret("x")
    assert redact("an x marks the spot", {"OPENAI_API_KEY": "spot"}) == "an x marks the spot"


def test_the_filter_redacts_message_arguments_and_traceback_in_the_whole_family(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = _secret()
    add_secret(secret)
    family = f"test-redaction-{uuid.uuid4().hex}"
    logger = logging.getLogger(f"{family}.client")
    install_log_redaction([family])
    install_log_redaction([family])
    assert len(logger.filters) == 1, "installed on the existing child, once"

    with caplog.at_level(logging.INFO):
        logger.info("calling with %s", secret)
        try:
            raise RuntimeError(f"endpoint said {secret}")
        except RuntimeError:
            logger.exception("failed")
        logging.getLogger(family).warning("the family's own logger: %s", secret)

    assert len(caplog.records) == 3, "the filter drops nothing"
    assert secret not in caplog.text
    assert f"calling with {REDACTED}" in caplog.text
    assert f"RuntimeError: endpoint said {REDACTED}" in caplog.text
    assert f"the family's own logger: {REDACTED}" in caplog.text


def test_a_record_whose_arguments_do_not_fit_its_format_is_still_redacted() -> None:
    secret = _secret()
    add_secret(secret)
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "%s and %s", (secret,), None)
    assert RedactingFilter().filter(record)
    assert secret not in str(record.msg) + str(record.args)
