import * as client from '@kurrent/kurrentdb-client';
import type { RecordedEvent } from '@kurrent/kurrentdb-client';
import type { NewRecord } from '../port';
import {
  ANY,
  END,
  NO_STREAM,
  START,
  isPortRecord,
  isStreamNotFound,
  isWrongExpectedVersion,
  matchesRevision,
  tagStreamName,
  toEventData,
  toLinkEvent,
  toPositionNumber,
  toReadPosition,
  toRevision,
  toStoredRecord,
  toStreamState,
  uuidV5,
} from './mapping';

const event: NewRecord = {
  recordId: '0b7e2f9c-3c1a-4d6e-9f10-2a4b6c8d0e12',
  type: 'FactAsserted',
  data: { factId: 'f1', nested: { list: [1, 'two', null] } },
  metadata: { commandId: 'c-1', recordedAt: '2024-05-06T09:00:00.000Z', actor: 'hr-agent', reason: null },
  tags: ['fact:m:f1', 'memory:m', 'fact:m:f1'],
};

/** What the client hands back for a JSON event: data and metadata already JSON.parsed. */
function recorded(
  from: NewRecord,
  overrides: Partial<{ streamId: string; revision: bigint; position: bigint; type: string; metadata: unknown }> = {},
): RecordedEvent {
  const written = toEventData(from);
  const position = overrides.position ?? 4_242n;
  return {
    streamId: overrides.streamId ?? 'memory-m',
    id: written.id,
    isJson: true,
    revision: overrides.revision ?? 7n,
    type: overrides.type ?? written.type,
    created: new Date(0),
    data: JSON.parse(JSON.stringify(written.data)) as never,
    metadata: (overrides.metadata ?? JSON.parse(JSON.stringify(written.metadata))) as never,
    position: { commit: position, prepare: position },
  } as RecordedEvent;
}

