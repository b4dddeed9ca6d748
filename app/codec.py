"""The payload codec: AES-256-GCM under the key ring's newest key, the key id in the payload's
metadata; any key of the ring decrypts; unencrypted payloads are read unless refused.

The format, for supervisors in other languages (docs/encryption.md): the encrypted payload's
metadata is ``encoding: binary/encrypted`` and ``encryption-key-id: <id>``; its data is a
12-byte random nonce followed by AES-256-GCM's ciphertext and 16-byte tag of the original
``temporal.api.common.v1.Payload`` serialized as protobuf, no associated data: the scheme of
Temporal's encryption samples.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from google.protobuf.message import DecodeError
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from agent_interrupts.app.encryption_keys import KEYS_FILE_SETTING, KEYS_SETTING, KeyRing
from agent_interrupts.models.errors import PayloadKeyError

ENCODING_KEY = "encoding"
ENCRYPTED = b"binary/encrypted"
KEY_ID_KEY = "encryption-key-id"
REFUSED_PLAINTEXT = b"binary/refused-plaintext"
"""What a worker that refuses plaintext (``AGENTS_ENCRYPTION_PLAINTEXT=refuse``) turns an
unencrypted payload into: the payload converter refuses it in one line
(``app.data_converter.CheckedPayloadConverter``), so a signal is dropped, an update rejected and
a start fails the run at once, never a workflow task failing forever."""
NONCE_BYTES = 12


class EncryptionCodec(PayloadCodec):
    """Encrypts every payload under the newest key of ``ring`` (none: payloads pass as they
    are); decrypts under the key its id names. ``refuse_plaintext``: mark unencrypted payloads
    refused instead of reading them (a worker with ``AGENTS_ENCRYPTION_PLAINTEXT=refuse``)."""

    def __init__(self, ring: KeyRing | None, *, refuse_plaintext: bool = False) -> None:
        self.ring = ring
        self.refuse_plaintext = refuse_plaintext
        self._ciphers = {key_id: AESGCM(key) for key_id, key in ring.keys} if ring else {}

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return self.encode_now(payloads)

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return self.decode_now(payloads)

    def encode_now(self, payloads: Sequence[Payload]) -> list[Payload]:
        if self.ring is None:
            return list(payloads)
        key_id, _ = self.ring.newest
        cipher = self._ciphers[key_id]
        sealed = []
        for payload in payloads:
            if payload.metadata.get(ENCODING_KEY) == ENCRYPTED:
                sealed.append(payload)  # already sealed (a codec server asked twice)
                continue
            nonce = os.urandom(NONCE_BYTES)
            data = nonce + cipher.encrypt(nonce, payload.SerializeToString(), None)
            sealed.append(
                Payload(metadata={ENCODING_KEY: ENCRYPTED, KEY_ID_KEY: key_id.encode()}, data=data)
            )
        return sealed

    def decode_now(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._opened(payload) for payload in payloads]

    def _opened(self, payload: Payload) -> Payload:
        if payload.metadata.get(ENCODING_KEY) != ENCRYPTED:
            if self.refuse_plaintext:
                return Payload(metadata={ENCODING_KEY: REFUSED_PLAINTEXT})
            return payload
        key_id = payload.metadata.get(KEY_ID_KEY, b"").decode(errors="replace")[:40]
        if self.ring is None:
            raise PayloadKeyError(
                f"a payload is encrypted (key id {key_id!r}) and no keys are set: set "
                f"{KEYS_SETTING} (or {KEYS_FILE_SETTING}) to the keys it was written under"
            )
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise PayloadKeyError(
                f"a payload is encrypted under key id {key_id!r}, which {KEYS_SETTING} does not "
                f"hold (it holds {', '.join(self.ring.ids)}): add that key"
            )
        data = payload.data
        try:
            opened = cipher.decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], None)
            return Payload.FromString(opened)
        except (InvalidTag, ValueError, DecodeError):
            raise PayloadKeyError(
                f"a payload under key id {key_id!r} does not decrypt with the key of that id in "
                f"{KEYS_SETTING}: the key was changed, or the payload altered"
            ) from None


def codec_from_env() -> EncryptionCodec:
    """The codec of this process's settings (``KeyRing.from_env``); without keys it passes
    payloads through and names the setting on meeting an encrypted one."""
    ring = KeyRing.from_env()
    return EncryptionCodec(ring, refuse_plaintext=ring is not None and not ring.accept_plaintext)
