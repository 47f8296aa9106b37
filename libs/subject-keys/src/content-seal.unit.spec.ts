import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { openContent, sealContent } from './content-seal';

const a = randomBytes(32);
const b = randomBytes(32);
const value = { text: 'Alice moved to Lisbon in 2021', tags: ['person', 'place'], n: 3, ok: true, none: null };

/** The sealed text with one byte of its decoded form changed. */
function flipByte(sealed: string, index: number): string {
  const bytes = Buffer.from(sealed, 'base64');
  bytes[index] = bytes[index]! ^ 0x01;
  return bytes.toString('base64');
}

describe('sealContent / openContent', () => {
  it('round trip: the value comes back, and the sealed text shows none of it', () => {
    const sealed = sealContent([a, b], 'mem-1', value);
    expect(openContent([a, b], 'mem-1', sealed)).toEqual(value);
    expect(Buffer.from(sealed, 'base64').toString('latin1')).not.toContain('Lisbon');
    expect(sealed).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // iv (12) + tag (16) + the JSON text, byte for byte
    expect(Buffer.from(sealed, 'base64').length).toBe(28 + Buffer.byteLength(JSON.stringify(value)));
  });

  it('a fresh IV per seal: the same value seals to different texts', () => {
    const first = sealContent([a], 'mem-1', value);
    const second = sealContent([a], 'mem-1', value);
    expect(first).not.toBe(second);
    expect(Buffer.from(first, 'base64').subarray(0, 12)).not.toEqual(Buffer.from(second, 'base64').subarray(0, 12));
  });

  it('a wrong key does not open', () => {
    const sealed = sealContent([a], 'mem-1', value);
    expect(() => openContent([b], 'mem-1', sealed)).toThrow(/sealed content does not open/);
    expect(() => openContent([a, b], 'mem-1', sealed)).toThrow(/sealed content does not open/);
  });

  it('another memory id does not open', () => {
    const sealed = sealContent([a], 'mem-1', value);
    expect(() => openContent([a], 'mem-2', sealed)).toThrow(/sealed content does not open/);
  });

  it('the order of the keys matters', () => {
    const sealed = sealContent([a, b], 'mem-1', value);
    expect(() => openContent([b, a], 'mem-1', sealed)).toThrow(/sealed content does not open/);
    expect(openContent([a, b], 'mem-1', sealed)).toEqual(value);
  });

  it('a flipped byte anywhere (iv, tag, ciphertext) or a cut does not open', () => {
    const sealed = sealContent([a], 'mem-1', value);
    const length = Buffer.from(sealed, 'base64').length;
    for (const index of [0, 11, 12, 27, 28, length - 1]) {
      expect(() => openContent([a], 'mem-1', flipByte(sealed, index))).toThrow(/sealed content does not open/);
    }
    const bytes = Buffer.from(sealed, 'base64');
    expect(() => openContent([a], 'mem-1', bytes.subarray(0, length - 1).toString('base64'))).toThrow(/sealed content does not open/);
    expect(() => openContent([a], 'mem-1', bytes.subarray(0, 20).toString('base64'))).toThrow(/sealed content does not open/);
    expect(() => openContent([a], 'mem-1', '')).toThrow(/sealed content does not open/);
  });

  it('rejects no keys, keys that are not 32 bytes, and values without a JSON form', () => {
    expect(() => sealContent([], 'mem-1', value)).toThrow(/at least one subject key/);
    expect(() => sealContent([randomBytes(16)], 'mem-1', value)).toThrow(/32 bytes, got 16/);
    expect(() => sealContent([a], 'mem-1', undefined)).toThrow(/no JSON form/);
    expect(() => openContent([], 'mem-1', sealContent([a], 'mem-1', value))).toThrow(/at least one subject key/);
  });

  it('property: any JSON value under any key set round-trips, and does not open under another key', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 1, maxLength: 4 }),
        fc.string(),
        (json, rawKeys, memoryId) => {
          const keys = rawKeys.map((key) => Buffer.from(key));
          const sealed = sealContent(keys, memoryId, json);
          // JSON's own round trip is the reference (-0 becomes 0)
          expect(openContent(keys, memoryId, sealed)).toEqual(JSON.parse(JSON.stringify(json)));
          const other = [...keys];
          other[0] = Buffer.from(other[0]!.map((byte) => byte ^ 0x80));
          expect(() => openContent(other, memoryId, sealed)).toThrow(/sealed content does not open/);
        },
      ),
      { numRuns: 300 },
    );
  });
});
