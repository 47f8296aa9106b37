import { randomBytes } from 'node:crypto';

const POOL_BYTES = 16 * 1024;

let pool = randomBytes(POOL_BYTES);
let offset = 0;

/**
 * `length` fresh random bytes (for IVs, not keys): one `randomBytes` call serves a thousand of them,
 * where a call each costs more than the AES-GCM seal it feeds. Every slice is handed out once.
 */
export function randomSlice(length: number): Buffer {
  if (length > POOL_BYTES) return randomBytes(length);
  if (offset + length > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const slice = pool.subarray(offset, offset + length);
  offset += length;
  return slice;
}
