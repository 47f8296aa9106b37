import { type DomainCommand, wireCommand } from './commands';
import { parseCommandsRequest, toDomainCommand } from './domain-command';

const toDomain = (input: unknown, assigned = 'gen-1'): DomainCommand => toDomainCommand(wireCommand.parse(input), () => assigned);

describe('toDomainCommand', () => {
  it('assigns the edge commandId when the client gave none, and keeps the client one otherwise', () => {
    expect(toDomain({ op: 'ARCHIVE_EDGE', factId: 'f1' })).toStrictEqual({ op: 'ARCHIVE_EDGE', factId: 'f1', commandId: 'gen-1' });
    expect(toDomain({ op: 'ARCHIVE_EDGE', factId: 'f1', commandId: 'mine' })).toStrictEqual({ op: 'ARCHIVE_EDGE', factId: 'f1', commandId: 'mine' });
  });

  it('produces exactly the domain UPSERT_EDGE shape: canonical instants, typed literal, null kept, absent absent', () => {
    const out = toDomain({
      op: 'UPSERT_EDGE',
      src: 'alice',
      rel: 'born',
      dst: { literal: '1990-01-01T00:00:00+01:00', datatype: 'instant' },
      validFrom: '2024-05-01T11:30:00+02:00',
      validTo: null,
      recordedAt: '2024-05-01T10:00:00.5Z',
      evidence: [],
    });
    const expected: DomainCommand = {
      op: 'UPSERT_EDGE',
      commandId: 'gen-1',
      src: 'alice',
      rel: 'born',
      dst: { literal: '1989-12-31T23:00:00.000Z', datatype: 'instant' },
      validFrom: '2024-05-01T09:30:00.000Z',
      validTo: null,
      recordedAt: '2024-05-01T10:00:00.500Z',
      evidence: [],
    };
    expect(out).toStrictEqual(expected);
    expect(Object.keys(out)).not.toContain('confidence');
  });

  it('drops undefined fields, including nested ones', () => {
    const out = toDomainCommand(
      { op: 'UPSERT_EVENT', summary: 's', includesFacts: [], timeSpan: { from: '2024-05-01T09:30:00.000Z', to: undefined }, eventId: undefined },
      () => 'c',
    );
    expect(out).toStrictEqual({
      op: 'UPSERT_EVENT',
      summary: 's',
      includesFacts: [],
      timeSpan: { from: '2024-05-01T09:30:00.000Z' },
      commandId: 'c',
    });
  });

  it('produces exactly the domain shape for every op', () => {
    const cases: [unknown, DomainCommand][] = [
      [
        { op: 'UPSERT_ENTITY', name: 'Alice' },
        { op: 'UPSERT_ENTITY', name: 'Alice', commandId: 'g' },
      ],
      [
        { op: 'MERGE_ENTITY', srcId: 'a', dstId: 'b' },
        { op: 'MERGE_ENTITY', srcId: 'a', dstId: 'b', commandId: 'g' },
      ],
      [
        { op: 'DEFINE_RELATION', rel: 'r', cardinality: 'many' },
        { op: 'DEFINE_RELATION', rel: 'r', cardinality: 'many', commandId: 'g' },
      ],
      [
        { op: 'RETRO_CORRECT', factId: 'f', validTo: null, actor: 'a1', reason: 'fix' },
        { op: 'RETRO_CORRECT', factId: 'f', validTo: null, actor: 'a1', reason: 'fix', commandId: 'g' },
      ],
      [
        {
          op: 'UPSERT_EVENT',
          summary: 's',
          includesFacts: ['f'],
          participants: [{ entityId: 'a', role: 'agent' }],
          timeSpan: { from: '2024-05-01T09:30:00Z', to: null },
        },
        {
          op: 'UPSERT_EVENT',
          summary: 's',
          includesFacts: ['f'],
          participants: [{ entityId: 'a', role: 'agent' }],
          timeSpan: { from: '2024-05-01T09:30:00.000Z', to: null },
          commandId: 'g',
        },
      ],
      [
        { op: 'LINK', kind: 'subevent', from: 'e1', to: 'e2' },
        { op: 'LINK', kind: 'subevent', from: 'e1', to: 'e2', commandId: 'g' },
      ],
      [
        { op: 'UPSERT_EPISODE', title: 't', window: { from: '2024-05-01T09:30:00Z' }, events: [] },
        { op: 'UPSERT_EPISODE', title: 't', window: { from: '2024-05-01T09:30:00.000Z' }, events: [], commandId: 'g' },
      ],
      [
        { op: 'RECORD_MENTION', mentionId: 'D1:1', docId: 'd', text: 'hi', occurredAt: '2023-05-08T13:56:00Z' },
        { op: 'RECORD_MENTION', mentionId: 'D1:1', docId: 'd', text: 'hi', occurredAt: '2023-05-08T13:56:00.000Z', commandId: 'g' },
      ],
    ];
    for (const [input, expected] of cases) expect(toDomain(input, 'g')).toStrictEqual(expected);
  });
});

describe('parseCommandsRequest', () => {
  it('converts a valid batch, generating ids only for commands without one', () => {
    let n = 0;
    const r = parseCommandsRequest(
      {
        commands: [
          { op: 'ARCHIVE_EDGE', factId: 'f1' },
          { op: 'ARCHIVE_EDGE', factId: 'f2', commandId: 'given' },
          { op: 'ARCHIVE_EDGE', factId: 'f3' },
        ],
      },
      () => `gen-${++n}`,
    );
    expect(r).toStrictEqual({
      ok: true,
      commands: [
        { op: 'ARCHIVE_EDGE', factId: 'f1', commandId: 'gen-1' },
        { op: 'ARCHIVE_EDGE', factId: 'f2', commandId: 'given' },
        { op: 'ARCHIVE_EDGE', factId: 'f3', commandId: 'gen-2' },
      ],
    });
  });

  it('returns a 400 INVALID_REQUEST body with per-field details, never throwing', () => {
    const r = parseCommandsRequest({ commands: [{ op: 'ARCHIVE_EDGE', factId: 'f', x: 1 }] }, () => 'g');
    expect(r).toStrictEqual({
      ok: false,
      error: {
        error: { code: 'INVALID_REQUEST', message: 'invalid commands request', details: [{ path: 'commands.0.x', message: 'unknown field' }] },
      },
    });
    for (const body of [undefined, null, 'x', 42, [], { commands: 'x' }, { commands: [null] }, { __proto__: { commands: [] } }]) {
      expect(parseCommandsRequest(body, () => 'g').ok).toBe(false);
    }
  });

  it('does not let a __proto__ key through', () => {
    const body = JSON.parse('{"commands":[{"op":"ARCHIVE_EDGE","factId":"f","__proto__":{"admin":true}}]}');
    const r = parseCommandsRequest(body, () => 'g');
    expect(r.ok).toBe(false);
  });
});
