import { type TestService, startTestService } from './testing/test-service';

/**
 * SPEC 5.3 over HTTP: every verdict and the order they are tried in, merges on either end at record
 * times before and after them, literal and entity `dst`, a claim's own `validAt`, claims read from text
 * in first and third person, bad input; every check is asked again by replay and must answer the same.
 * (Random histories: projection-replay-parity.int.spec.ts compares the two readers' grounds.)
 */
const R1 = '2024-05-06T09:00:00.000Z'; // Monday: what the memory is first told
const R2 = '2024-05-09T10:00:00.000Z'; // Thursday: Alice moved to Beta on Wednesday; she stopped liking tea
const R3 = '2024-05-10T09:00:00.000Z'; // Friday: Robert is Bob
const MON = '2024-05-06T00:00:00.000Z';
const TUE_NOON = '2024-05-07T12:00:00.000Z';
const WED = '2024-05-08T00:00:00.000Z';
const WED_NOON = '2024-05-08T12:00:00.000Z';
const THU_NOON = '2024-05-09T12:00:00.000Z';

const entity = (entityId: string, name: string) => ({ op: 'UPSERT_ENTITY', entityId, name, recordedAt: R1 });
const edge = (factId: string, src: string, rel: string, dst: unknown, validFrom: string, more: object = {}) => ({
  op: 'UPSERT_EDGE',
  factId,
  src,
  rel,
  dst,
  validFrom,
  recordedAt: R1,
  ...more,
});

const MEMORY = [
  ...[
    ['alice', 'Alice'],
    ['acme', 'Acme'],
    ['beta', 'Beta'],
    ['porto', 'Porto'],
    ['lisbon', 'Lisbon'],
    ['bob', 'Bob'],
    ['robert', 'Robert'],
    ['carol', 'Carol'],
  ].map(([id, name]) => entity(id!, name!)),
  { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one', recordedAt: R1 },
  { op: 'DEFINE_RELATION', rel: 'age', cardinality: 'one', recordedAt: R1 },
  edge('alice-acme', 'alice', 'works_at', 'acme', MON),
  // lives_in is many: two facts of the same claim, one over, one to come.
  edge('alice-porto', 'alice', 'lives_in', 'porto', '2024-01-01T00:00:00.000Z', { validTo: '2024-05-01T00:00:00.000Z' }),
  edge('alice-porto-again', 'alice', 'lives_in', 'porto', '2024-07-01T00:00:00.000Z'),
  edge('alice-lisbon', 'alice', 'lives_in', 'lisbon', '2024-06-01T00:00:00.000Z'),
  edge('alice-age', 'alice', 'age', { literal: 30 }, '2024-01-01T00:00:00.000Z'),
  edge('alice-tea', 'alice', 'likes', { literal: 'tea' }, '2024-01-01T00:00:00.000Z'),
  edge('alice-knows-robert', 'alice', 'knows', 'robert', '2024-01-01T00:00:00.000Z'),
  edge('bob-knows-alice', 'bob', 'knows', 'alice', '2024-01-01T00:00:00.000Z'),
  // Two facts of a `one` relation from the same instant: neither supersedes the other.
  edge('carol-acme', 'carol', 'works_at', 'acme', MON),
  edge('carol-beta', 'carol', 'works_at', 'beta', MON),
  edge('alice-beta', 'alice', 'works_at', 'beta', WED, { recordedAt: R2 }),
  { op: 'ARCHIVE_EDGE', factId: 'alice-tea', recordedAt: R2 },
  { op: 'MERGE_ENTITY', srcId: 'robert', dstId: 'bob', recordedAt: R3 },
];

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
  const written = await t.commands('check', MEMORY);
  expect(written.status).toBe(200);
});
afterAll(() => t.stop());

/** The check's answer by the read models, after asserting replay answers it identically (a defaulted bound aside). */
async function check(body: object): Promise<any> {
  const projected = await t.post('/v1/memories/check/check', body);
  expect(projected.status).toBe(200);
  const replayed = await t.post('/v1/memories/check/check?consistency=replay', body);
  expect(replayed.status).toBe(200);
  // The same but for the source, and for a bound left to default to each request's own time.
  expect({ ...replayed.body, source: 'projection', cut: projected.body.cut }).toEqual(projected.body);
  expect(replayed.body.source).toBe('replay');
  return projected.body;
}

/** Each claim's verdict and the facts it rests on, as `factId@recordedFrom`. */
async function verdicts(body: object): Promise<[string, string[]][]> {
  const answer = await check(body);
  return answer.verdicts.map((v: any) => [v.verdict, v.facts.map((f: any) => `${f.factId}@${f.recordedFrom.slice(8, 10)}`)]);
}

const claim = (src: string, rel: string, dst: unknown, validAt?: string) => ({ src, rel, dst, ...(validAt ? { validAt } : {}) });

