import type { Candidate } from './items';
import { DEFAULT_RANKING, isSuperseded, rankItems as rankOver } from './rank-hybrid';
import { itemKey } from './recall-backend';
import { ListCutItems } from './reference-cut';

const T = '2024-05-06T09:00:00.000Z';
const REFERENCE = Date.parse('2024-06-01T00:00:00.000Z');
const noExpansion = { ...DEFAULT_RANKING, expansion: { ...DEFAULT_RANKING.expansion, depth: 0 } };
const hits = (...ids: string[]) => ids.map((id, i) => ({ key: itemKey({ kind: id.startsWith('f') ? 'fact' : 'mention', id }), score: 10 - i }));

const mention = (id: string, occurredAt?: string): Candidate => ({
  kind: 'mention',
  id,
  text: id,
  recordedFrom: T,
  evidence: [],
  ...(occurredAt ? { occurredAt } : {}),
});
const fact = (id: string, validFrom: string, validTo: string | null): Candidate => ({
  kind: 'fact',
  id,
  text: id,
  recordedFrom: T,
  validFrom,
  validTo,
  evidence: [],
});

const rankItems = (candidates: Candidate[], ...rest: Parameters<typeof rankOver> extends [unknown, ...infer R] ? R : never) =>
  rankOver(new ListCutItems('m', { validAt: '*', recordedAt: T }, candidates), ...rest);

