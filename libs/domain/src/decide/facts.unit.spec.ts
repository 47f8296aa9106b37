import { factHistory, factsAt } from '../cut';
import { deriveFactId } from '../ids';
import { MEMORY, Scenario, after, archive, at, bare, before, edge, entity, given, merge, relation, retro } from '../testing/given';
import type { FactView } from '../views';

const people = [
  entity('alice', 'Alice', { recordedAt: at('MON') }),
  entity('acme', 'Acme', { recordedAt: at('MON') }),
  entity('beta', 'Beta', { recordedAt: at('MON') }),
];
const ids = (facts: FactView[]) => facts.map((f) => f.factId);
const dsts = (facts: FactView[]) => facts.map((f) => f.dst);

describe('UPSERT_EDGE', () => {
  it('asserts a new fact with the derived factId and the defaults (validFrom = recordedAt, open, no confidence/evidence/source)', () => {
    const s = given(people);
    const { records, results } = s.when(edge('alice', 'works_at', 'acme', { recordedAt: at('TUE', '10:00') }));
    const factId = deriveFactId(MEMORY, 'alice', 'works_at', 'acme');
    expect(factId).toMatch(/^fact_[0-9a-f]{24}$/);
    expect(bare(records)).toEqual([
      {
        type: 'FactAsserted',
        data: {
          factId,
          src: 'alice',
          rel: 'works_at',
          dst: 'acme',
          validFrom: at('TUE', '10:00'),
          validTo: null,
          confidence: null,
          evidence: [],
          source: null,
        },
      },
    ]);
    expect(results).toEqual([{ commandId: 'cmd-4', status: 'applied', recordedAt: at('TUE', '10:00'), ids: { factId } }]);
    expect(factHistory(s.state, factId)).toEqual([
      {
        factId,
        src: 'alice',
        rel: 'works_at',
        dst: 'acme',
        validFrom: at('TUE', '10:00'),
        validTo: null,
        recordedFrom: at('TUE', '10:00'),
        recordedTo: null,
        confidence: null,
        evidence: [],
        source: null,
      },
    ]);
  });

  it('the default factId depends on memory, src, rel and dst', () => {
    const base = deriveFactId(MEMORY, 'alice', 'works_at', 'acme');
    expect(deriveFactId(MEMORY, 'alice', 'works_at', 'acme')).toBe(base);
    expect(deriveFactId('other', 'alice', 'works_at', 'acme')).not.toBe(base);
    expect(deriveFactId(MEMORY, 'bob', 'works_at', 'acme')).not.toBe(base);
    expect(deriveFactId(MEMORY, 'alice', 'visits', 'acme')).not.toBe(base);
    expect(deriveFactId(MEMORY, 'alice', 'works_at', 'beta')).not.toBe(base);
    // a literal differs from the entity id with the same text, and by datatype
    expect(deriveFactId(MEMORY, 'alice', 'works_at', { literal: 'acme', datatype: 'string' })).not.toBe(base);
    expect(deriveFactId(MEMORY, 'alice', 'age', { literal: 30, datatype: 'number' })).not.toBe(
      deriveFactId(MEMORY, 'alice', 'age', { literal: '30', datatype: 'string' }),
    );
  });

  it('keeps every given field', () => {
    const s = given(people);
    const { records } = s.when(
      edge('alice', 'works_at', 'acme', {
        factId: 'f1',
        validFrom: at('MON'),
        validTo: at('FRI'),
        confidence: 0.7,
        evidence: ['m1', 'm2'],
        source: 'hr-system',
        recordedAt: at('TUE'),
        actor: 'agent-7',
        reason: 'onboarding',
      }),
    );
    expect(bare(records)).toEqual([
      {
        type: 'FactAsserted',
        data: {
          factId: 'f1',
          src: 'alice',
          rel: 'works_at',
          dst: 'acme',
          validFrom: at('MON'),
          validTo: at('FRI'),
          confidence: 0.7,
          evidence: ['m1', 'm2'],
          source: 'hr-system',
        },
      },
    ]);
    expect(records[0]!.meta).toEqual({ commandId: 'cmd-4', recordedAt: at('TUE'), actor: 'agent-7', reason: 'onboarding' });
  });

  it('rejects an unknown src with 404 UNKNOWN_ENTITY', () => {
    const s = given(people);
    const error = s.rejects(edge('ghost', 'works_at', 'acme'));
    expect(error).toMatchObject({ code: 'UNKNOWN_ENTITY' });
    expect(error.details).toMatchObject({ field: 'src', entityId: 'ghost' });
  });

  it('rejects an unknown entity dst with 404 UNKNOWN_ENTITY', () => {
    const s = given(people);
    const error = s.rejects(edge('alice', 'works_at', 'ghost'));
    expect(error).toMatchObject({ code: 'UNKNOWN_ENTITY' });
    expect(error.details).toMatchObject({ field: 'dst', entityId: 'ghost' });
  });

  it('accepts a literal dst without an entity, and a dst filter matches its string form', () => {
    const s = given(people);
    const { records } = s.when(edge('alice', 'age', { literal: 30, datatype: 'number' }, { validFrom: at('MON'), recordedAt: at('TUE') }));
    const factId = deriveFactId(MEMORY, 'alice', 'age', { literal: 30, datatype: 'number' });
    expect(bare(records)).toEqual([
      {
        type: 'FactAsserted',
        data: {
          factId,
          src: 'alice',
          rel: 'age',
          dst: { literal: 30, datatype: 'number' },
          validFrom: at('MON'),
          validTo: null,
          confidence: null,
          evidence: [],
          source: null,
        },
      },
    ]);
    expect(ids(factsAt(s.state, at('WED'), { dst: '30' }))).toEqual([factId]);
    expect(factsAt(s.state, at('WED'), { dst: '31' })).toEqual([]);
  });

  describe('on a fact with an open version', () => {
    const seed = [
      ...people,
      edge('alice', 'works_at', 'acme', {
        factId: 'f1',
        validFrom: at('MON'),
        validTo: at('SAT'),
        confidence: 0.5,
        evidence: ['m1'],
        source: 's1',
        recordedAt: at('TUE'),
      }),
    ];

    it('omitted fields keep the values of the open version', () => {
      const s = given(seed);
      const { records } = s.when(edge('alice', 'works_at', 'acme', { factId: 'f1', confidence: 0.9, recordedAt: at('WED') }));
      expect(bare(records)).toEqual([
        {
          type: 'FactAsserted',
          data: {
            factId: 'f1',
            src: 'alice',
            rel: 'works_at',
            dst: 'acme',
            validFrom: at('MON'),
            validTo: at('SAT'),
            confidence: 0.9,
            evidence: ['m1'],
            source: 's1',
          },
        },
      ]);
    });

    it('the default factId finds the fact again', () => {
      const s = given([...people, edge('alice', 'works_at', 'acme', { validFrom: at('MON'), recordedAt: at('TUE') })]);
      const { records, results } = s.when(edge('alice', 'works_at', 'acme', { source: 'x', recordedAt: at('WED') }));
      expect(results[0]!.ids).toEqual({ factId: deriveFactId(MEMORY, 'alice', 'works_at', 'acme') });
      expect(bare(records)[0]).toMatchObject({ data: { validFrom: at('MON'), source: 'x' } });
      expect(s.state.facts.size).toBe(1);
    });

    it('explicit nulls clear validTo, confidence and source', () => {
      const s = given(seed);
      const { records } = s.when(
        edge('alice', 'works_at', 'acme', { factId: 'f1', validTo: null, confidence: null, source: null, evidence: [], recordedAt: at('WED') }),
      );
      expect(bare(records)[0]).toMatchObject({ data: { validFrom: at('MON'), validTo: null, confidence: null, evidence: [], source: null } });
    });

    it('is unchanged (nothing written) when validity, confidence, evidence and source are all unchanged', () => {
      const s = given(seed);
      const { records, results } = s.when(
        edge('alice', 'works_at', 'acme', {
          factId: 'f1',
          validFrom: at('MON'),
          validTo: at('SAT'),
          confidence: 0.5,
          evidence: ['m1'],
          source: 's1',
          recordedAt: at('WED'),
        }),
      );
      expect(records.map((e) => e.type)).toEqual(['CommandUnchanged']); // no version: the log only remembers the command
      expect(results[0]).toEqual({ commandId: 'cmd-5', status: 'unchanged', recordedAt: at('WED'), ids: { factId: 'f1' } });
      expect(s.state.facts.get('f1')!.versions).toHaveLength(1);
      // with every field omitted it is unchanged too
      expect(s.when(edge('alice', 'works_at', 'acme', { factId: 'f1', recordedAt: at('WED') })).results[0]!.status).toBe('unchanged');
    });

    it.each([
      ['validFrom', { validFrom: at('TUE') }],
      ['validTo', { validTo: at('FRI') }],
      ['confidence', { confidence: 0.6 }],
      ['evidence', { evidence: ['m1', 'm2'] }],
      ['evidence (cleared)', { evidence: [] as string[] }],
      ['source', { source: 's2' }],
    ])('a change of %s opens a new version and closes the old one at recordedAt', (_, change) => {
      const s = given(seed);
      s.when(edge('alice', 'works_at', 'acme', { factId: 'f1', ...change, recordedAt: at('WED', '12:00') }));
      const history = factHistory(s.state, 'f1')!;
      expect(history.map((v) => [v.recordedFrom, v.recordedTo])).toEqual([
        [at('TUE'), at('WED', '12:00')],
        [at('WED', '12:00'), null],
      ]);
      expect(history[1]).toMatchObject(change);
      expect(history[0]).toMatchObject({ validFrom: at('MON'), validTo: at('SAT'), confidence: 0.5, evidence: ['m1'], source: 's1' });
    });

    it('rejects validTo before the kept validFrom with 409 INVALID_INTERVAL', () => {
      const s = given(seed);
      const error = s.rejects(edge('alice', 'works_at', 'acme', { factId: 'f1', validTo: at('MON'), recordedAt: at('WED') }));
      expect(error).toMatchObject({ code: 'INVALID_INTERVAL' });
    });

    it('rejects validFrom at or after the kept validTo with 409 INVALID_INTERVAL', () => {
      const s = given(seed);
      expect(s.rejects(edge('alice', 'works_at', 'acme', { factId: 'f1', validFrom: at('SAT'), recordedAt: at('WED') }))).toMatchObject({
        code: 'INVALID_INTERVAL',
      });
      expect(s.rejects(edge('alice', 'works_at', 'acme', { factId: 'f1', validFrom: at('SUN'), recordedAt: at('WED') }))).toMatchObject({
        code: 'INVALID_INTERVAL',
      });
    });
  });

  it.each([
    ['validTo before validFrom', at('TUE'), at('MON')],
    ['validTo equal to validFrom', at('TUE'), at('TUE')],
  ])('rejects a command giving both bounds with %s: 400 INVALID_REQUEST', (_, validFrom, validTo) => {
    const s = given(people);
    expect(s.rejects(edge('alice', 'works_at', 'acme', { validFrom, validTo, recordedAt: at('WED') }))).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('a new fact given only a validTo at or before recordedAt (the default validFrom) is 400 INVALID_REQUEST and writes nothing', () => {
    // SPEC §3.1: 409 only when a bound came from the open version; a new fact has none.
    const s = given(people);
    expect(s.rejects(edge('alice', 'works_at', 'acme', { validTo: at('TUE'), recordedAt: at('WED') }))).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'validTo' },
    });
    expect(s.rejects(edge('alice', 'works_at', 'acme', { validTo: at('WED'), recordedAt: at('WED') }))).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(s.when(edge('alice', 'works_at', 'acme', { validTo: after(at('WED')), recordedAt: at('WED') })).results[0]!.status).toBe('applied');
  });

  it('accepts validTo one ms after validFrom', () => {
    const s = given(people);
    s.when(edge('alice', 'works_at', 'acme', { factId: 'f1', validFrom: at('TUE'), validTo: after(at('TUE')), recordedAt: at('WED') }));
    expect(ids(factsAt(s.state, at('TUE')))).toEqual(['f1']);
    expect(factsAt(s.state, after(at('TUE')))).toEqual([]);
  });

  describe('FACT_CONFLICT: src, rel and dst of a fact never change', () => {
    const seed = [
      ...people,
      entity('bob', 'Bob', { recordedAt: at('MON') }),
      edge('alice', 'works_at', 'acme', { factId: 'f1', recordedAt: at('TUE') }),
    ];
    it.each([
      ['src', edge('bob', 'works_at', 'acme', { factId: 'f1', recordedAt: at('WED') })],
      ['rel', edge('alice', 'visits', 'acme', { factId: 'f1', recordedAt: at('WED') })],
      ['dst', edge('alice', 'works_at', 'beta', { factId: 'f1', recordedAt: at('WED') })],
      ['dst (literal)', edge('alice', 'works_at', { literal: 'acme', datatype: 'string' }, { factId: 'f1', recordedAt: at('WED') })],
    ])('a different %s is 409 FACT_CONFLICT', (_, command) => {
      const s = given(seed);
      const error = s.rejects(command);
      expect(error).toMatchObject({ code: 'FACT_CONFLICT' });
      expect(error.details).toMatchObject({ factId: 'f1' });
    });

    it('naming src or dst through a merged alias is the same triple', () => {
      const s = given([...seed, entity('alice2', 'Ally', { recordedAt: at('TUE') }), merge('alice2', 'alice', at('TUE'))]);
      const { records } = s.when(edge('alice2', 'works_at', 'acme', { factId: 'f1', confidence: 1, recordedAt: at('WED') }));
      expect(bare(records)).toEqual([
        expect.objectContaining({ type: 'FactAsserted', data: expect.objectContaining({ factId: 'f1', src: 'alice', confidence: 1 }) }),
      ]);
    });

    it('without a factId, a triple asserted before a merge is found again through the merged ids (no twin fact)', () => {
      const before = given([
        ...people,
        entity('ally', 'Ally', { recordedAt: at('MON') }),
        edge('ally', 'works_at', 'acme', { recordedAt: at('MON') }),
      ]);
      const earlier = deriveFactId(MEMORY, 'ally', 'works_at', 'acme');
      before.when(merge('ally', 'alice', at('TUE')));
      for (const src of ['alice', 'ally']) {
        const { records, results } = before.when(edge(src, 'works_at', 'acme', { recordedAt: at('WED') }));
        expect(records.map((e) => e.type)).toEqual(['CommandUnchanged']); // no version: the log only remembers the command
        expect(results[0]).toMatchObject({ status: 'unchanged', ids: { factId: earlier } });
      }
      const { records } = before.when(edge('alice', 'works_at', 'acme', { confidence: 0.9, recordedAt: at('WED') }));
      expect(bare(records)).toEqual([
        expect.objectContaining({ type: 'FactAsserted', data: expect.objectContaining({ factId: earlier, src: 'ally', confidence: 0.9 }) }),
      ]);
      // A triple no fact has yet gets the id derived from the canonical ids.
      const { results } = before.when(edge('ally', 'works_at', 'beta', { recordedAt: at('WED') }));
      expect(results[0]!.ids).toEqual({ factId: deriveFactId(MEMORY, 'alice', 'works_at', 'beta') });
    });

    it('without a factId, of two such facts the one whose dst joined the class first is found (merge order, not assertion order)', () => {
      const twins = given([
        ...people,
        ...['ally', 'acme2', 'acme3'].map((id) => entity(id, id, { recordedAt: at('MON') })),
        edge('ally', 'works_at', 'acme3', { recordedAt: at('MON') }),
        edge('ally', 'works_at', 'acme2', { recordedAt: at('MON') }),
        merge('ally', 'alice', at('TUE')),
        merge('acme2', 'acme', at('TUE')),
        merge('acme3', 'acme', at('TUE')),
      ]);
      const { results } = twins.when(edge('alice', 'works_at', 'acme', { recordedAt: at('WED') }));
      expect(results[0]).toMatchObject({ status: 'unchanged', ids: { factId: deriveFactId(MEMORY, 'ally', 'works_at', 'acme2') } });
    });

    it('an archived fact keeps its triple too', () => {
      const s = given([...seed, archive('f1', at('TUE'))]);
      expect(s.rejects(edge('bob', 'works_at', 'acme', { factId: 'f1', recordedAt: at('WED') }))).toMatchObject({ code: 'FACT_CONFLICT' });
    });
  });

  it('re-asserting an archived fact opens a new version whose validFrom defaults to recordedAt, not the old one', () => {
    const s = given([
      ...people,
      edge('alice', 'works_at', 'acme', { factId: 'f1', validFrom: at('MON'), confidence: 0.4, recordedAt: at('MON') }),
      archive('f1', at('TUE')),
    ]);
    const { records } = s.when(edge('alice', 'works_at', 'acme', { factId: 'f1', recordedAt: at('WED') }));
    expect(bare(records)[0]).toMatchObject({ data: { validFrom: at('WED'), validTo: null, confidence: null } });
    expect(factHistory(s.state, 'f1')!.map((v) => [v.recordedFrom, v.recordedTo])).toEqual([
      [at('MON'), at('TUE')],
      [at('WED'), null],
    ]);
  });

  describe('bitemporal boundaries of a version (XTDB style)', () => {
    // valid [TUE 00:00, FRI 00:00), recorded [MON 12:00, WED 12:00)
    const s = given([
      ...people,
      edge('alice', 'works_at', 'acme', { factId: 'f1', validFrom: at('TUE'), validTo: at('FRI'), recordedAt: at('MON', '12:00') }),
      archive('f1', at('WED', '12:00')),
    ]);
    const inCut = (validAt: string, recordedAt: string) => ids(factsAt(s.at(recordedAt), validAt)).includes('f1');

    it.each([
      ['one ms before recordedFrom', before(at('MON', '12:00')), false],
      ['exactly at recordedFrom', at('MON', '12:00'), true],
      ['one ms after recordedFrom', after(at('MON', '12:00')), true],
      ['one ms before recordedTo', before(at('WED', '12:00')), true],
      ['exactly at recordedTo', at('WED', '12:00'), false],
      ['one ms after recordedTo', after(at('WED', '12:00')), false],
    ])('record time %s: in cut = %s', (_, r, expected) => {
      expect(inCut(at('WED'), r)).toBe(expected);
    });

    it.each([
      ['one ms before validFrom', before(at('TUE')), false],
      ['exactly at validFrom', at('TUE'), true],
      ['one ms after validFrom', after(at('TUE')), true],
      ['one ms before validTo', before(at('FRI')), true],
      ['exactly at validTo', at('FRI'), false],
      ['one ms after validTo', after(at('FRI')), false],
    ])('valid time %s: in cut = %s', (_, validAt, expected) => {
      expect(inCut(validAt, at('TUE'))).toBe(expected);
    });

    it('validAt "*" ignores validity but not record time', () => {
      expect(ids(factsAt(s.at(at('TUE')), '*'))).toEqual(['f1']);
      expect(ids(factsAt(s.at(at('WED', '12:00')), '*'))).toEqual([]);
    });
  });

  describe('supersession of one-relations: the Acme-then-Beta example', () => {
    // Alice works at Acme from Monday; on Thursday we learn she moved to Beta on Wednesday.
    const build = (): Scenario =>
      given([
        ...people,
        relation('works_at', 'one', at('MON')),
        edge('alice', 'works_at', 'acme', { factId: 'f-acme', validFrom: at('MON'), recordedAt: at('MON', '09:00') }),
      ]);

    it('the Beta assertion retro-corrects the Acme fact to end on Wednesday, in the same write', () => {
      const s = build();
      const { records, results } = s.when(
        edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU', '09:00') }),
      );
      expect(bare(records)).toEqual([
        {
          type: 'FactAsserted',
          data: {
            factId: 'f-beta',
            src: 'alice',
            rel: 'works_at',
            dst: 'beta',
            validFrom: at('WED'),
            validTo: null,
            confidence: null,
            evidence: [],
            source: null,
          },
        },
        { type: 'FactSuperseded', data: { factId: 'f-acme', validFrom: at('MON'), validTo: at('WED'), supersededBy: 'f-beta' } },
      ]);
      expect(records.map((e) => e.meta.recordedAt)).toEqual([at('THU', '09:00'), at('THU', '09:00')]);
      expect(results[0]!.ids).toEqual({ factId: 'f-beta', supersededFactIds: ['f-acme'] });
      expect(factHistory(s.state, 'f-acme')).toEqual([
        expect.objectContaining({ validFrom: at('MON'), validTo: null, recordedFrom: at('MON', '09:00'), recordedTo: at('THU', '09:00') }),
        expect.objectContaining({ validFrom: at('MON'), validTo: at('WED'), recordedFrom: at('THU', '09:00'), recordedTo: null }),
      ]);
    });

    it('As-World@Tue = Acme, As-World@Wed = Beta, As-World@Thu = Beta', () => {
      const s = build();
      s.when(edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU', '09:00') }));
      const now = s.at(at('SUN'));
      expect(dsts(factsAt(now, at('TUE'), { src: 'alice', rel: 'works_at' }))).toEqual(['acme']);
      expect(dsts(factsAt(now, before(at('WED')), { src: 'alice', rel: 'works_at' }))).toEqual(['acme']);
      expect(dsts(factsAt(now, at('WED'), { src: 'alice', rel: 'works_at' }))).toEqual(['beta']);
      expect(dsts(factsAt(now, at('THU'), { src: 'alice', rel: 'works_at' }))).toEqual(['beta']);
    });

    it('As-Recorded@Wed-noon = Acme (we did not know yet); As-Recorded@Thu-09:00 = Beta', () => {
      const s = build();
      s.when(edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU', '09:00') }));
      const wedNoon = at('WED', '12:00');
      expect(dsts(factsAt(s.at(wedNoon), wedNoon, { src: 'alice' }))).toEqual(['acme']);
      expect(dsts(factsAt(s.at(before(at('THU', '09:00'))), at('THU'), { src: 'alice' }))).toEqual(['acme']);
      expect(dsts(factsAt(s.at(at('THU', '09:00')), at('THU', '09:00'), { src: 'alice' }))).toEqual(['beta']);
    });

    it('a many relation does not supersede', () => {
      const s = given([
        ...people,
        relation('works_at', 'many', at('MON')),
        edge('alice', 'works_at', 'acme', { factId: 'f-acme', validFrom: at('MON'), recordedAt: at('MON') }),
      ]);
      const { records } = s.when(edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU') }));
      expect(records.map((e) => e.type)).toEqual(['FactAsserted']);
      expect(dsts(factsAt(s.state, at('THU')))).toEqual(['acme', 'beta']);
    });

    it('a fact whose validity starts exactly at t is not superseded', () => {
      const s = given([
        ...people,
        relation('works_at', 'one', at('MON')),
        edge('alice', 'works_at', 'acme', { factId: 'f-acme', validFrom: at('WED'), recordedAt: at('MON') }),
      ]);
      expect(
        s.when(edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU') })).records.map((e) => e.type),
      ).toEqual(['FactAsserted']);
    });

    it('a fact whose validity starts after t is not superseded', () => {
      const s = given([
        ...people,
        relation('works_at', 'one', at('MON')),
        edge('alice', 'works_at', 'acme', { factId: 'f-acme', validFrom: at('FRI'), recordedAt: at('MON') }),
      ]);
      expect(
        s.when(edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU') })).records.map((e) => e.type),
      ).toEqual(['FactAsserted']);
      expect(factsAt(s.state, at('FRI')).map((f) => [f.dst, f.validTo])).toEqual([
        ['acme', null],
        ['beta', null],
      ]);
    });

    it('a fact whose validity already ended at or before t is not superseded', () => {
      const s = given([
        ...people,
        relation('works_at', 'one', at('MON')),
        edge('alice', 'works_at', 'acme', { factId: 'f-acme', validFrom: at('MON'), validTo: at('WED'), recordedAt: at('MON') }),
      ]);
      expect(
        s.when(edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU') })).records.map((e) => e.type),
      ).toEqual(['FactAsserted']);
    });

    it('the fact superseded one ms after it started ends at t', () => {
      const s = build();
      const { records } = s.when(edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: after(at('MON')), recordedAt: at('THU') }));
      expect(bare(records)[1]).toEqual({
        type: 'FactSuperseded',
        data: { factId: 'f-acme', validFrom: at('MON'), validTo: after(at('MON')), supersededBy: 'f-beta' },
      });
    });

    it('an archived fact is not superseded', () => {
      const s = build();
      s.when(archive('f-acme', at('TUE')));
      expect(
        s.when(edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU') })).records.map((e) => e.type),
      ).toEqual(['FactAsserted']);
    });

    it('other subjects and other relations are untouched', () => {
      const s = build();
      s.when([
        entity('bob', 'Bob', { recordedAt: at('TUE') }),
        edge('bob', 'works_at', 'acme', { factId: 'f-bob', validFrom: at('MON'), recordedAt: at('TUE') }),
      ]);
      s.when(edge('alice', 'visits', 'acme', { factId: 'f-visit', validFrom: at('MON'), recordedAt: at('TUE') }));
      const { results } = s.when(edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU') }));
      expect(results[0]!.ids).toEqual({ factId: 'f-beta', supersededFactIds: ['f-acme'] });
    });

    it('a literal dst supersedes a different literal', () => {
      const s = given([
        ...people,
        relation('age', 'one', at('MON')),
        edge('alice', 'age', { literal: 30, datatype: 'number' }, { factId: 'f30', validFrom: at('MON'), recordedAt: at('MON') }),
      ]);
      const { results } = s.when(
        edge('alice', 'age', { literal: 31, datatype: 'number' }, { factId: 'f31', validFrom: at('WED'), recordedAt: at('THU') }),
      );
      expect(results[0]!.ids).toEqual({ factId: 'f31', supersededFactIds: ['f30'] });
    });

    it('supersedes every open fact that holds at t, in factId order, across merged members', () => {
      // Asserted while works_at was still `many`, so several hold at once when it becomes `one`.
      const s = given([
        ...people,
        entity('gamma', 'Gamma', { recordedAt: at('MON') }),
        entity('delta', 'Delta', { recordedAt: at('MON') }),
        entity('alice2', 'Ally', { recordedAt: at('MON') }),
        edge('alice', 'works_at', 'acme', { factId: 'f-m', validFrom: at('MON'), recordedAt: at('MON') }),
        edge('alice', 'works_at', 'gamma', { factId: 'f-z', validFrom: at('MON'), recordedAt: at('MON') }),
        edge('alice2', 'works_at', 'delta', { factId: 'f-a', validFrom: at('MON'), recordedAt: at('MON') }),
        edge('alice2', 'works_at', 'beta', { factId: 'f-same', validFrom: at('MON'), recordedAt: at('MON') }),
        merge('alice2', 'alice', at('TUE')),
        relation('works_at', 'one', at('TUE')),
      ]);
      const { records, results } = s.when(edge('alice', 'works_at', 'beta', { factId: 'f-new', validFrom: at('WED'), recordedAt: at('THU') }));
      expect(bare(records).map((e) => [e.type, (e.data as { factId: string }).factId])).toEqual([
        ['FactAsserted', 'f-new'],
        ['FactSuperseded', 'f-a'],
        ['FactSuperseded', 'f-m'],
        ['FactSuperseded', 'f-z'],
      ]);
      expect(results[0]!.ids).toEqual({ factId: 'f-new', supersededFactIds: ['f-a', 'f-m', 'f-z'] });
    });

    it('supersedes the facts of a merged alias of the subject', () => {
      const s = build();
      s.when([entity('alice2', 'Ally', { recordedAt: at('TUE') }), merge('alice2', 'alice', at('TUE'))]);
      const { results } = s.when(edge('alice2', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU') }));
      expect(results[0]!.ids).toEqual({ factId: 'f-beta', supersededFactIds: ['f-acme'] });
      expect(factsAt(s.state, at('THU'), { src: 'alice2' }).map((f) => [f.factId, f.src, f.dst])).toEqual([['f-beta', 'alice', 'beta']]);
    });
  });
});

describe('ARCHIVE_EDGE', () => {
  const seed = [...people, edge('alice', 'works_at', 'acme', { factId: 'f1', validFrom: at('MON'), recordedAt: at('MON') })];

  it('closes the open version at recordedAt, without a new version', () => {
    const s = given(seed);
    const { records, results } = s.when(archive('f1', at('WED')));
    expect(bare(records)).toEqual([{ type: 'FactArchived', data: { factId: 'f1' } }]);
    expect(results[0]).toMatchObject({ status: 'applied', recordedAt: at('WED'), ids: { factId: 'f1' } });
    expect(factHistory(s.state, 'f1')!.map((v) => [v.recordedFrom, v.recordedTo])).toEqual([[at('MON'), at('WED')]]);
    expect(ids(factsAt(s.at(before(at('WED'))), at('TUE')))).toEqual(['f1']);
    expect(factsAt(s.at(at('WED')), at('TUE'))).toEqual([]);
  });

  it('an unknown fact is 404 UNKNOWN_FACT', () => {
    const s = given(seed);
    const error = s.rejects(archive('nope'));
    expect(error).toMatchObject({ code: 'UNKNOWN_FACT' });
    expect(error.details).toMatchObject({ factId: 'nope' });
  });

  it('a fact with no open version is 409 FACT_NOT_OPEN', () => {
    const s = given([...seed, archive('f1', at('TUE'))]);
    expect(s.rejects(archive('f1', at('WED')))).toMatchObject({ code: 'FACT_NOT_OPEN' });
  });
});

describe('RETRO_CORRECT', () => {
  const seed = [
    ...people,
    edge('alice', 'works_at', 'acme', {
      factId: 'f1',
      validFrom: at('MON'),
      validTo: at('SAT'),
      confidence: 0.8,
      evidence: ['m1'],
      source: 's',
      recordedAt: at('MON'),
    }),
  ];

  it('closes the open version and opens one with the corrected validity (other fields kept)', () => {
    const s = given(seed);
    const { records, results } = s.when(retro('f1', { validTo: at('WED'), recordedAt: at('THU') }));
    expect(bare(records)).toEqual([{ type: 'FactRetroCorrected', data: { factId: 'f1', validFrom: at('MON'), validTo: at('WED') } }]);
    expect(results[0]).toMatchObject({ status: 'applied', ids: { factId: 'f1' } });
    expect(factHistory(s.state, 'f1')).toEqual([
      expect.objectContaining({ validFrom: at('MON'), validTo: at('SAT'), recordedFrom: at('MON'), recordedTo: at('THU') }),
      expect.objectContaining({
        validFrom: at('MON'),
        validTo: at('WED'),
        recordedFrom: at('THU'),
        recordedTo: null,
        confidence: 0.8,
        evidence: ['m1'],
        source: 's',
      }),
    ]);
  });

  it('As-Recorded before the correction still shows the old validity; As-World after it the new', () => {
    const s = given([...seed, retro('f1', { validFrom: at('TUE'), recordedAt: at('THU') })]);
    expect(ids(factsAt(s.at(before(at('THU'))), at('MON')))).toEqual(['f1']);
    expect(factsAt(s.at(at('THU')), at('MON'))).toEqual([]);
    expect(factsAt(s.at(at('THU')), before(at('TUE')))).toEqual([]);
    expect(ids(factsAt(s.at(at('THU')), at('TUE')))).toEqual(['f1']);
  });

  it('validTo: null reopens the validity end', () => {
    const s = given(seed);
    expect(bare(s.when(retro('f1', { validTo: null, recordedAt: at('THU') })).records)).toEqual([
      { type: 'FactRetroCorrected', data: { factId: 'f1', validFrom: at('MON'), validTo: null } },
    ]);
  });

  it('is unchanged when the validity is the same', () => {
    const s = given(seed);
    const { records, results } = s.when(retro('f1', { validFrom: at('MON'), validTo: at('SAT'), recordedAt: at('THU') }));
    expect(records.map((e) => e.type)).toEqual(['CommandUnchanged']); // no version: the log only remembers the command
    expect(results[0]!.status).toBe('unchanged');
  });

  it('an unknown fact is 404 UNKNOWN_FACT', () => {
    expect(given(seed).rejects(retro('nope', { validTo: at('WED') }))).toMatchObject({ code: 'UNKNOWN_FACT' });
  });

  it('a fact with no open version is 409 FACT_NOT_OPEN', () => {
    const s = given([...seed, archive('f1', at('TUE'))]);
    expect(s.rejects(retro('f1', { validTo: at('WED'), recordedAt: at('WED') }))).toMatchObject({ code: 'FACT_NOT_OPEN' });
  });

  it.each([
    ['validTo before the kept validFrom', { validTo: before(at('MON')) }],
    ['validTo equal to the kept validFrom', { validTo: at('MON') }],
    ['validFrom after the kept validTo', { validFrom: at('SUN') }],
    ['validFrom equal to the kept validTo', { validFrom: at('SAT') }],
  ])('%s is 409 INVALID_INTERVAL', (_, change) => {
    const s = given(seed);
    expect(s.rejects(retro('f1', { ...change, recordedAt: at('THU') }))).toMatchObject({ code: 'INVALID_INTERVAL' });
  });

  it.each([
    ['validTo before validFrom', at('WED'), at('TUE')],
    ['validTo equal to validFrom', at('WED'), at('WED')],
  ])('both bounds given with %s is 400 INVALID_REQUEST', (_, validFrom, validTo) => {
    const s = given(seed);
    expect(s.rejects(retro('f1', { validFrom, validTo, recordedAt: at('THU') }))).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('a kept bound one ms away is fine', () => {
    const s = given(seed);
    s.when(retro('f1', { validTo: after(at('MON')), recordedAt: at('THU') }));
    expect(ids(factsAt(s.state, at('MON')))).toEqual(['f1']);
    expect(factsAt(s.state, after(at('MON')))).toEqual([]);
  });
});
