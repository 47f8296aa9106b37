import { searchResponse } from '@memotrace/contracts';
import fc from 'fast-check';
import { cl100k } from './cl100k';
import type { Candidate, ItemKind, ScoredCandidate } from './items';
import { KIND_ORDER, type TokenCounter, compareRanked, pack, rank, searchCandidates } from './select';

const T = '2024-05-06T09:00:00.000Z';
const KINDS: ItemKind[] = ['event', 'fact', 'mention', 'episode'];

function candidate(kind: ItemKind, id: string, text: string): Candidate {
  return { kind, id, text, recordedFrom: T, evidence: [] };
}

/** A counter whose count is the number of words: predictable budgets. */
const words: TokenCounter = { count: (text) => text.split(/\s+/).filter(Boolean).length };

describe('rank', () => {
  const candidates = [
    candidate('fact', 'f-acme', 'Alice works at Acme'),
    candidate('fact', 'f-beta', 'Alice works at Beta'),
    candidate('mention', 'm1', 'Alice: I joined Acme, Acme is great'),
    candidate('event', 'e1', 'Alice joined Acme'),
    candidate('episode', 'ep1', 'Onboarding week'),
    candidate('mention', 'm2', 'Bob: lunch?'),
  ];

  it('returns only matching items, events first, then facts, mentions, episodes, each by score', () => {
    const ranked = rank(candidates, 'Acme');
    expect(ranked.map((r) => r.id)).toEqual(['e1', 'f-acme', 'm1']);
    expect(ranked.every((r) => r.score > 0)).toBe(true);
  });

  it('puts the best match of a kind first', () => {
    const facts = rank(candidates, 'works at Beta').filter((r) => r.kind === 'fact');
    expect(facts.map((r) => r.id)).toEqual(['f-beta', 'f-acme']);
    expect(facts[0]!.score).toBeGreaterThan(facts[1]!.score);
  });

  it('returns nothing for a query that matches nothing', () => {
    expect(rank(candidates, 'zebra')).toEqual([]);
    expect(rank(candidates, 'what is the')).toEqual([]);
    expect(rank([], 'acme')).toEqual([]);
  });

  it('breaks score ties by id', () => {
    const ranked = rank([candidate('fact', 'b', 'acme'), candidate('fact', 'a', 'acme'), candidate('fact', 'c', 'acme')], 'acme');
    expect(ranked.map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });
});

describe('pack', () => {
  const scored = (kind: ItemKind, id: string, text: string, score: number): ScoredCandidate => ({ ...candidate(kind, id, text), score });

  it('caps the items of each kind at k', () => {
    const ranked = KINDS.flatMap((kind) => Array.from({ length: 5 }, (_, i) => scored(kind, `${kind}-${i}`, 'x', 10 - i)));
    const { items } = pack(ranked, { k: 2 }, words);
    expect(items.map((i) => i.id)).toEqual(['event-0', 'event-1', 'fact-0', 'fact-1', 'mention-0', 'mention-1', 'episode-0', 'episode-1']);
  });

  it('skips an item that does not fit and still takes smaller ones after it', () => {
    const ranked = [scored('fact', 'big', 'a b c d e f', 3), scored('fact', 'mid', 'a b c', 2), scored('fact', 'small', 'a', 1)];
    const { items, tokens } = pack(ranked, { k: 10, tokenBudget: 4 }, words);
    expect(items.map((i) => [i.id, i.tokens])).toEqual([
      ['mid', 3],
      ['small', 1],
    ]);
    expect(tokens).toBe(4);
  });

  it('without a budget, takes every ranked item up to k and totals their tokens', () => {
    const ranked = [scored('event', 'e', 'a b', 1), scored('mention', 'm', 'c d e', 1)];
    expect(pack(ranked, { k: 10 }, words)).toMatchObject({ tokens: 5, items: [{ id: 'e', tokens: 2 }, { id: 'm', tokens: 3 }] });
  });

  it('emits items in the contract shape, keys in a fixed order', () => {
    const { items } = pack([{ ...scored('event', 'e', 'a', 1), validFrom: T, validTo: null, evidence: [{ kind: 'fact', id: 'f' }] }], { k: 1 }, words);
    expect(Object.keys(items[0]!)).toEqual(['kind', 'id', 'text', 'score', 'tokens', 'recordedFrom', 'validFrom', 'validTo', 'evidence']);
    expect(searchResponse.safeParse({ cut: { validAt: '*', recordedAt: T }, items, tokens: 1 }).success).toBe(true);
  });

  const textArb = fc.array(fc.constantFrom('acme', 'alice', 'works', 'beta', 'long', 'Zürich', '東京', '😀', 'x'), { minLength: 1, maxLength: 30 }).map((ws) => ws.join(' '));
  const candidatesArb = fc.array(
    fc.record({ kind: fc.constantFrom(...KINDS), text: textArb }),
    { maxLength: 40 },
  ).map((cs) => cs.map((c, i) => candidate(c.kind, `${c.kind}-${i}`, c.text)));

  it('never exceeds a random budget, totals the items, respects k, and is greedy (1000 runs, cl100k counts)', () => {
    const counter = cl100k();
    fc.assert(
      fc.property(candidatesArb, fc.constantFrom('acme', 'alice works', 'beta zürich', '東京', 'x long'), fc.integer({ min: 1, max: 100 }), fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }), (candidates, query, k, tokenBudget) => {
        const ranked = rank(candidates, query);
        const { items, tokens } = pack(ranked, { k, tokenBudget }, counter);
        if (tokenBudget !== undefined) expect(tokens).toBeLessThanOrEqual(tokenBudget);
        expect(tokens).toBe(items.reduce((sum, item) => sum + item.tokens, 0));
        for (const item of items) expect(item.tokens).toBe(counter.count(item.text));
        for (const kind of KINDS) expect(items.filter((i) => i.kind === kind).length).toBeLessThanOrEqual(k);
        // Items come in answer order and each is a ranked (matching) candidate.
        for (let i = 1; i < items.length; i++) expect(compareRanked(items[i - 1]!, items[i]!)).toBeLessThan(0);
        expect(items.every((i) => i.score > 0)).toBe(true);
        // Greedy: a ranked item left out either found its kind full, or did not fit when its turn came.
        const takenIds = new Set(items.map((i) => i.id));
        let running = 0;
        const perKind = new Map<ItemKind, number>();
        for (const r of ranked) {
          const count = perKind.get(r.kind) ?? 0;
          const t = counter.count(r.text);
          if (takenIds.has(r.id)) {
            running += t;
            perKind.set(r.kind, count + 1);
          } else {
            expect(count >= k || (tokenBudget !== undefined && running + t > tokenBudget)).toBe(true);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('answers in kind order: events, facts, mentions, episodes', () => {
    expect(KIND_ORDER).toEqual(['event', 'fact', 'mention', 'episode']);
  });
});

describe('searchCandidates', () => {
  it('ranks then packs under the budget', () => {
    const candidates = [candidate('fact', 'f1', 'Alice works at Acme'), candidate('mention', 'm1', 'Alice: Acme is hiring, I applied to Acme last week'), candidate('fact', 'f2', 'Bob works at Beta')];
    const all = searchCandidates(candidates, 'Acme', { k: 10 }, cl100k());
    expect(all.items.map((i) => i.id)).toEqual(['f1', 'm1']);
    const tight = searchCandidates(candidates, 'Acme', { k: 10, tokenBudget: all.items[0]!.tokens }, cl100k());
    expect(tight.items.map((i) => i.id)).toEqual(['f1']);
    expect(tight.tokens).toBe(all.items[0]!.tokens);
  });
});
