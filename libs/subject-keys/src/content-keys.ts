import { type KeyObject, createCipheriv, randomBytes } from 'node:crypto';
import { KEY_BYTES, type KeySet } from './subject-key-store';

/**
 * Content keys and their seeds. A key set stores a random seed per key; the key is the seed
 * encrypted under the master key with AES-256 (ECB: each seed is two independent random blocks,
 * so no block repeats and the keys are as random as the seeds). Whoever holds the key table
 * without the master key learns nothing of the keys, and once a seed is destroyed its key cannot
 * be made again even with the master key. A whole key set is made in one cipher call, on writing
 * and on reading. The seeds carry no integrity of their own: a changed seed makes a key under which
 * its box does not open (the boxes are authenticated).
 */
export function keysOfSeeds(masterKey: KeyObject | Buffer, seeds: Buffer): Buffer {
  if (seeds.length % KEY_BYTES !== 0) throw new RangeError(`key seeds come in ${KEY_BYTES}-byte slots, got ${seeds.length} bytes`);
  const cipher = createCipheriv('aes-256-ecb', masterKey, null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(seeds), cipher.final()]);
}

/** `count` fresh keys and their seeds. */
export function newKeys(masterKey: KeyObject | Buffer, count: number): { keys: Buffer; seeds: Buffer } {
  const seeds = randomBytes(KEY_BYTES * count);
  return { keys: keysOfSeeds(masterKey, seeds), seeds };
}

const DESTROYED = Buffer.alloc(KEY_BYTES);

/** The keys of a stored key set's seeds; a seed of all zeros is a destroyed key. */
export function keySetOfSeeds(masterKey: KeyObject | Buffer, seeds: Buffer): KeySet {
  const destroyed = new Set<number>();
  for (let slot = 0; slot * KEY_BYTES < seeds.length; slot++) {
    if (seeds.compare(DESTROYED, 0, KEY_BYTES, slot * KEY_BYTES, (slot + 1) * KEY_BYTES) === 0) destroyed.add(slot);
  }
  const material = keysOfSeeds(masterKey, seeds);
  const size = material.length / KEY_BYTES;
  return {
    size,
    key: (slot) =>
      !Number.isInteger(slot) || slot < 0 || slot >= size || destroyed.has(slot) ? null : material.subarray(slot * KEY_BYTES, (slot + 1) * KEY_BYTES),
  };
}
