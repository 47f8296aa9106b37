import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { randomSlice } from './random-pool';
import { KEY_BYTES } from './subject-key-store';

// HKDF-Expand's first block (info || 0x01): the subject keys are uniformly random already, so they
// serve as the pseudorandom key without HKDF-Extract; one HMAC costs a fifth of node's hkdfSync.
const EXPAND_INFO = Buffer.concat([Buffer.from('memotrace content v1', 'utf8'), Buffer.from([1])]);
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Data keys derived before, found by the identity of the key buffers in order (a trie of weak maps):
 * a memory read again opens its records under the same key buffers (the key cache's), and a derived key
 * lives no longer than every key buffer it was derived from, so a destroyed key that the key cache has
 * dropped takes its data keys with it. Buffers are never hashed or copied for the lookup.
 */
interface DerivedNode {
  dataKey?: Buffer;
  next?: WeakMap<Buffer, DerivedNode>;
}
const derived = new WeakMap<Buffer, DerivedNode>();

/**
 * Seals a JSON value under subject keys: AES-256-GCM under a data key derived (HKDF-Expand, SHA-256) from
 * the keys in the order given, so callers pass them sorted by keyRefString. The memory id is
 * authenticated, so sealed content does not open in another memory. Output: base64 of iv|tag|ciphertext.
 * `aad` may pass the memory id's UTF-8 bytes, made once for many seals.
 */
export function sealContent(keys: readonly Buffer[], memoryId: string, value: unknown, aad?: Buffer): string {
  const plaintext = JSON.stringify(value);
  if (plaintext === undefined) throw new TypeError('sealContent: the value has no JSON form');
  const iv = randomSlice(IV_BYTES);
  // Sealing rarely meets a key set twice (a batch's records name new subjects): derive, do not remember.
  const cipher = createCipheriv('aes-256-gcm', deriveDataKey(checked(keys)), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad ?? Buffer.from(memoryId, 'utf8'));
  const first = cipher.update(plaintext, 'utf8');
  const last = cipher.final();
  return Buffer.concat([iv, cipher.getAuthTag(), first, last]).toString('base64');
}

/**
 * The value sealed by sealContent; throws when the keys or memory differ from the sealing ones, or the text was altered.
 * Key buffers must not change once used: the data key derived from them is kept while they live.
 */
export function openContent(keys: readonly Buffer[], memoryId: string, sealed: string, aad?: Buffer): unknown {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw unopenable();
  const decipher = createDecipheriv('aes-256-gcm', dataKeyFor(keys), bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(aad ?? Buffer.from(memoryId, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  let plaintext: string;
  try {
    plaintext = decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)).toString('utf8') + decipher.final().toString('utf8');
  } catch {
    throw unopenable();
  }
  return JSON.parse(plaintext);
}

function checked(keys: readonly Buffer[]): readonly Buffer[] {
  if (keys.length === 0) throw new RangeError('sealed content needs at least one subject key');
  for (const key of keys) {
    if (key.length !== KEY_BYTES) throw new RangeError(`a subject key is ${KEY_BYTES} bytes, got ${key.length}`);
  }
  return keys;
}

/** The data key of a key set, derived once while its key buffers live. */
function dataKeyFor(keys: readonly Buffer[]): Buffer {
  checked(keys);
  let node: DerivedNode | undefined;
  for (const key of keys) {
    const level: WeakMap<Buffer, DerivedNode> = node === undefined ? derived : (node.next ??= new WeakMap());
    let child = level.get(key);
    if (child === undefined) level.set(key, (child = {}));
    node = child;
  }
  return (node!.dataKey ??= deriveDataKey(keys));
}

function deriveDataKey(keys: readonly Buffer[]): Buffer {
  const hmac = createHmac('sha256', keys.length === 1 ? keys[0]! : Buffer.concat(keys));
  return hmac.update(EXPAND_INFO).digest();
}

function unopenable(): Error {
  return new Error('sealed content does not open: wrong subject keys or key order, another memory, or altered content');
}
