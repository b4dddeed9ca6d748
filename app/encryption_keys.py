"""The encryption keys: ``AGENTS_ENCRYPTION_KEYS`` (or the file ``AGENTS_ENCRYPTION_KEYS_FILE``)
read into a key ring, newest first; ``agents keys rotate``'s new key. Pure but for reading the
file; no message ever holds a key (docs/encryption.md)."""

from __future__ import annotations

import base64
import binascii
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

KEYS_SETTING = "AGENTS_ENCRYPTION_KEYS"
KEYS_FILE_SETTING = "AGENTS_ENCRYPTION_KEYS_FILE"
PLAINTEXT_SETTING = "AGENTS_ENCRYPTION_PLAINTEXT"
PLAINTEXT_CHOICES = ("accept", "refuse")
KEY_BYTES = 32
"""AES-256."""
KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,40}")
"""A key id: it travels in every payload's metadata, so it says nothing about the key."""
MAX_KEYS = 64
MAX_KEYS_FILE_BYTES = 64 * 1024


@dataclass(frozen=True)
class KeyRing:
    """The keys, newest first: the newest encrypts, every one decrypts."""

    keys: tuple[tuple[str, bytes], ...] = field(repr=False)
    accept_plaintext: bool = True
    """Whether an unencrypted payload reaching a worker is read (the default: runs started before
    encryption was turned on, supervisors that do not encrypt) or refused (``refuse``)."""

    @property
    def newest(self) -> tuple[str, bytes]:
        return self.keys[0]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(key_id for key_id, _ in self.keys)

    def key(self, key_id: str) -> bytes | None:
        return dict(self.keys).get(key_id)

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> KeyRing | None:
        """The configured keys, or None when encryption is off. ValueError in one line naming
        the setting when a value is unusable."""
        value = env.get(KEYS_SETTING, "").strip()
        path = env.get(KEYS_FILE_SETTING, "").strip()
        plaintext = (env.get(PLAINTEXT_SETTING) or "accept").strip().lower()
        if plaintext not in PLAINTEXT_CHOICES:
            raise ValueError(f"{PLAINTEXT_SETTING} must be accept or refuse")
        if value and path:
            raise ValueError(f"set {KEYS_SETTING} or {KEYS_FILE_SETTING}, not both")
        source = KEYS_SETTING
        if path:
            source = KEYS_FILE_SETTING
            value = _read_keys_file(Path(path))
        if not value:
            if plaintext == "refuse":
                raise ValueError(f"{PLAINTEXT_SETTING}=refuse needs keys: set {KEYS_SETTING}")
            return None
        return cls(parse_keys(value, source), accept_plaintext=plaintext == "accept")


def parse_keys(value: str, source: str = KEYS_SETTING) -> tuple[tuple[str, bytes], ...]:
    """``ID:BASE64KEY`` items separated by commas or new lines, newest first; lines starting
    with ``#`` are comments. Each key is 32 random bytes in base64 (standard or URL-safe)."""
    items = [
        item.strip()
        for line in value.splitlines()
        if not line.strip().startswith("#")
        for item in line.split(",")
        if item.strip()
    ]
    if not items:
        raise ValueError(f"{source} holds no key: give ID:BASE64KEY (agents keys rotate makes one)")
    if len(items) > MAX_KEYS:
        raise ValueError(f"{source} holds more than {MAX_KEYS} keys: drop the oldest")
    keys: list[tuple[str, bytes]] = []
    for place, item in enumerate(items, 1):
        key_id, colon, encoded = item.partition(":")
        key_id = key_id.strip()
        if not colon or not KEY_ID.fullmatch(key_id):
            raise ValueError(
                f"{source}: key {place} is not ID:BASE64KEY (an id of letters, digits, "
                "'_', '.', '-'); agents keys rotate prints one"
            )
        if any(key_id == known for known, _ in keys):
            raise ValueError(f"{source}: key id {key_id!r} is given twice; give each key its own")
        key = _decoded(encoded.strip())
        if key is None or len(key) != KEY_BYTES:
            raise ValueError(
                f"{source}: key {key_id!r} is not {KEY_BYTES} bytes in base64; "
                "agents keys rotate prints a new one"
            )
        keys.append((key_id, key))
    return tuple(keys)


def setting_value(keys: tuple[tuple[str, bytes], ...]) -> str:
    """The ``AGENTS_ENCRYPTION_KEYS`` value of ``keys`` (newest first)."""
    return ",".join(f"{key_id}:{base64.b64encode(key).decode()}" for key_id, key in keys)


def rotated(keys: tuple[tuple[str, bytes], ...]) -> tuple[tuple[str, bytes], ...]:
    """``keys`` with a new random key first, its id the next ``kN`` after theirs."""
    numbers = [int(key_id[1:]) for key_id, _ in keys if re.fullmatch(r"k\d{1,9}", key_id)]
    new_id = f"k{max(numbers, default=0) + 1}"
    while any(new_id == key_id for key_id, _ in keys):
        new_id = f"{new_id}x"
    return ((new_id, secrets.token_bytes(KEY_BYTES)), *keys)


def _decoded(encoded: str) -> bytes | None:
    padded = encoded + "=" * (-len(encoded) % 4)
    try:
        if "-" in encoded or "_" in encoded:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _read_keys_file(path: Path) -> str:
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_KEYS_FILE_BYTES + 1)
    except OSError as err:
        raise ValueError(
            f"cannot read {KEYS_FILE_SETTING} ({path}): {err.strerror or err}; check the path"
        ) from None
    if len(raw) > MAX_KEYS_FILE_BYTES:
        raise ValueError(f"{KEYS_FILE_SETTING} ({path}) is larger than 64 KiB: is it the keys?")
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise ValueError(
            f"{KEYS_FILE_SETTING} ({path}) is not text: give ID:BASE64KEY lines"
        ) from None
