import { type ClaimGround, checkClaim } from './check';
import type { FactView } from './views';

const R = '2024-05-10T00:00:00.000Z';
const version = (factId: string, more: Partial<FactView> = {}): FactView => ({
  factId,
  src: 'a',
  rel: 'r',
  dst: 'b',
  validFrom: '2024-01-01T00:00:00.000Z',
  validTo: null,
  recordedFrom: '2024-05-01T00:00:00.000Z',
  recordedTo: null,
  confidence: null,
  evidence: [],
  source: null,
  ...more,
});
const ground = (versions: FactView[], others: FactView[] = [], cardinality: 'one' | 'many' = 'one'): ClaimGround => ({
  versions,
  others,
  cardinality,
});
const verdict = (g: ClaimGround, validAt = '2024-05-05T00:00:00.000Z', recordedAt = R) => {
  const { verdict: v, facts } = checkClaim(g, validAt, recordedAt);
  return [v, facts.map((f) => f.factId)];
};

describe('checkClaim (SPEC 5.3)', () => {
  it('rests on the versions in the cut at the interval boundaries: validFrom in, validTo out, recordedTo out', () => {
    const f = version('f', { validFrom: '2024-05-05T00:00:00.000Z', validTo: '2024-05-06T00:00:00.000Z' });
    expect(verdict(ground([f]), '2024-05-05T00:00:00.000Z')).toEqual(['supported', ['f']]);
    expect(verdict(ground([f]), '2024-05-06T00:00:00.000Z')).toEqual(['outdated', ['f']]);
    expect(verdict(ground([f]), '2024-05-04T23:59:59.999Z')).toEqual(['not_yet_valid', ['f']]);
    expect(verdict(ground([version('f', { recordedTo: R })]))).toEqual(['retracted', ['f']]);
  });

  it('never calls retracted what was never believed: an empty record interval, or one that opens at r', () => {
    const empty = version('f', { recordedFrom: '2024-05-02T00:00:00.000Z', recordedTo: '2024-05-02T00:00:00.000Z' });
    expect(verdict(ground([empty]))).toEqual(['unknown', []]);
    expect(verdict(ground([version('f', { recordedFrom: R, recordedTo: R })]))).toEqual(['unknown', []]);
  });

  it('contradicts only through a one relation, with the other values in the cut', () => {
    const other = version('g', { dst: 'c' });
    expect(verdict(ground([], [other], 'one'))).toEqual(['contradicted', ['g']]);
    expect(verdict(ground([], [other], 'many'))).toEqual(['unknown', []]);
    expect(verdict(ground([], [version('g', { dst: 'c', validTo: '2024-02-01T00:00:00.000Z' })], 'one'))).toEqual(['unknown', []]);
  });

  it('tries supported before contradicted, contradicted before outdated, outdated before not yet valid', () => {
    const other = version('g', { dst: 'c' });
    expect(verdict(ground([version('f')], [other]))).toEqual(['supported', ['f']]);
    const over = version('f', { validTo: '2024-03-01T00:00:00.000Z' });
    expect(verdict(ground([over], [other]))).toEqual(['contradicted', ['g']]);
    const later = version('h', { validFrom: '2024-07-01T00:00:00.000Z' });
    expect(verdict(ground([over, later]))).toEqual(['outdated', ['f']]);
    expect(verdict(ground([later]))).toEqual(['not_yet_valid', ['h']]);
  });

  it("at any validity ('*') the believed versions are in the cut, and nothing is outdated or not yet valid", () => {
    expect(verdict(ground([version('f', { validTo: '2024-02-01T00:00:00.000Z' })]), '*')).toEqual(['supported', ['f']]);
    expect(verdict(ground([version('f', { recordedTo: R })]), '*')).toEqual(['retracted', ['f']]);
  });
});
