"""The payload codec and its keys: AES-256-GCM under the newest key, any key decrypts,
one line naming the setting or the key id, never a key."""

from __future__ import annotations

import base64
import json

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.failure.v1 import Failure

from agent_interrupts.app.codec import ENCRYPTED, KEY_ID_KEY, EncryptionCodec
from agent_interrupts.app.data_converter import data_converter, failure_text
from agent_interrupts.app.encryption_keys import (
    KeyRing,
    parse_keys,
    rotated,
    setting_value,
)
from agent_interrupts.models.errors import PayloadKeyError, Rejected, UndecodablePayload

K1 = ("k1", bytes(range(32)))
K2 = ("k2", bytes(range(32, 64)))
SECRET = "the model said: the launch code is 0000"


def _plain(text: str = SECRET) -> Payload:
    return Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(text).encode())


async def test_payloads_are_sealed_under_the_newest_key_and_open_again() -> None:
    codec = EncryptionCodec(KeyRing((K2, K1)))
    (sealed,) = await codec.encode([_plain()])
    assert sealed.metadata["encoding"] == ENCRYPTED and sealed.metadata[KEY_ID_KEY] == b"k2"
    assert SECRET.encode() not in sealed.SerializeToString()
    assert await codec.decode([sealed]) == [_plain()]
    again = await codec.encode([_plain()])
    assert again[0].data != sealed.data  # a fresh nonce every time


async def test_an_old_key_still_opens_and_an_unknown_one_is_named() -> None:
    (old,) = await EncryptionCodec(KeyRing((K1,))).encode([_plain()])
    assert await EncryptionCodec(KeyRing((K2, K1))).decode([old]) == [_plain()]
    with pytest.raises(PayloadKeyError) as caught:
        await EncryptionCodec(KeyRing((K2,))).decode([old])
    message = str(caught.value)
    assert "'k1'" in message and "AGENTS_ENCRYPTION_KEYS" in message and "\n" not in message
    for _, key in (K1, K2):
        assert base64.b64encode(key).decode() not in message


async def test_without_keys_an_encrypted_payload_names_the_setting() -> None:
    (sealed,) = await EncryptionCodec(KeyRing((K1,))).encode([_plain()])
    with pytest.raises(PayloadKeyError, match="no keys are set: set AGENTS_ENCRYPTION_KEYS"):
        await EncryptionCodec(None).decode([sealed])


async def test_a_changed_key_or_an_altered_payload_is_one_line() -> None:
    (sealed,) = await EncryptionCodec(KeyRing((K1,))).encode([_plain()])
    with pytest.raises(PayloadKeyError, match="does not decrypt with the key of that id"):
        await EncryptionCodec(KeyRing((("k1", bytes(32)),))).decode([sealed])
    altered = Payload(metadata=dict(sealed.metadata), data=sealed.data[:-1] + b"x")
    with pytest.raises(PayloadKeyError, match="the payload altered"):
        await EncryptionCodec(KeyRing((K1,))).decode([altered])


async def test_plaintext_is_read_unless_a_worker_refuses_it() -> None:
    assert await EncryptionCodec(KeyRing((K1,))).decode([_plain()]) == [_plain()]
    refusing = data_converter(KeyRing((K1,), accept_plaintext=False), worker=True)
    with pytest.raises(UndecodablePayload, match="AGENTS_ENCRYPTION_PLAINTEXT=refuse"):
        await refusing.decode([_plain()], [str])
    client_side = data_converter(KeyRing((K1,), accept_plaintext=False))
    assert await client_side.decode([_plain()], [str]) == [SECRET]


async def test_failure_messages_are_sealed_and_read_back() -> None:
    converter = data_converter(KeyRing((K1,)))
    failure = Failure()
    await converter.encode_failure(RuntimeError(SECRET), failure)
    assert SECRET.encode() not in failure.SerializeToString()
    assert failure.message == "Encoded failure"
    assert str(await converter.decode_failure(failure)).endswith(SECRET)
    rejected = Failure()
    await converter.encode_failure(Rejected(SECRET), rejected)
    assert SECRET.encode() not in rejected.SerializeToString()
    opened = Failure()
    opened.CopyFrom(rejected)
    await converter.payload_codec.decode_failure(opened)  # type: ignore[union-attr]
    assert json.loads(opened.encoded_attributes.data) == {"message": SECRET, "stack_trace": ""}
    # what `agents status` and the follower's line read from raw histories
    assert await failure_text(converter, rejected) == SECRET
    assert "no keys are set" in await failure_text(data_converter(None), rejected)
    assert await failure_text(data_converter(None), Failure(message="plain")) == "plain"


def test_the_setting_is_read_newest_first_and_bad_values_are_one_line() -> None:
    value = setting_value((K2, K1))
    ring = KeyRing.from_env({"AGENTS_ENCRYPTION_KEYS": value})
    assert ring is not None and ring.ids == ("k2", "k1") and ring.accept_plaintext
    assert KeyRing.from_env({}) is None
    urlsafe = "k3:" + base64.urlsafe_b64encode(bytes([251] * 32)).decode().rstrip("=")
    assert parse_keys(urlsafe) == (("k3", bytes([251] * 32)),)
    secret = base64.b64encode(bytes(31)).decode()
    for bad, says in [
        (f"k1:{secret}", "not 32 bytes"),
        ("k1", "not ID:BASE64KEY"),
        (f"{value},{value}", "given twice"),
        ("# only a comment", "holds no key"),
    ]:
        with pytest.raises(ValueError, match=says) as caught:
            parse_keys(bad)
        assert secret not in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="accept or refuse"):
        KeyRing.from_env({"AGENTS_ENCRYPTION_KEYS": value, "AGENTS_ENCRYPTION_PLAINTEXT": "x"})


def test_the_keys_file_is_read(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "keys"
    path.write_text(f"# newest first\n{setting_value((K2,))}\n{setting_value((K1,))}\n")
    ring = KeyRing.from_env({"AGENTS_ENCRYPTION_KEYS_FILE": str(path)})
    assert ring is not None and ring.ids == ("k2", "k1")
    with pytest.raises(ValueError, match="not both"):
        KeyRing.from_env(
            {"AGENTS_ENCRYPTION_KEYS_FILE": str(path), "AGENTS_ENCRYPTION_KEYS": "k1:x"}
        )
    with pytest.raises(ValueError, match="cannot read AGENTS_ENCRYPTION_KEYS_FILE"):
        KeyRing.from_env({"AGENTS_ENCRYPTION_KEYS_FILE": str(path) + ".missing"})


def test_a_rotation_puts_a_new_key_first() -> None:
    keys = rotated((K2, K1))
    assert [key_id for key_id, _ in keys] == ["k3", "k2", "k1"]
    assert len(keys[0][1]) == 32 and keys[0][1] not in (K1[1], K2[1])
    assert rotated(())[0][0] == "k1"
