"""The key the history recorder encrypts its encrypted scenario under, and the replays decode
with: a test key, public in this repository, which protects nothing (docs/encryption.md)."""

from __future__ import annotations

from agent_interrupts.app.encryption_keys import KeyRing

RECORDING_RING = KeyRing(
    (
        (
            "recorded-1",
            bytes.fromhex("346d9805d2410dd266a89a2487c39166c6d08b24864a8fe6bea57742f92f8387"),
        ),
    )
)
