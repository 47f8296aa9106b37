import { VectorLookup } from './vector-store';

/** A `real[]` as `array_send` gives it: dimensions, null flag, element type, length, lower bound, then each float with its length. */
function arraySend(vector: readonly number[]): Buffer {
  const bytes = Buffer.alloc(20 + 8 * vector.length);
  [1, 0, 700, vector.length, 1].forEach((field, i) => bytes.writeInt32BE(field, 4 * i));
  vector.forEach((value, i) => {
    bytes.writeInt32BE(4, 20 + 8 * i);
    bytes.writeFloatBE(value, 24 + 8 * i);
  });
  return bytes;
}

/** A database of vectors by hash that counts the hashes it is asked for. */
function db(stored: Record<string, number[]>) {
  const asked: string[][] = [];
  return {
    asked,
    query: async (_sql: string, [, hashes]: [string, string[]]) => {
      asked.push([...hashes].sort());
      return { rows: hashes.filter((h) => h in stored).map((h) => ({ text_hash: h, vector: arraySend(stored[h]!) })) };
    },
  };
}

describe('VectorLookup', () => {
  it('keeps what it read, and forgets erased texts (or all) so they are read again', async () => {
    const stored = db({ canary: [1, 0], kept: [0, 1] });
    const lookup = new VectorLookup(stored as never);
    await lookup.vectors('m', ['canary', 'kept']);
    await lookup.vectors('m', ['canary', 'kept']);
    expect(stored.asked).toEqual([['canary', 'kept']]);
    lookup.forget(['canary']);
    expect([...(await lookup.vectors('m', ['canary', 'kept'])).keys()].sort()).toEqual(['canary', 'kept']);
    expect(stored.asked).toEqual([['canary', 'kept'], ['canary']]);
    lookup.forget();
    await lookup.vectors('m', ['kept']);
    expect(stored.asked).toEqual([['canary', 'kept'], ['canary'], ['kept']]);
  });
});