describe('rankItems', () => {
  it('fuses BM25 and vector hits: found by both beats found by one', () => {
    const candidates = [mention('a'), mention('b'), mention('c')];
    const ranked = rankItems(candidates, { bm25: hits('a', 'b'), vector: hits('c', 'b') }, { reference: REFERENCE, intent: null }, noExpansion);
    expect(ranked.map((c) => c.id)).toEqual(['b', 'a', 'c']);
  });

  it('counts only mentions toward the vector list: facts nearer than a mention never push it out', () => {
    const candidates = [mention('m1'), fact('f1', T, null), mention('m2'), fact('f2', T, null), mention('m3'), fact('f3', T, null)];
    const ranking = { ...noExpansion, vectorMentions: 2 };
    const ranked = rankItems(
      candidates,
      { bm25: [], vector: hits('m1', 'f1', 'm2', 'f2', 'm3', 'f3') },
      { reference: REFERENCE, intent: null },
      ranking,
    );
    // The list ends at its second mention: f2 and what follows it are no hits.
    expect(ranked.map((c) => c.id)).toEqual(['m1', 'f1', 'm2']);
  });

  it('a vector-only hit is found (not projected for BM25 terms)', () => {
    const ranked = rankItems([mention('a'), mention('z')], { bm25: [], vector: hits('z') }, { reference: REFERENCE, intent: null }, noExpansion);
    expect(ranked.map((c) => c.id)).toEqual(['z']);
  });

  it('favours items whose time is inside the intended interval, by a factor rather than a tier', () => {
    const may = { from: Date.parse('2024-05-01T00:00:00.000Z'), to: Date.parse('2024-06-01T00:00:00.000Z') };
    const candidates = [mention('april', '2024-04-20T10:00:00.000Z'), mention('may', '2024-05-20T10:00:00.000Z'), mention('untimed')];
    const ranked = rankItems(candidates, { bm25: hits('april', 'untimed', 'may'), vector: [] }, { reference: REFERENCE, intent: may }, noExpansion);
    expect(ranked.map((c) => c.id)).toEqual(['may', 'april', 'untimed']);
    expect(ranked[0]!.score).toBeCloseTo(0.8 * DEFAULT_RANKING.intentFactor, 12);
    // A match far better than the in-interval one still wins: a misread time expression costs little.
    const far = rankItems(
      candidates,
      {
        bm25: [
          { key: itemKey(mention('april')), score: 10 },
          { key: itemKey(mention('may')), score: 1 },
        ],
        vector: [],
      },
      { reference: REFERENCE, intent: may },
      noExpansion,
    );
    expect(far.map((c) => c.id)).toEqual(['april', 'may']);
  });

  it('lifts only items whose own time is specific and inside the interval: an open-ended fact only when it began there', () => {
    const week = { from: Date.parse('2024-06-07T00:00:00.000Z'), to: Date.parse('2024-06-14T00:00:00.000Z') };
    const candidates = [
      mention('m-said', '2024-06-10T18:00:00.000Z'),
      fact('f-lives', '2019-01-01T00:00:00.000Z', null), // "Maya lives in Lisbon": holds last week, but says nothing about it
      fact('f-began', '2024-06-09T00:00:00.000Z', null), // began that week
      fact('f-inside', '2024-06-08T00:00:00.000Z', '2024-06-12T00:00:00.000Z'),
      fact('f-straddles', '2024-06-01T00:00:00.000Z', '2024-06-10T00:00:00.000Z'),
    ];
    const recall = { bm25: candidates.map((c) => ({ key: itemKey(c), score: 1 })), vector: [] };
    const ranked = rankItems(candidates, recall, { reference: REFERENCE, intent: week }, noExpansion);
    const lifted = ranked.filter((c) => c.score > 1).map((c) => c.id);
    expect(lifted.sort()).toEqual(['f-began', 'f-inside', 'm-said']);
    expect(ranked.find((c) => c.id === 'm-said')!.score).toBeCloseTo(DEFAULT_RANKING.intentFactor, 12);
  });

  it('favours a mention whose speaker the query names (their own words), by a factor', () => {
    const said = (id: string, speaker?: string): Candidate => ({ ...mention(id), ...(speaker ? { speaker } : {}) });
    const candidates = [said('caroline', 'Caroline'), said('melanie', 'Melanie Brown'), said('anonymous')];
    const recall = { bm25: hits('caroline', 'anonymous', 'melanie'), vector: [] };
    const asked = (query: string) =>
      rankItems(candidates, recall, { reference: REFERENCE, intent: null, queryWords: new Set(query.toLowerCase().split(/\W+/)) }, noExpansion);
    const melanieFirst = asked('What does Melanie do to destress?');
    expect(melanieFirst.map((c) => c.id)).toEqual(['melanie', 'caroline', 'anonymous']);
    expect(melanieFirst[0]!.score).toBeCloseTo(0.8 * DEFAULT_RANKING.speakerFactor, 12);
    // No speaker named (or only part of a word): the fused order stands.
    expect(asked('What does Mel do to destress?').map((c) => c.id)).toEqual(['caroline', 'anonymous', 'melanie']);
  });

  it('favours a fact whose subject the query names as it favours their own words', () => {
    const about = (id: string, subject: string): Candidate => ({ ...fact(id, T, null), subject });
    const candidates = [about('f-caroline', 'Caroline'), about('f-melanie', 'Melanie Brown'), mention('m-anonymous')];
    const recall = { bm25: hits('f-caroline', 'm-anonymous', 'f-melanie'), vector: [] };
    const queryWords = new Set(['what', 'instruments', 'does', 'melanie', 'play']);
    const ranked = rankItems(candidates, recall, { reference: REFERENCE, intent: null, queryWords }, noExpansion);
    expect(ranked.map((c) => c.id)).toEqual(['f-melanie', 'f-caroline', 'm-anonymous']);
    expect(ranked[0]!.score).toBeCloseTo(0.8 * DEFAULT_RANKING.speakerFactor, 12);
  });

  it('ranks a superseded fact version below the current one', () => {
    const old = fact('f-old', '2023-01-01T00:00:00.000Z', '2024-05-01T00:00:00.000Z');
    const current = fact('f-new', '2024-05-01T00:00:00.000Z', null);
    expect(isSuperseded(old, REFERENCE)).toBe(true);
    expect(isSuperseded(current, REFERENCE)).toBe(false);
    const ranked = rankItems([old, current], { bm25: hits('f-old', 'f-new'), vector: [] }, { reference: REFERENCE, intent: null }, noExpansion);
    expect(ranked.map((c) => c.id)).toEqual(['f-new', 'f-old']);
  });

  it('drops hits naming items outside the cut (a backend cannot leak them in)', () => {
    const ranked = rankItems(
      [mention('a')],
      { bm25: hits('a', 'recorded-later'), vector: hits('recorded-later') },
      { reference: REFERENCE, intent: null },
      DEFAULT_RANKING,
    );
    expect(ranked.map((c) => c.id)).toEqual(['a']);
    // Nor set a list's scale: the best hit of the cut scores as if the other had never been named.
    const leading = rankItems(
      [mention('a')],
      { bm25: hits('recorded-later', 'a'), vector: [] },
      { reference: REFERENCE, intent: null },
      DEFAULT_RANKING,
    );
    expect(leading.map((c) => [c.id, c.score])).toEqual([['a', 1]]);
  });

  it('nothing recalled, nothing ranked (expansion needs a seed)', () => {
    expect(rankItems([mention('a')], { bm25: [], vector: [] }, { reference: REFERENCE, intent: null })).toEqual([]);
  });
});
