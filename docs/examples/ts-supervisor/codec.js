// @ts-check
// The payload codec of agent-interrupts (app/codec.py), for Temporal's TypeScript SDK: AES-256-GCM
// under the first key of AGENTS_ENCRYPTION_KEYS, the key's id in the payload's metadata; every key
// decrypts; an unencrypted payload passes as it is.
//
// Encrypted payload: metadata `encoding: binary/encrypted` and `encryption-key-id: <id>`; data: a
// 12-byte random nonce, then AES-256-GCM's ciphertext of the original Payload serialized as
// protobuf, with the 16-byte tag at its end; no associated data.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const { temporal } = require('@temporalio/proto');

const ENCODING = 'encoding';
const ENCRYPTED = 'binary/encrypted';
const KEY_ID = 'encryption-key-id';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** @typedef {import('@temporalio/common').Payload} Payload */

/**
 * The keys of `ID:BASE64KEY` pairs separated by commas or lines (`#` lines are comments), the
 * format of AGENTS_ENCRYPTION_KEYS; the first encrypts.
 * @param {string} value
 * @returns {Array<[string, Buffer]>}
 */
function parseKeys(value) {
  /** @type {Array<[string, Buffer]>} */
  const keys = [];
  for (const line of value.split('\n')) {
    if (line.trim().startsWith('#')) continue;
    for (const item of line.split(',')) {
      if (!item.trim()) continue;
      const at = item.indexOf(':');
      const id = item.slice(0, at).trim();
      const key = Buffer.from(item.slice(at + 1).trim(), 'base64'); // standard or URL-safe
      if (at <= 0 || key.length !== 32) {
        throw new Error(`AGENTS_ENCRYPTION_KEYS: ${id ? `key '${id}'` : 'an item'} is not ID:BASE64KEY of 32 bytes; copy the value the workers use`);
      }
      keys.push([id, key]);
    }
  }
  if (keys.length === 0) throw new Error('AGENTS_ENCRYPTION_KEYS holds no key: set it to the value the workers use');
  return keys;
}

/**
 * The keys of this process's environment: AGENTS_ENCRYPTION_KEYS, or the file that
 * AGENTS_ENCRYPTION_KEYS_FILE names; none: undefined (payloads go unencrypted).
 * @param {NodeJS.ProcessEnv} env
 */
function keysFromEnv(env = process.env) {
  const value = env.AGENTS_ENCRYPTION_KEYS?.trim();
  const path = env.AGENTS_ENCRYPTION_KEYS_FILE?.trim();
  if (value && path) throw new Error('set AGENTS_ENCRYPTION_KEYS or AGENTS_ENCRYPTION_KEYS_FILE, not both');
  if (path) return parseKeys(fs.readFileSync(path, 'utf8'));
  return value ? parseKeys(value) : undefined;
}

/** @implements {import('@temporalio/common').PayloadCodec} */
class EncryptionCodec {
  /** @param {Array<[string, Buffer]>} keys the first encrypts, all decrypt */
  constructor(keys) {
    this.keys = new Map(keys);
    [this.keyId, this.key] = keys[0];
  }

  /** @param {Payload[]} payloads */
  async encode(payloads) {
    return payloads.map((payload) => {
      if (Buffer.from(payload.metadata?.[ENCODING] ?? []).toString() === ENCRYPTED) return payload;
      const nonce = crypto.randomBytes(NONCE_BYTES);
      const cipher = crypto.createCipheriv('aes-256-gcm', this.key, nonce);
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const sealed = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { [ENCODING]: Buffer.from(ENCRYPTED), [KEY_ID]: Buffer.from(this.keyId) },
        data: sealed,
      };
    });
  }

  /** @param {Payload[]} payloads */
  async decode(payloads) {
    return payloads.map((payload) => {
      if (Buffer.from(payload.metadata?.[ENCODING] ?? []).toString() !== ENCRYPTED) return payload;
      const keyId = Buffer.from(payload.metadata?.[KEY_ID] ?? []).toString().slice(0, 40);
      const key = this.keys.get(keyId);
      if (!key) {
        throw new Error(`a payload is encrypted under key id '${keyId}', which AGENTS_ENCRYPTION_KEYS does not hold (it holds ${[...this.keys.keys()].join(', ')}): add that key`);
      }
      const data = Buffer.from(payload.data ?? []);
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      try {
        const plain = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
        return temporal.api.common.v1.Payload.decode(plain);
      } catch {
        throw new Error(`a payload under key id '${keyId}' does not decrypt with the key of that id in AGENTS_ENCRYPTION_KEYS: the key was changed, or the payload altered`);
      }
    });
  }
}

module.exports = { EncryptionCodec, keysFromEnv, parseKeys };