describe('KurrentDB mapping', () => {
  describe('expected revision → stream state', () => {
    it("maps 'any', 'no_stream' and revisions to the client's ANY, NO_STREAM and bigint", () => {
      expect(toStreamState('any')).toBe(client.ANY);
      expect(toStreamState('no_stream')).toBe(client.NO_STREAM);
      expect(toStreamState(0)).toBe(0n);
      expect(toStreamState(41)).toBe(41n);
    });

    it('maps revision -1 (the port\'s "empty stream") to NO_STREAM', () => {
      expect(toStreamState(-1)).toBe(client.NO_STREAM);
    });

    it.each([-2, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('rejects %p', (bad) => {
      expect(() => toStreamState(bad)).toThrow(RangeError);
    });

    it("restates the client's constants exactly", () => {
      expect([ANY, NO_STREAM, START, END]).toEqual([client.ANY, client.NO_STREAM, client.START, client.END]);
    });

    it.each([
      ['any', -1, true],
      ['any', 5, true],
      ['no_stream', -1, true],
      ['no_stream', 0, false],
      [-1, -1, true],
      [3, 3, true],
      [3, 4, false],
    ] as const)('expected %p against current %p matches: %p', (expected, current, matches) => {
      expect(matchesRevision(expected, current)).toBe(matches);
    });

    it("reads the server's current stream state back as a revision", () => {
      expect(toRevision(client.NO_STREAM)).toBe(-1);
      expect(toRevision(12n)).toBe(12);
      expect(() => toRevision(2n ** 60n)).toThrow(RangeError);
    });
  });

  describe('positions', () => {
    it('uses the commit position as the port position', () => {
      expect(toPositionNumber({ commit: 1_234n, prepare: 1_234n })).toBe(1_234);
      expect(() => toPositionNumber(undefined)).toThrow(/22\.6/);
      expect(() => toPositionNumber({ commit: 2n ** 60n, prepare: 2n ** 60n })).toThrow(RangeError);
    });

    it('reads from the start for 0, else from the position (commit = prepare for gRPC appends)', () => {
      expect(toReadPosition(0)).toBe(client.START);
      expect(toReadPosition(98_765)).toEqual({ commit: 98_765n, prepare: 98_765n });
      expect(toPositionNumber(toReadPosition(98_765) as client.Position)).toBe(98_765);
      expect(() => toReadPosition(-1)).toThrow(RangeError);
      expect(() => toReadPosition(0.5)).toThrow(RangeError);
    });
  });

  describe('events', () => {
    it('writes a JSON event with the given id, the data, and metadata plus distinct tags', () => {
      expect(toEventData(event)).toEqual({
        id: event.recordId,
        contentType: 'application/json',
        type: 'FactAsserted',
        data: event.data,
        metadata: { metadata: event.metadata, tags: ['fact:m:f1', 'memory:m'] },
      });
      expect(toEventData({ ...event, data: undefined, tags: undefined })).toMatchObject({ data: null, metadata: { tags: [] } });
    });

    it('reads a recorded event back as the stored event', () => {
      expect(toStoredRecord(recorded(event))).toEqual({
        streamId: 'memory-m',
        revision: 7,
        position: 4_242,
        recordId: event.recordId,
        type: 'FactAsserted',
        data: event.data,
        metadata: event.metadata,
        tags: ['fact:m:f1', 'memory:m'],
      });
    });

    it("passes another application's metadata through, untagged", () => {
      const foreign = toStoredRecord(recorded(event, { metadata: { $correlationId: 'x' } }));
      expect(foreign).toMatchObject({ metadata: { $correlationId: 'x' }, tags: [] });
    });

    it('keeps links and system events out of the log proper', () => {
      expect(isPortRecord({ type: 'FactAsserted', streamId: 'memory-m' })).toBe(true);
      expect(isPortRecord({ type: '$>', streamId: 'tag-fact:m:f1' })).toBe(false);
      expect(isPortRecord({ type: '$statistics-collected', streamId: '$stats-127.0.0.1:2113' })).toBe(false);
      expect(isPortRecord({ type: 'Anything', streamId: '$$memory-m' })).toBe(false);
    });
  });

  describe('tags', () => {
    it('names one stream per tag', () => {
      expect(tagStreamName('fact:m:f1')).toBe('tag-fact:m:f1');
    });

    it('links to "<revision>@<stream>" with an id derived from tag, stream and event', () => {
      const link = toLinkEvent('fact:m:f1', { streamId: 'memory-m', revision: 7, recordId: event.recordId });
      expect(link).toMatchObject({ contentType: 'application/octet-stream', type: '$>' });
      expect(new TextDecoder().decode(link.data)).toBe('7@memory-m');
      expect(link.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // Same link → same id (a retried link append is deduplicated); any other link → another id.
      expect(toLinkEvent('fact:m:f1', { streamId: 'memory-m', revision: 7, recordId: event.recordId.toUpperCase() }).id).toBe(link.id);
      expect(toLinkEvent('memory:m', { streamId: 'memory-m', revision: 7, recordId: event.recordId }).id).not.toBe(link.id);
      expect(toLinkEvent('fact:m:f1', { streamId: 'memory-n', revision: 7, recordId: event.recordId }).id).not.toBe(link.id);
    });

    it('derives ids as RFC 4122 version 5 UUIDs', () => {
      // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
      expect(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    });
  });

  describe("the client's errors", () => {
    it('recognises WrongExpectedVersionError and StreamNotFoundError', () => {
      const wrong = new client.WrongExpectedVersionError(undefined, { streamName: 's', expected: 3n, current: 5n });
      expect(isWrongExpectedVersion(wrong)).toBe(true);
      expect(toRevision(wrong.actualState)).toBe(5);
      expect(isStreamNotFound(new client.StreamNotFoundError(undefined, 's'))).toBe(true);
      expect(isWrongExpectedVersion(new client.StreamNotFoundError(undefined, 's'))).toBe(false);
      expect(isStreamNotFound(new Error('stream-not-found'))).toBe(false);
    });
  });
});