describe('POST /v1/memories/{memoryId}/check', () => {
  it('is contradicted As-World@Thursday and supported As-Recorded@Wednesday-noon (the README story)', async () => {
    const acme = [claim('alice', 'works_at', 'acme')];
    expect(await verdicts({ claims: acme, validAt: THU_NOON })).toEqual([['contradicted', ['alice-beta@09']]]);
    expect(await verdicts({ claims: acme, validAt: WED_NOON, recordedAt: WED_NOON })).toEqual([['supported', ['alice-acme@06']]]);
    // The corrected version (ending on Wednesday) supports Tuesday.
    expect(await verdicts({ claims: acme, validAt: TUE_NOON })).toEqual([['supported', ['alice-acme@09']]]);
    // Before Thursday nothing was known of Beta, and works_at holds one place at a time.
    expect(await verdicts({ claims: [claim('alice', 'works_at', 'beta')], validAt: WED_NOON, recordedAt: WED_NOON })).toEqual([
      ['contradicted', ['alice-acme@06']],
    ]);
  });

  it('answers the cut and each verdict with the full fact versions', async () => {
    const answer = await check({ claims: [claim('alice', 'works_at', 'beta')], validAt: '2024-05-09T14:00:00+02:00', recordedAt: R3 });
    expect(answer).toEqual({
      cut: { validAt: THU_NOON, recordedAt: R3 },
      source: 'projection',
      verdicts: [
        {
          claim: { src: 'alice', rel: 'works_at', dst: 'beta' },
          verdict: 'supported',
          facts: [
            {
              factId: 'alice-beta',
              src: 'alice',
              rel: 'works_at',
              dst: 'beta',
              validFrom: WED,
              validTo: null,
              recordedFrom: R2,
              recordedTo: null,
              confidence: null,
              evidence: [],
              source: null,
              tier: 'hot',
            },
          ],
        },
      ],
    });
  });

  it('tries the verdicts in order: supported, contradicted, outdated, not_yet_valid, retracted, unknown', async () => {
    const at = { validAt: THU_NOON, recordedAt: R3 };
    expect(
      await verdicts({
        ...at,
        claims: [
          claim('carol', 'works_at', 'acme'), // supported, though carol-beta contradicts it in the same cut
          claim('alice', 'works_at', 'acme'), // contradicted, though its own version is also outdated
          claim('alice', 'lives_in', 'porto'), // outdated (validTo May 1st), though another fact of it is not yet valid
          claim('alice', 'lives_in', 'lisbon'), // not yet valid (from June)
          claim('alice', 'likes', { literal: 'tea' }), // retracted (archived on Thursday)
          claim('alice', 'likes', { literal: 'coffee' }), // unknown
          claim('alice', 'lives_in', 'beta'), // unknown: lives_in is many, other places do not contradict it
        ],
      }),
    ).toEqual([
      ['supported', ['carol-acme@06']],
      ['contradicted', ['alice-beta@09']],
      ['outdated', ['alice-porto@06']],
      ['not_yet_valid', ['alice-lisbon@06']],
      ['retracted', ['alice-tea@06']],
      ['unknown', []],
      ['unknown', []],
    ]);
    // Before the archive the same claim was supported; at the archive's own instant it is no longer believed.
    expect(await verdicts({ claims: [claim('alice', 'likes', { literal: 'tea' })], recordedAt: '2024-05-09T09:59:59.999Z' })).toEqual([
      ['supported', ['alice-tea@06']],
    ]);
    expect(await verdicts({ claims: [claim('alice', 'likes', { literal: 'tea' })], recordedAt: R2 })).toEqual([['retracted', ['alice-tea@06']]]);
    // After July both lives_in porto facts are believed: the one in the cut supports it.
    expect(await verdicts({ claims: [claim('alice', 'lives_in', 'porto')], validAt: '2024-08-01T00:00:00.000Z' })).toEqual([
      ['supported', ['alice-porto-again@06']],
    ]);
    // Any validity ('*'): whatever is believed is in the cut, nothing is outdated or not yet valid.
    expect(await verdicts({ claims: [claim('alice', 'lives_in', 'lisbon'), claim('alice', 'works_at', 'acme')], validAt: '*' })).toEqual([
      ['supported', ['alice-lisbon@06']],
      ['supported', ['alice-acme@09']],
    ]);
  });

  it("takes a claim's own validAt over the body's", async () => {
    expect(await verdicts({ validAt: THU_NOON, claims: [claim('alice', 'works_at', 'acme', TUE_NOON), claim('alice', 'works_at', 'acme')] })).toEqual(
      [
        ['supported', ['alice-acme@09']],
        ['contradicted', ['alice-beta@09']],
      ],
    );
  });

  it('compares literals by value and datatype, and contradicts a one relation with another literal', async () => {
    expect(
      await verdicts({
        claims: [
          claim('alice', 'age', { literal: 30 }),
          claim('alice', 'age', { literal: 30, datatype: 'number' }),
          claim('alice', 'age', { literal: 31 }),
          claim('alice', 'age', { literal: '30' }),
          claim('alice', 'age', 'acme'),
        ],
      }),
    ).toEqual([
      ['supported', ['alice-age@06']],
      ['supported', ['alice-age@06']],
      ['contradicted', ['alice-age@06']],
      ['contradicted', ['alice-age@06']],
      ['contradicted', ['alice-age@06']],
    ]);
  });

  it('resolves either end through the merges known at recordedAt, and only from then on', async () => {
    const claims = [
      claim('robert', 'knows', 'alice'), // src merged into bob: bob's fact
      claim('alice', 'knows', 'bob'), // dst: alice knows robert, who is bob
      claim('alice', 'knows', 'robert'),
      claim('bob', 'knows', 'alice'),
    ];
    expect(await verdicts({ claims, recordedAt: R3 })).toEqual([
      ['supported', ['bob-knows-alice@06']],
      ['supported', ['alice-knows-robert@06']],
      ['supported', ['alice-knows-robert@06']],
      ['supported', ['bob-knows-alice@06']],
    ]);
    expect(await verdicts({ claims, recordedAt: R2 })).toEqual([
      ['unknown', []],
      ['unknown', []],
      ['supported', ['alice-knows-robert@06']],
      ['supported', ['bob-knows-alice@06']],
    ]);
    // A fact's ends are answered by their canonical ids at the cut.
    const answer = await check({ claims: [claim('robert', 'knows', 'alice')], recordedAt: R3 });
    expect(answer.verdicts[0].claim).toEqual({ src: 'robert', rel: 'knows', dst: 'alice' });
    expect(answer.verdicts[0].facts[0]).toMatchObject({ src: 'bob', dst: 'alice' });
  });

  it('reads claims from text in first and third person, with their own times', async () => {
    const first = await check({ text: 'I work at Acme.', speaker: 'alice', validAt: THU_NOON });
    expect(first.claims).toEqual([{ src: 'alice', rel: 'works_at', dst: 'acme' }]);
    expect(first.verdicts.map((v: any) => v.verdict)).toEqual(['contradicted']);
    // A speaker given by name.
    const byName = await check({ text: 'I work at Beta.', speaker: 'Alice', validAt: THU_NOON });
    expect(byName.verdicts.map((v: any) => [v.claim.src, v.verdict])).toEqual([['alice', 'supported']]);
    // "since Monday": the claim is checked on Monday, against the believed, corrected version.
    const third = await check({ text: 'Alice works at Acme since Monday.', validAt: THU_NOON });
    expect(third.claims).toEqual([{ src: 'alice', rel: 'works_at', dst: 'acme', validAt: MON }]);
    expect(third.verdicts.map((v: any) => v.verdict)).toEqual(['supported']);
    const outdated = await check({ text: 'Alice lives in Lisbon.', validAt: THU_NOON });
    expect(outdated.verdicts.map((v: any) => [v.claim.rel, v.claim.dst, v.verdict])).toEqual([['lives_in', 'lisbon', 'not_yet_valid']]);
    // Nothing claimed: no claim, no verdict.
    expect(await check({ text: 'Hello! How are you today?' })).toMatchObject({ claims: [], verdicts: [] });
  });

  it('refuses bad input with per-field details, and a memory it does not have', async () => {
    const bad = async (body: unknown, path: string) => {
      const answer = await t.post('/v1/memories/check/check', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_REQUEST');
      expect(answer.body.error.details.map((d: any) => d.path)).toContain(path);
    };
    await bad({}, 'claims');
    await bad({ claims: [] }, 'claims');
    await bad({ claims: Array.from({ length: 101 }, () => claim('alice', 'works_at', 'acme')) }, 'claims');
    await bad({ claims: [claim('alice', 'works_at', 'acme')], text: 'Alice works at Acme' }, 'text');
    await bad({ claims: [claim('alice', 'works_at', 'acme')], speaker: 'alice' }, 'speaker');
    await bad({ claims: [{ src: 'alice', rel: 'works_at' }] }, 'claims.0.dst');
    await bad({ claims: [claim('alice', 'age', { literal: '30', datatype: 'number' })] }, 'claims.0.dst.literal');
    await bad({ claims: [claim('alice', 'works_at', 'acme', '2024-05-09')] }, 'claims.0.validAt');
    await bad({ claims: [claim('alice', 'works_at', 'acme')], recordedAt: '*' }, 'recordedAt');
    await bad({ claims: [claim('alice', 'works_at', 'acme')], extra: 1 }, 'extra');
    await bad({ text: 'x'.repeat(8 * 1024 + 1) }, 'text');
    await bad({ text: '   ' }, 'text');
    const unknownMemory = await t.post('/v1/memories/no-such-memory/check', { claims: [claim('alice', 'works_at', 'acme')] });
    expect(unknownMemory.status).toBe(404);
    expect(unknownMemory.body.error.code).toBe('UNKNOWN_MEMORY');
  });
});
