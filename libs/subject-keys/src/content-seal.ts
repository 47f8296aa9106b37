import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { LruMap } from './lru-map';
import { KEY_BYTES } from './subject-key-store';

// HKDF-Expand's first block (info || 0x01): the subject keys are uniformly random already, so they
// serve as the pseudorandom key without HKDF-Extract; one HMAC costs a fifth of node's hkdfSync.
const EXPAND_INFO = Buffer.concat([Buffer.from('memotrace content v1', 'utf8'), Buffer.from([1])]);
const IV_BYTES = 12;
const TAG_BYTES = 16;

// A batch seals thousands of records under the same few key sets: derive each set's data key once.
// Keyed by the key bytes themselves, so a destroyed key's data key only lives until it is evicted.
const dataKeys = new LruMap<string, Buffer>(10_000);

/**
 * Seals a JSON value under subject keys: AES-256-GCM under a data key derived (HKDF-Expand, SHA-256) from
 * the keys in the order given, so callers pass them sorted by keyRefString. The memory id is
 * authenticated, so sealed content does not open in another memory. Output: base64 of iv|tag|ciphertext.
 */
export function sealContent(keys: readonly Buffer[], memoryId: string, value: unknown): string {
  const plaintext = JSON.stringify(value);
  if (plaintext === undefined) throw new TypeError('sealContent: the value has no JSON form');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', dataKeyFor(keys), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(memoryId, 'utf8'));
  const first = cipher.update(plaintext, 'utf8');
  const last = cipher.final();
  return Buffer.concat([iv, cipher.getAuthTag(), first, last]).toString('base64');
}

/** The value sealed by sealContent; throws when the keys or memory differ from the sealing ones, or the text was altered. */
export function openContent(keys: readonly Buffer[], memoryId: string, sealed: string): unknown {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw unopenable();
  const decipher = createDecipheriv('aes-256-gcm', dataKeyFor(keys), bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(memoryId, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  let plaintext: string;
  try {
    plaintext = decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)).toString('utf8') + decipher.final().toString('utf8');
  } catch {
    throw unopenable();
  }
  return JSON.parse(plaintext);
}

function dataKeyFor(keys: readonly Buffer[]): Buffer {
  if (keys.length === 0) throw new RangeError('sealed content needs at least one subject key');
  for (const key of keys) {
    if (key.length !== KEY_BYTES) throw new RangeError(`a subject key is ${KEY_BYTES} bytes, got ${key.length}`);
  }
  const material = keys.length === 1 ? keys[0]! : Buffer.concat(keys);
  const cacheKey = material.toString('latin1');
  let dataKey = dataKeys.get(cacheKey);
  if (!dataKey) {
    dataKey = createHmac('sha256', material).update(EXPAND_INFO).digest();
    dataKeys.set(cacheKey, dataKey);
  }
  return dataKey;
}

function unopenable(): Error {
  return new Error('sealed content does not open: wrong subject keys or key order, another memory, or altered content');
}
