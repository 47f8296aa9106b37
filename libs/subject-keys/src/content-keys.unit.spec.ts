import { createSecretKey, randomBytes } from 'node:crypto';
import { keySetOfSeeds, keysOfSeeds, newKeys } from './content-keys';

const master = randomBytes(32);

describe('content keys', () => {
  it('makes one 32-byte key per seed in one call; the same seeds under the same master key make the same keys', () => {
    const { keys, seeds } = newKeys(master, 3);
    expect([keys.length, seeds.length]).toEqual([96, 96]);
    expect(keysOfSeeds(master, seeds)).toEqual(keys);
    expect(keysOfSeeds(createSecretKey(master), seeds)).toEqual(keys);
    // Each key is made from its own seed alone: a key set read in part makes the same keys.
    expect(keysOfSeeds(master, seeds.subarray(32, 64))).toEqual(keys.subarray(32, 64));
  });

  it('a key is neither its seed nor made without the master key: another master key makes other keys', () => {
    const { keys, seeds } = newKeys(master, 4);
    for (let slot = 0; slot < 4; slot++) expect(keys.subarray(slot * 32, slot * 32 + 32)).not.toEqual(seeds.subarray(slot * 32, slot * 32 + 32));
    const other = keysOfSeeds(randomBytes(32), seeds);
    for (let slot = 0; slot < 4; slot++) expect(other.subarray(slot * 32, slot * 32 + 32)).not.toEqual(keys.subarray(slot * 32, slot * 32 + 32));
    expect(new Set(Array.from({ length: 4 }, (_, slot) => keys.subarray(slot * 32, slot * 32 + 32).toString('hex'))).size).toBe(4);
  });

  it('a key set answers a key by slot; a zeroed seed is a destroyed key, and a slot past the end is none', () => {
    const { keys, seeds } = newKeys(master, 3);
    seeds.fill(0, 32, 64);
    const set = keySetOfSeeds(master, seeds);
    expect(set.size).toBe(3);
    expect(set.key(0)).toEqual(keys.subarray(0, 32));
    expect(set.key(1)).toBeNull();
    expect(set.key(2)).toEqual(keys.subarray(64, 96));
    expect([set.key(3), set.key(-1), set.key(0.5)]).toEqual([null, null, null]);
  });

  it('refuses seeds that are not whole slots', () => {
    expect(() => keysOfSeeds(master, randomBytes(33))).toThrow(/32-byte slots, got 33 bytes/);
  });
});
