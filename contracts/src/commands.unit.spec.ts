import { COMMAND_OPS, commandsRequest, wireCommand } from './commands';
import { zodIssuesToDetails } from './errors';

const T0 = '2024-05-01T09:30:00Z';
const T1 = '2024-05-02T09:30:00Z';

/** One minimal valid command per op. */
const VALID: Record<string, Record<string, unknown>> = {
  UPSERT_ENTITY: { op: 'UPSERT_ENTITY', name: 'Alice', aliases: ['Al'], types: ['person'] },
  MERGE_ENTITY: { op: 'MERGE_ENTITY', srcId: 'alice-2', dstId: 'alice' },
  DEFINE_RELATION: { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one' },
  UPSERT_EDGE: { op: 'UPSERT_EDGE', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: T0 },
  ARCHIVE_EDGE: { op: 'ARCHIVE_EDGE', factId: 'f1' },
  RETRO_CORRECT: { op: 'RETRO_CORRECT', factId: 'f1', validTo: T1 },
  UPSERT_EVENT: { op: 'UPSERT_EVENT', summary: 'Alice joined Acme', includesFacts: ['f1'], timeSpan: { from: T0 } },
  LINK: { op: 'LINK', kind: 'causal', from: 'e1', to: 'e2' },
  UPSERT_EPISODE: { op: 'UPSERT_EPISODE', title: 'Onboarding', window: { from: T0, to: T1 }, events: ['e1'] },
  RECORD_MENTION: { op: 'RECORD_MENTION', docId: 'conv-26:s1', text: 'I joined Acme today', speaker: 'Alice' },
  ERASE: { op: 'ERASE', subject: { entityId: 'person-1' }, reason: 'the user asked to be forgotten' },
  SET_EXTRACTION_GATE: { op: 'SET_EXTRACTION_GATE', gate: 0.7 },
  SET_TIER_POLICY: { op: 'SET_TIER_POLICY', coldAfter: 'P30D', salienceFloor: 0.3 },
  UPSERT_TOPIC: { op: 'UPSERT_TOPIC', title: 'Adoption', summary: 'Caroline applied to adopt.', window: { from: T0, to: T1 }, members: ['m1', 'e1'] },
};

/** The required string field of each op that holds an id, for id-validation cases. */
const ID_FIELD: Record<string, string> = {
  UPSERT_ENTITY: 'entityId',
  MERGE_ENTITY: 'srcId',
  DEFINE_RELATION: 'rel',
  UPSERT_EDGE: 'src',
  ARCHIVE_EDGE: 'factId',
  RETRO_CORRECT: 'factId',
  UPSERT_EVENT: 'eventId',
  LINK: 'from',
  UPSERT_EPISODE: 'episodeId',
  UPSERT_TOPIC: 'topicId',
  RECORD_MENTION: 'docId',
};

/** A text field of each op that has one. */
const TEXT_FIELD: Record<string, string> = {
  UPSERT_ENTITY: 'name',
  UPSERT_EVENT: 'summary',
  UPSERT_EPISODE: 'title',
  UPSERT_TOPIC: 'summary',
  RECORD_MENTION: 'text',
  ERASE: 'reason',
  LINK: 'qualifier',
  UPSERT_EDGE: 'source',
  ARCHIVE_EDGE: 'reason',
};

function details(input: unknown) {
  const r = commandsRequest.safeParse(input);
  if (r.success) throw new Error(`expected failure, parsed ${JSON.stringify(r.data)}`);
  return zodIssuesToDetails(r.error);
}

function one(command: Record<string, unknown>) {
  return details({ commands: [command] });
}

describe('DSL commands', () => {
  it('covers every op of SPEC §3', () => {
    expect([...COMMAND_OPS].sort()).toEqual(Object.keys(VALID).sort());
  });

  describe.each(Object.keys(VALID))('%s', (op) => {
    const valid = VALID[op]!;

    it('accepts a valid command, with and without envelope fields', () => {
      expect(wireCommand.safeParse(valid).success).toBe(true);
      const withEnvelope = { ...valid, commandId: 'c-1', recordedAt: '2024-05-03T12:00:00+02:00', actor: 'agent-7', reason: 'user said so' };
      const parsed = wireCommand.parse(withEnvelope);
      expect(parsed).toMatchObject({ op, commandId: 'c-1', recordedAt: '2024-05-03T10:00:00.000Z', actor: 'agent-7' });
    });

    it('rejects an unknown field with a per-field detail', () => {
      expect(one({ ...valid, bogus: 1 })).toEqual([{ path: 'commands.0.bogus', message: 'unknown field' }]);
    });

    it('rejects bad ids (empty, too long, control chars, lone surrogate, non-string)', () => {
      // ERASE names its id inside `subject` (see its own tests).
      const field = ID_FIELD[op] ?? 'subject.entityId';
      if (!ID_FIELD[op]) {
        for (const bad of ['', 'x'.repeat(129), 'a\u0000', 7])
          expect(one({ ...valid, subject: { entityId: bad } })[0]?.path).toBe(`commands.0.subject`);
        return;
      }
      for (const bad of ['', 'x'.repeat(129), 'a\u0000', 'a\nb', 'a\u009f', '\ud800', 7]) {
        expect(one({ ...valid, [field]: bad })).toEqual([{ path: `commands.0.${field}`, message: expect.any(String) }]);
      }
    });

    it('rejects bad envelope fields', () => {
      expect(one({ ...valid, commandId: '' })[0]?.path).toBe('commands.0.commandId');
      expect(one({ ...valid, actor: 'a\tb' })[0]?.path).toBe('commands.0.actor');
      expect(one({ ...valid, recordedAt: '2024-05-01T09:30:00' })[0]?.path).toBe('commands.0.recordedAt');
      expect(one({ ...valid, reason: 'a\u0000' })[0]?.path).toBe('commands.0.reason');
    });

    if (TEXT_FIELD[op]) {
      it('rejects bad text (NUL, lone surrogate, over 64 KiB)', () => {
        const field = TEXT_FIELD[op]!;
        for (const bad of ['a\u0000b', 'x\udfff', 'é'.repeat(32769)]) {
          expect(one({ ...valid, [field]: bad })).toEqual([{ path: `commands.0.${field}`, message: expect.any(String) }]);
        }
        expect(wireCommand.safeParse({ ...valid, [field]: 'x'.repeat(65536) }).success).toBe(true);
      });
    }
  });

  it('rejects an unknown or missing op', () => {
    expect(one({ op: 'DELETE_EVERYTHING' })).toEqual([{ path: 'commands.0.op', message: expect.stringContaining('UPSERT_ENTITY') }]);
    expect(one({ name: 'x' })[0]?.path).toBe('commands.0.op');
    expect(one({ op: 'upsert_entity', name: 'x' })[0]?.path).toBe('commands.0.op');
  });

  it('rejects missing required fields', () => {
    expect(one({ op: 'UPSERT_ENTITY' })).toEqual([{ path: 'commands.0.name', message: expect.any(String) }]);
    expect(one({ op: 'UPSERT_EVENT', summary: 's', timeSpan: { from: T0 } })).toEqual([
      { path: 'commands.0.includesFacts', message: expect.any(String) },
    ]);
    expect(one({ op: 'UPSERT_EDGE', src: 'a', rel: 'r' })[0]?.path).toBe('commands.0.dst');
  });

  describe('UPSERT_ENTITY', () => {
    it('rejects blank names and aliases, and more than 1000 aliases', () => {
      expect(one({ op: 'UPSERT_ENTITY', name: '  ' })[0]?.path).toBe('commands.0.name');
      expect(one({ op: 'UPSERT_ENTITY', name: 'A', aliases: ['ok', ''] })[0]?.path).toBe('commands.0.aliases.1');
      expect(one({ op: 'UPSERT_ENTITY', name: 'A', types: Array(1001).fill('t') })[0]?.path).toBe('commands.0.types');
      expect(wireCommand.safeParse({ op: 'UPSERT_ENTITY', name: 'A', types: Array(1000).fill('t') }).success).toBe(true);
    });
  });

  describe('ERASE', () => {
    it('names exactly one subject, and needs a reason', () => {
      for (const subject of [{ entityId: 'a' }, { factId: 'f' }, { mentionId: 'm' }, { docId: 'd' }]) {
        expect(wireCommand.safeParse({ op: 'ERASE', subject, reason: 'asked' }).success).toBe(true);
      }
      const subjectError = [{ path: 'commands.0.subject', message: 'must name exactly one of entityId, factId, mentionId, docId' }];
      expect(one({ op: 'ERASE', subject: { entityId: 'a', factId: 'f' }, reason: 'r' })).toEqual(subjectError);
      expect(one({ op: 'ERASE', subject: {}, reason: 'r' })).toEqual(subjectError);
      expect(one({ op: 'ERASE', subject: { eventId: 'e' }, reason: 'r' })).toEqual(subjectError);
      expect(one({ op: 'ERASE', subject: { entityId: 'a' } })[0]?.path).toBe('commands.0.reason');
    });
  });

  describe('MERGE_ENTITY', () => {
    it('rejects merging an entity into itself', () => {
      expect(one({ op: 'MERGE_ENTITY', srcId: 'a', dstId: 'a' })).toEqual([{ path: 'commands.0.dstId', message: 'must differ from srcId' }]);
    });
  });

  describe('SET_EXTRACTION_GATE', () => {
    it('takes a gate in [0, 1], or null for the default', () => {
      expect(wireCommand.parse({ op: 'SET_EXTRACTION_GATE', gate: null })).toMatchObject({ gate: null });
      expect(wireCommand.parse({ op: 'SET_EXTRACTION_GATE', gate: 0 })).toMatchObject({ gate: 0 });
      expect(one({ op: 'SET_EXTRACTION_GATE', gate: 1.5 })[0]?.path).toBe('commands.0.gate');
      expect(one({ op: 'SET_EXTRACTION_GATE', gate: '0.5' })[0]?.path).toBe('commands.0.gate');
      expect(one({ op: 'SET_EXTRACTION_GATE' })[0]?.path).toBe('commands.0.gate');
    });
  });

  describe('DEFINE_RELATION', () => {
    it('rejects unknown cardinalities', () => {
      expect(one({ op: 'DEFINE_RELATION', rel: 'r', cardinality: 'few' })[0]?.path).toBe('commands.0.cardinality');
    });

    it('accepts a retention of weeks, days, hours, minutes or seconds, and null to remove one', () => {
      for (const retention of ['P30D', 'P2W', 'PT12H', 'PT90M', 'PT45S', 'P1DT6H', null]) {
        expect(wireCommand.parse({ op: 'DEFINE_RELATION', rel: 'r', cardinality: 'many', retention })).toMatchObject({ retention });
      }
    });

    it.each([
      ['P1Y', /weeks, days, hours/],
      ['P6M', /for years or months, give days/],
      ['P', /ISO-8601 duration/],
      ['PT', /ISO-8601 duration/],
      ['P1DT', /ISO-8601 duration/],
      ['PT1.5S', /whole seconds/],
      ['30 days', /ISO-8601 duration/],
      ['P1W2D', /ISO-8601 duration/],
      ['P12345678D', /ISO-8601 duration/],
      ['P0D', /longer than zero/],
      ['PT0H0M', /longer than zero/],
    ])('rejects the retention %s with a clear message', (retention, message) => {
      const [issue] = one({ op: 'DEFINE_RELATION', rel: 'r', cardinality: 'many', retention });
      expect(issue?.path).toBe('commands.0.retention');
      expect(issue?.message).toMatch(message);
    });
  });

  describe('UPSERT_EDGE', () => {
    const edge = { op: 'UPSERT_EDGE', src: 'alice', rel: 'age' };
    const dstOf = (dst: unknown) => (wireCommand.parse({ ...edge, dst }) as { dst: unknown }).dst;

    it('infers literal datatypes from the JSON type', () => {
      expect(dstOf({ literal: 'blue' })).toEqual({ literal: 'blue', datatype: 'string' });
      expect(dstOf({ literal: 42.5 })).toEqual({ literal: 42.5, datatype: 'number' });
      expect(dstOf({ literal: false })).toEqual({ literal: false, datatype: 'boolean' });
      expect(dstOf({ literal: T0 })).toEqual({ literal: T0, datatype: 'string' });
    });

    it('keeps matching explicit datatypes and canonicalises instant literals', () => {
      expect(dstOf({ literal: 'x', datatype: 'string' })).toEqual({ literal: 'x', datatype: 'string' });
      expect(dstOf({ literal: 0, datatype: 'number' })).toEqual({ literal: 0, datatype: 'number' });
      expect(dstOf({ literal: true, datatype: 'boolean' })).toEqual({ literal: true, datatype: 'boolean' });
      expect(dstOf({ literal: '2024-05-01T11:30:00+02:00', datatype: 'instant' })).toEqual({
        literal: '2024-05-01T09:30:00.000Z',
        datatype: 'instant',
      });
      expect(dstOf('acme')).toBe('acme');
    });

    it.each([
      [{ literal: 1, datatype: 'string' }],
      [{ literal: '1', datatype: 'number' }],
      [{ literal: 'true', datatype: 'boolean' }],
      [{ literal: 1714555800000, datatype: 'instant' }],
      [{ literal: '2024-05-01', datatype: 'instant' }],
      [{ literal: '2024-05-01T09:30:00.0001Z', datatype: 'instant' }],
      [{ literal: 'a\u0000', datatype: 'string' }],
      [{ literal: 'a\ud800' }],
    ])('rejects literal/datatype mismatch %j at dst.literal', (dst) => {
      expect(one({ ...edge, dst })).toEqual([{ path: 'commands.0.dst.literal', message: expect.any(String) }]);
    });

    it('rejects malformed dst values', () => {
      expect(one({ ...edge, dst: { literal: 1, datatype: 'date' } })[0]?.path).toBe('commands.0.dst.datatype');
      expect(one({ ...edge, dst: { literal: 1, extra: 2 } })).toEqual([{ path: 'commands.0.dst.extra', message: 'unknown field' }]);
      expect(one({ ...edge, dst: { literal: null } })[0]?.path).toBe('commands.0.dst.literal');
      expect(one({ ...edge, dst: { literal: [1] } })[0]?.path).toBe('commands.0.dst.literal');
      expect(one({ ...edge, dst: {} })[0]?.path).toBe('commands.0.dst.literal');
      expect(one({ ...edge, dst: 5 })).toEqual([{ path: 'commands.0.dst', message: expect.stringContaining('entity id') }]);
      expect(one({ ...edge, dst: null })[0]?.path).toBe('commands.0.dst');
      expect(one({ ...edge, dst: 'a\u0001' })).toEqual([{ path: 'commands.0.dst', message: expect.stringContaining('control') }]);
    });

    it('accepts validTo null (open), confidence null, source null, evidence ids', () => {
      const parsed = wireCommand.parse({ ...edge, dst: 'x', validFrom: T0, validTo: null, confidence: null, source: null, evidence: ['m1'] });
      expect(parsed).toEqual({
        ...edge,
        dst: 'x',
        validFrom: '2024-05-01T09:30:00.000Z',
        validTo: null,
        confidence: null,
        source: null,
        evidence: ['m1'],
      });
    });

    it('rejects validTo <= validFrom, comparing canonical instants', () => {
      expect(one({ ...edge, dst: 'x', validFrom: T0, validTo: T0 })).toEqual([
        { path: 'commands.0.validTo', message: 'must be later than validFrom' },
      ]);
      expect(one({ ...edge, dst: 'x', validFrom: T1, validTo: T0 })).toEqual([
        { path: 'commands.0.validTo', message: 'must be later than validFrom' },
      ]);
      // 10:30+02:00 is 08:30Z, before 09:30Z, although it sorts after it as a raw string
      expect(one({ ...edge, dst: 'x', validFrom: T0, validTo: '2024-05-01T10:30:00+02:00' })[0]?.path).toBe('commands.0.validTo');
      expect(wireCommand.safeParse({ ...edge, dst: 'x', validFrom: T0, validTo: '2024-05-01T09:30:00.001Z' }).success).toBe(true);
      expect(wireCommand.safeParse({ ...edge, dst: 'x', validTo: T0 }).success).toBe(true);
    });

    it('rejects confidence outside 0..1 and bad evidence', () => {
      for (const c of [-0.01, 1.01, '0.5']) expect(one({ ...edge, dst: 'x', confidence: c })[0]?.path).toBe('commands.0.confidence');
      expect(one({ ...edge, dst: 'x', evidence: ['ok', ''] })[0]?.path).toBe('commands.0.evidence.1');
      expect(one({ ...edge, dst: 'x', evidence: Array(1001).fill('m') })[0]?.path).toBe('commands.0.evidence');
      expect(one({ ...edge, dst: 'x', evidence: 'm1' })[0]?.path).toBe('commands.0.evidence');
    });
  });

  describe('RETRO_CORRECT', () => {
    it('requires at least one bound; validTo null counts', () => {
      expect(one({ op: 'RETRO_CORRECT', factId: 'f' })).toEqual([
        { path: 'commands.0.validFrom', message: 'at least one of validFrom, validTo is required' },
      ]);
      expect(wireCommand.parse({ op: 'RETRO_CORRECT', factId: 'f', validTo: null })).toEqual({ op: 'RETRO_CORRECT', factId: 'f', validTo: null });
      expect(wireCommand.safeParse({ op: 'RETRO_CORRECT', factId: 'f', validFrom: T0 }).success).toBe(true);
    });
    it('rejects validTo <= validFrom', () => {
      expect(one({ op: 'RETRO_CORRECT', factId: 'f', validFrom: T1, validTo: T0 })).toEqual([
        { path: 'commands.0.validTo', message: 'must be later than validFrom' },
      ]);
    });
  });

  describe('UPSERT_EVENT / UPSERT_EPISODE intervals', () => {
    const event = VALID.UPSERT_EVENT!;
    it('accepts open and closed time spans', () => {
      for (const timeSpan of [{ from: T0 }, { from: T0, to: null }, { from: T0, to: T1 }]) {
        expect(wireCommand.safeParse({ ...event, timeSpan }).success).toBe(true);
      }
    });
    it('rejects to <= from, missing from, unknown interval fields', () => {
      expect(one({ ...event, timeSpan: { from: T1, to: T0 } })).toEqual([{ path: 'commands.0.timeSpan.to', message: 'must be later than from' }]);
      expect(one({ ...event, timeSpan: { to: T0 } })[0]?.path).toBe('commands.0.timeSpan.from');
      expect(one({ ...event, timeSpan: { from: T0, until: T1 } })).toEqual([{ path: 'commands.0.timeSpan.until', message: 'unknown field' }]);
      expect(one({ ...VALID.UPSERT_EPISODE!, window: { from: T0, to: T0 } })[0]?.path).toBe('commands.0.window.to');
    });
    it('validates participants and accepts empty includesFacts', () => {
      expect(wireCommand.safeParse({ ...event, includesFacts: [], participants: [{ entityId: 'a', role: 'agent' }] }).success).toBe(true);
      expect(one({ ...event, participants: [{ entityId: 'a' }] })[0]?.path).toBe('commands.0.participants.0.role');
      expect(one({ ...event, participants: [{ entityId: 'a', role: 'r', x: 1 }] })[0]?.path).toBe('commands.0.participants.0.x');
      expect(one({ ...event, includesFacts: ['f', 'b\u0000'] })[0]?.path).toBe('commands.0.includesFacts.1');
    });
  });

  describe('LINK', () => {
    it('accepts every kind and rejects others', () => {
      for (const kind of ['role', 'temporal', 'causal', 'coref', 'subevent', 'related_to']) {
        expect(wireCommand.safeParse({ op: 'LINK', kind, from: 'a', to: 'b', qualifier: 'before' }).success).toBe(true);
      }
      expect(one({ op: 'LINK', kind: 'causes', from: 'a', to: 'b' })[0]?.path).toBe('commands.0.kind');
    });
  });

  describe('RECORD_MENTION', () => {
    it('canonicalises occurredAt and rejects a bad one', () => {
      const m = wireCommand.parse({ ...VALID.RECORD_MENTION!, occurredAt: '2023-05-08T13:56:00+00:00' });
      expect(m).toMatchObject({ occurredAt: '2023-05-08T13:56:00.000Z' });
      expect(one({ ...VALID.RECORD_MENTION!, occurredAt: '8 May 2023' })[0]?.path).toBe('commands.0.occurredAt');
    });
  });
});

describe('commandsRequest', () => {
  const cmd = VALID.ARCHIVE_EDGE!;
  it('accepts 1 and 1000 commands', () => {
    expect(commandsRequest.safeParse({ commands: [cmd] }).success).toBe(true);
    expect(commandsRequest.safeParse({ commands: Array(1000).fill(cmd) }).success).toBe(true);
  });
  it('rejects 0 and 1001 commands, unknown top-level fields, non-objects', () => {
    expect(details({ commands: [] })).toEqual([{ path: 'commands', message: expect.any(String) }]);
    expect(details({ commands: Array(1001).fill(cmd) })).toEqual([{ path: 'commands', message: expect.any(String) }]);
    expect(details({ commands: [cmd], dryRun: true })).toEqual([{ path: 'dryRun', message: 'unknown field' }]);
    expect(details([cmd])).toEqual([{ path: '', message: expect.any(String) }]);
    expect(details(null)[0]?.path).toBe('');
    expect(details({})[0]?.path).toBe('commands');
  });
  it('reports every bad command of a batch with its index', () => {
    const d = details({ commands: [cmd, { ...cmd, factId: '' }, cmd, { op: 'LINK' }] });
    expect(d.map((x) => x.path)).toEqual(['commands.1.factId', 'commands.3.kind', 'commands.3.from', 'commands.3.to']);
  });
});
