import { type RestatedSource, restatedFacts } from './restated-facts';

const fact = (factId: string, extra: Partial<RestatedSource> = {}): RestatedSource => ({
  factId,
  src: 'alice',
  rel: 'works_at',
  dst: 'acme',
  canonicalSrc: 'alice',
  canonicalDst: 'acme',
  validFrom: '2024-05-01T00:00:00.000Z',
  validTo: null,
  evidence: [],
  firstRecordedAt: '2024-05-01T09:00:00.000Z',
  openedAt: '2024-05-01T09:00:00.000Z',
  included: false,
  ...extra,
});

describe('restatedFacts', () => {
  it('keeps the fact that holds earliest with every restatement evidence, and archives the others', () => {
    const derived = restatedFacts([
      fact('by-dsl', { validFrom: '2024-05-03T00:00:00.000Z', evidence: ['t9'], openedAt: '2024-05-03T09:00:00.000Z' }),
      fact('by-extractor-v1', { evidence: ['t1'] }),
      fact('by-merge', { src: 'ali', canonicalSrc: 'alice', evidence: ['t1', 't4'], openedAt: '2024-05-04T09:00:00.000Z' }),
    ]);
    expect(derived).toEqual([
      {
        body: { op: 'UPSERT_EDGE', factId: 'by-extractor-v1', src: 'alice', rel: 'works_at', dst: 'acme', evidence: ['t1', 't4', 't9'] },
        salt: '2024-05-01T09:00:00.000Z',
        reason: 'gathers the evidence of the facts that restate it',
      },
      { body: { op: 'ARCHIVE_EDGE', factId: 'by-merge' }, salt: '2024-05-04T09:00:00.000Z', reason: 'restated as by-extractor-v1' },
      { body: { op: 'ARCHIVE_EDGE', factId: 'by-dsl' }, salt: '2024-05-03T09:00:00.000Z', reason: 'restated as by-extractor-v1' },
    ]);
  });

  it('keeps open a fact an event includes, and keeps it rather than another', () => {
    const derived = restatedFacts([fact('a', { evidence: ['t1'] }), fact('b', { included: true }), fact('c', { included: true })]);
    expect(derived.map((d) => [d.body.op, d.body.op === 'UPSERT_EDGE' || d.body.op === 'ARCHIVE_EDGE' ? d.body.factId : null])).toEqual([
      ['UPSERT_EDGE', 'b'],
      ['ARCHIVE_EDGE', 'a'],
    ]);
  });

  it('leaves apart facts that end differently, say different things, or stand alone; needs no evidence update when none is new', () => {
    expect(restatedFacts([fact('a'), fact('b', { validTo: '2024-06-01T00:00:00.000Z' })])).toEqual([]);
    expect(restatedFacts([fact('a'), fact('b', { canonicalDst: 'beta', dst: 'beta' })])).toEqual([]);
    expect(
      restatedFacts([
        fact('a', { canonicalDst: { literal: 'x', datatype: 'string' } }),
        fact('b', { canonicalDst: { literal: 'x', datatype: 'number' } }),
      ]),
    ).toEqual([]);
    expect(restatedFacts([fact('a')])).toEqual([]);
    expect(restatedFacts([fact('a', { evidence: ['t1'] }), fact('b', { evidence: ['t1'] })]).map((d) => d.body.op)).toEqual(['ARCHIVE_EDGE']);
  });
});
