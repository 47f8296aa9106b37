import {
  accessResponse,
  episodesResponse,
  auditResponse,
  changesResponse,
  commandsResponse,
  entityResponse,
  eventsResponse,
  factsResponse,
  factVersion,
  historyResponse,
  searchResponse,
  type FactVersion,
} from './responses';

const version: FactVersion = {
  factId: 'f1',
  src: 'alice',
  rel: 'works_at',
  dst: 'acme',
  validFrom: '2024-05-01T09:30:00.000Z',
  validTo: null,
  recordedFrom: '2024-05-01T09:30:00.000Z',
  recordedTo: null,
  confidence: 0.9,
  evidence: ['D1:3'],
  source: null,
};
const cut = { validAt: '*', recordedAt: '2024-05-02T00:00:00.000Z' };

describe('response schemas', () => {
  it('accept well-formed responses of every endpoint', () => {
    expect(
      commandsResponse.safeParse({
        position: 7,
        results: [{ commandId: 'c1', status: 'applied', recordedAt: '2024-05-01T09:30:00.000Z', ids: { factId: 'f1', entityIds: ['a', 'b'] } }],
      }).success,
    ).toBe(true);
    expect(
      factsResponse.safeParse({ cut, source: 'replay', facts: [version, { ...version, dst: { literal: 3, datatype: 'number' } }], next: null })
        .success,
    ).toBe(true);
    expect(historyResponse.safeParse({ factId: 'f1', versions: [version] }).success).toBe(true);
    expect(
      auditResponse.safeParse({
        factId: 'f1',
        events: [
          {
            position: 3,
            type: 'FactAsserted',
            recordedAt: '2024-05-01T09:30:00.000Z',
            commandId: 'c1',
            actor: null,
            reason: null,
            data: { factId: 'f1' },
          },
        ],
      }).success,
    ).toBe(true);
    expect(
      entityResponse.safeParse({
        entityId: 'alice',
        name: 'Alice',
        names: ['Alice'],
        aliases: ['Al'],
        types: [],
        merges: [{ entityId: 'alice-2', into: 'alice', recordedAt: '2024-05-01T09:30:00.000Z' }],
        recordedFrom: '2024-05-01T09:30:00.000Z',
      }).success,
    ).toBe(true);
    expect(
      eventsResponse.safeParse({
        cut,
        source: 'replay',
        events: [
          {
            eventId: 'e1',
            summary: 's',
            timeSpan: { from: '2024-05-01T09:30:00.000Z', to: null },
            participants: [{ entityId: 'alice', role: 'agent' }],
            includesFacts: ['f1'],
            recordedFrom: '2024-05-01T09:30:00.000Z',
          },
        ],
        next: 'e1',
      }).success,
    ).toBe(true);
    expect(
      episodesResponse.safeParse({
        cut,
        source: 'projection',
        episodes: [
          {
            episodeId: 'ep1',
            title: 'week one',
            window: { from: '2024-05-01T00:00:00.000Z', to: null },
            events: ['e1'],
            recordedFrom: '2024-05-01T09:30:00.000Z',
          },
        ],
        next: null,
      }).success,
    ).toBe(true);
    expect(accessResponse.safeParse({ accessControl: true, keyId: 'k', access: 'read', memories: ['m'] }).success).toBe(true);
    expect(
      changesResponse.safeParse({
        from: '2024-05-01T00:00:00.000Z',
        to: '2024-05-02T00:00:00.000Z',
        changes: [{ change: 'opened', at: '2024-05-01T09:30:00.000Z', version }],
        next: '2024-05-01T10:00:00.000Z',
      }).success,
    ).toBe(true);
    expect(
      searchResponse.safeParse({
        cut,
        items: [
          {
            kind: 'mention',
            id: 'D1:3',
            text: 'Alice: I joined Acme',
            score: 3.2,
            tokens: 7,
            recordedFrom: '2024-05-01T09:30:00.000Z',
            occurredAt: '2024-05-01T09:30:00.000Z',
            evidence: [],
            salience: 0.4,
          },
          {
            kind: 'fact',
            id: 'f1',
            text: 'alice works_at acme',
            score: 1,
            tokens: 5,
            recordedFrom: '2024-05-01T09:30:00.000Z',
            validFrom: '2024-05-01T09:30:00.000Z',
            validTo: null,
            evidence: [{ kind: 'mention', id: 'D1:3' }],
            salience: 0.5,
            tier: 'cold',
          },
        ],
        tokens: 12,
      }).success,
    ).toBe(true);
  });

  it('reject non-canonical instants, missing nullable fields and extra fields', () => {
    expect(factVersion.safeParse({ ...version, validFrom: '2024-05-01T09:30:00Z' }).success).toBe(false);
    const { validTo: _omit, ...noValidTo } = version;
    expect(factVersion.safeParse(noValidTo).success).toBe(false);
    expect(factVersion.safeParse({ ...version, extra: 1 }).success).toBe(false);
    expect(factVersion.safeParse({ ...version, dst: { literal: 1 } }).success).toBe(false);
    expect(
      commandsResponse.safeParse({ position: 1, results: [{ commandId: 'c', status: 'ok', recordedAt: cut.recordedAt, ids: {} }] }).success,
    ).toBe(false);
    expect(
      factsResponse.safeParse({ cut: { validAt: 'now', recordedAt: cut.recordedAt }, source: 'projection', facts: [], next: null }).success,
    ).toBe(false);
  });
});
