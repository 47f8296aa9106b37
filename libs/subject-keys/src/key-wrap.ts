import { type KeyObject, createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KEY_BYTES } from './subject-key-store';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The first stored format of keys (table mt_subject_keys, one key per subject and generation, which
 * the log's earliest sealed records name): each key wrapped under the master key with AES-256-GCM
 * and a random IV, bound by AAD to its memory and ref so a wrapped key copied to another row does
 * not unwrap. Layout: iv (12) | tag (16) | ciphertext (32). Only read now; tests write it.
 */
export function wrapKey(masterKey: Buffer | KeyObject, memoryId: string, refString: string, key: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(wrapAad(memoryId, refString));
  const ciphertext = cipher.update(key);
  const last = cipher.final();
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext, last]);
}

export function unwrapKey(masterKey: Buffer | KeyObject, memoryId: string, refString: string, wrapped: Buffer): Buffer {
  const failure = () =>
    new Error(`subject key ${refString} of memory ${memoryId} does not unwrap: wrong master key (MEMOTRACE_MASTER_KEY) or a damaged key row`);
  if (wrapped.length !== IV_BYTES + TAG_BYTES + KEY_BYTES) throw failure();
  const decipher = createDecipheriv('aes-256-gcm', masterKey, wrapped.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(wrapAad(memoryId, refString));
  decipher.setAuthTag(wrapped.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(wrapped.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw failure();
  }
}

function wrapAad(memoryId: string, refString: string): Buffer {
  return Buffer.from(`${memoryId}\n${refString}`, 'utf8');
}
