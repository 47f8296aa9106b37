import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { openBox, openLegacyContent, sealBox } from './content-seal';
import { sealLegacyContent } from './testing/legacy-format';

const a = randomBytes(32);
const b = randomBytes(32);
const aad = (memoryId: string) => Buffer.from(memoryId, 'utf8');
const value = { text: 'Alice moved to Lisbon in 2021', tags: ['person', 'place'], n: 3, ok: true, none: null };

/** The sealed text with one byte of its decoded form changed. */
function flipByte(sealed: string, index: number): string {
  const bytes = Buffer.from(sealed, 'base64');
  bytes[index] = bytes[index]! ^ 0x01;
  return bytes.toString('base64');
}

describe('sealBox / openBox', () => {
  it('round trip: the value comes back, and the box shows none of it', () => {
    const box = sealBox(a, aad('mem-1'), value);
    expect(openBox(a, aad('mem-1'), box)).toEqual(value);
    expect(Buffer.from(box, 'base64').toString('latin1')).not.toContain('Lisbon');
    expect(box).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // tag (16) + the JSON text, byte for byte: a key seals one box, so no nonce is stored
    expect(Buffer.from(box, 'base64').length).toBe(16 + Buffer.byteLength(JSON.stringify(value)));
  });

  it('a wrong key or another memory id does not open', () => {
    const box = sealBox(a, aad('mem-1'), value);
    expect(() => openBox(b, aad('mem-1'), box)).toThrow(/sealed content does not open/);
    expect(() => openBox(a, aad('mem-2'), box)).toThrow(/sealed content does not open/);
  });

  it('a flipped byte anywhere (tag, ciphertext) or a cut does not open', () => {
    const box = sealBox(a, aad('mem-1'), value);
    const bytes = Buffer.from(box, 'base64');
    for (const index of [0, 15, 16, bytes.length - 1]) {
      expect(() => openBox(a, aad('mem-1'), flipByte(box, index))).toThrow(/sealed content does not open/);
    }
    expect(() => openBox(a, aad('mem-1'), bytes.subarray(0, bytes.length - 1).toString('base64'))).toThrow(/sealed content does not open/);
    expect(() => openBox(a, aad('mem-1'), bytes.subarray(0, 10).toString('base64'))).toThrow(/sealed content does not open/);
    expect(() => openBox(a, aad('mem-1'), '')).toThrow(/sealed content does not open/);
  });

  it('rejects a key that is not 32 bytes and a value without a JSON form', () => {
    expect(() => sealBox(randomBytes(16), aad('mem-1'), value)).toThrow(/32 bytes, got 16/);
    expect(() => sealBox(a, aad('mem-1'), undefined)).toThrow(/no JSON form/);
  });

  it('property: any JSON value round-trips under any key, and does not open under another', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.string(), (json, rawKey, memoryId) => {
        const key = Buffer.from(rawKey);
        const box = sealBox(key, aad(memoryId), json);
        // JSON's own round trip is the reference (-0 becomes 0)
        expect(openBox(key, aad(memoryId), box)).toEqual(JSON.parse(JSON.stringify(json)));
        const other = Buffer.from(key.map((byte) => byte ^ 0x80));
        expect(() => openBox(other, aad(memoryId), box)).toThrow(/sealed content does not open/);
      }),
      { numRuns: 300 },
    );
  });
});

describe('openLegacyContent (the first stored format)', () => {
  it('opens what the first format sealed under its keys, in their order, in its memory only', () => {
    const sealed = sealLegacyContent([a, b], aad('mem-1'), value);
    expect(openLegacyContent([a, b], aad('mem-1'), sealed)).toEqual(value);
    expect(() => openLegacyContent([b, a], aad('mem-1'), sealed)).toThrow(/sealed content does not open/);
    expect(() => openLegacyContent([a], aad('mem-1'), sealed)).toThrow(/sealed content does not open/);
    expect(() => openLegacyContent([a, b], aad('mem-2'), sealed)).toThrow(/sealed content does not open/);
    expect(() => openLegacyContent([a, b], aad('mem-1'), flipByte(sealed, 30))).toThrow(/sealed content does not open/);
    expect(() => openLegacyContent([], aad('mem-1'), sealed)).toThrow(/at least one subject key/);
  });

  it('opens a box the first format wrote (a fixed vector: key, memory and text as that code made them)', () => {
    // Sealed by the first format's sealContent([key], 'mem-1', {name: 'Alice'}) before key sets existed.
    const key = Buffer.alloc(32, 7);
    expect(openLegacyContent([key], aad('mem-1'), LEGACY_VECTOR)).toEqual({ name: 'Alice' });
  });
});

const LEGACY_VECTOR = '+nWhDBjRD6Q8F4AadbiZUyJAJEyXBHF4+0vdDeL3zZ8AihnkVwPHnn1bZ+U=';
