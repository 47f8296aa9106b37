import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { KEY_BYTES } from './subject-key-store';

const IV_BYTES = 12;
const TAG_BYTES = 16;
// Every box has a key of its own, used for this one box: a fixed nonce never repeats under a key.
const BOX_IV = Buffer.alloc(IV_BYTES);

/**
 * Seals a JSON value in a box: AES-256-GCM under a key used for no other box (see KeySet), with the
 * memory id authenticated, so a box does not open in another memory. `aad` is the memory id's UTF-8
 * bytes, made once for many boxes. Output: base64 of tag|ciphertext.
 */
export function sealBox(key: Buffer, aad: Buffer, value: unknown): string {
  const plaintext = JSON.stringify(value);
  if (plaintext === undefined) throw new TypeError('sealBox: the value has no JSON form');
  if (key.length !== KEY_BYTES) throw new RangeError(`a content key is ${KEY_BYTES} bytes, got ${key.length}`);
  const cipher = createCipheriv('aes-256-gcm', key, BOX_IV, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const body = cipher.update(plaintext, 'utf8');
  cipher.final();
  return Buffer.concat([cipher.getAuthTag(), body]).toString('base64');
}

/** The value sealBox sealed; throws when the key or memory differ from the sealing ones, or the box was altered. */
export function openBox(key: Buffer, aad: Buffer, box: string): unknown {
  const bytes = Buffer.from(box, 'base64');
  if (bytes.length < TAG_BYTES) throw unopenable();
  const decipher = createDecipheriv('aes-256-gcm', key, BOX_IV, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(bytes.subarray(0, TAG_BYTES));
  return JSON.parse(decrypted(() => decipher.update(bytes.subarray(TAG_BYTES)).toString('utf8') + decipher.final().toString('utf8')));
}

// The first stored format: boxes under a data key derived from the keys of all the content's subjects.
// HKDF-Expand's first block (info || 0x01), the subject keys serving as the pseudorandom key.
const LEGACY_EXPAND_INFO = Buffer.concat([Buffer.from('memotrace content v1', 'utf8'), Buffer.from([1])]);

/**
 * The value of a box of the first stored format (iv|tag|ciphertext, sealed under a data key
 * derived with HKDF-Expand, SHA-256, from the subject keys in the order given); throws as openBox.
 */
export function openLegacyContent(keys: readonly Buffer[], aad: Buffer, sealed: string): unknown {
  if (keys.length === 0) throw new RangeError('sealed content needs at least one subject key');
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw unopenable();
  const decipher = createDecipheriv('aes-256-gcm', legacyDataKey(keys), bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return JSON.parse(decrypted(() => decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)).toString('utf8') + decipher.final().toString('utf8')));
}

/** The data key of the first stored format. */
export function legacyDataKey(keys: readonly Buffer[]): Buffer {
  for (const key of keys) if (key.length !== KEY_BYTES) throw new RangeError(`a subject key is ${KEY_BYTES} bytes, got ${key.length}`);
  return createHmac('sha256', keys.length === 1 ? keys[0]! : Buffer.concat(keys))
    .update(LEGACY_EXPAND_INFO)
    .digest();
}

function decrypted(decrypt: () => string): string {
  try {
    return decrypt();
  } catch {
    throw unopenable();
  }
}

function unopenable(): Error {
  return new Error('sealed content does not open: wrong key, another memory, or altered content');
}
