import { searchResponse } from '@memotrace/contracts';
import fc from 'fast-check';
import { cl100k } from './cl100k';
import type { ItemKind } from '@memotrace/domain';
import type { ScoredCandidate } from './items';
import { type TokenCounter, packRanked, saidOnce } from './select';

const T = '2024-05-06T09:00:00.000Z';
const KINDS: ItemKind[] = ['event', 'fact', 'mention', 'episode'];
/** A counter whose count is the number of words: predictable budgets. */
const words: TokenCounter = { count: (text) => text.split(/\s+/).filter(Boolean).length };
const item = (kind: ItemKind, id: string, score: number, evidence: { kind: ItemKind; id: string }[] = [], text = id): ScoredCandidate => ({
  kind,
  id,
  text,
  score,
  recordedFrom: T,
  evidence,
});
const byScore = (list: readonly ScoredCandidate[]) => [...list].sort((a, b) => b.score - a.score);

describe('packRanked', () => {
  const ranked = byScore([
    item('mention', 'm-best', 0.9),
    item('fact', 'f-other', 0.8),
    item('event', 'ev', 0.7, [{ kind: 'fact', id: 'f-in-event' }]),
    item('mention', 'm-evidence', 0.1),
    item('fact', 'f-in-event', 0.2, [{ kind: 'mention', id: 'm-evidence' }]),
    item('episode', 'ep', 0.95),
  ]);

  it('answers what it takes in rank order (score, highest first)', () => {
    const { items } = packRanked(ranked, { k: 10 }, words);
    expect(items.map((i) => i.id)).toEqual(['ep', 'm-best', 'f-other', 'ev', 'f-in-event', 'm-evidence']);
  });

  it('under a tight budget takes the best items by score, whatever their kind or links', () => {
    const { items, tokens } = packRanked(ranked, { k: 10, tokenBudget: 4 }, words);
    expect(items.map((i) => i.id)).toEqual(['ep', 'm-best', 'f-other', 'ev']);
    expect(tokens).toBe(4);
  });

  it("answers a mention with the day it was said, and counts the date's tokens", () => {
    const said = { ...item('mention', 'm', 1, [], 'Caroline: I went to the LGBTQ support group'), occurredAt: '2023-05-08T13:56:00.000Z' };
    const { items, tokens } = packRanked([said], { k: 1 }, words);
    expect(items[0]).toMatchObject({ text: '[8 May 2023] Caroline: I went to the LGBTQ support group', occurredAt: said.occurredAt });
    expect(tokens).toBe(words.count(items[0]!.text));
  });

  it('caps the items of each kind at k, taking the best of each', () => {
    const many = byScore(KINDS.flatMap((kind, k) => Array.from({ length: 5 }, (_, i) => item(kind, `${kind}-${i}`, 10 - i - k / 10))));
    const { items } = packRanked(many, { k: 2 }, words);
    expect(items.map((i) => i.id)).toEqual(['event-0', 'fact-0', 'mention-0', 'episode-0', 'event-1', 'fact-1', 'mention-1', 'episode-1']);
  });

  it('skips an item that does not fit and still takes smaller ones after it', () => {
    const list = [item('fact', 'big', 3, [], 'a b c d e f'), item('fact', 'mid', 2, [], 'a b c'), item('fact', 'small', 1, [], 'a')];
    const { items, tokens } = packRanked(list, { k: 10, tokenBudget: 4 }, words);
    expect(items.map((i) => [i.id, i.tokens])).toEqual([
      ['mid', 3],
      ['small', 1],
    ]);
    expect(tokens).toBe(4);
  });

  it('emits items in the contract shape, keys in a fixed order', () => {
    const { items } = packRanked([{ ...item('event', 'e', 1, [{ kind: 'fact', id: 'f' }], 'a'), validFrom: T, validTo: null }], { k: 1 }, words);
    expect(Object.keys(items[0]!)).toEqual(['kind', 'id', 'text', 'score', 'tokens', 'recordedFrom', 'validFrom', 'validTo', 'evidence']);
    // searchMemory adds each item's salience after packing.
    const answered = items.map((i) => ({ ...i, salience: 0.5 }));
    expect(searchResponse.safeParse({ cut: { validAt: '*', recordedAt: T }, items: answered, tokens: 1 }).success).toBe(true);
  });

  const textArb = fc
    .array(fc.constantFrom('acme', 'alice', 'works', 'beta', 'long', 'Zürich', '東京', '😀', 'x'), { minLength: 1, maxLength: 30 })
    .map((ws) => ws.join(' '));
  const rankedArb = fc
    .array(
      fc.record({
        kind: fc.constantFrom(...KINDS),
        text: textArb,
        score: fc.double({ min: 0.001, max: 10, noNaN: true }),
        cites: fc.array(fc.nat(39), { maxLength: 3 }),
      }),
      { maxLength: 40 },
    )
    .map((cs) =>
      byScore(
        cs.map((c, i) =>
          item(
            c.kind,
            `${c.kind}-${i}`,
            c.score,
            c.cites.filter((j) => j < cs.length).map((j) => ({ kind: cs[j]!.kind, id: `${cs[j]!.kind}-${j}` })),
            c.text,
          ),
        ),
      ),
    );

  it('never exceeds a random budget, totals the items, respects k, answers by score (1000 runs, cl100k counts)', () => {
    const counter = cl100k();
    fc.assert(
      fc.property(
        rankedArb,
        fc.integer({ min: 1, max: 100 }),
        fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
        (ranked, k, tokenBudget) => {
          const { items, tokens } = packRanked(ranked, { k, tokenBudget }, counter);
          if (tokenBudget !== undefined) expect(tokens).toBeLessThanOrEqual(tokenBudget);
          expect(tokens).toBe(items.reduce((sum, i) => sum + i.tokens, 0));
          for (const i of items) expect(i.tokens).toBe(counter.count(i.text));
          for (const kind of KINDS) expect(items.filter((i) => i.kind === kind).length).toBeLessThanOrEqual(k);
          for (let i = 1; i < items.length; i++) expect(items[i - 1]!.score).toBeGreaterThanOrEqual(items[i]!.score);
          expect(new Set(items.map((i) => `${i.kind}:${i.id}`)).size).toBe(items.length);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('is greedy in rank order: an item is left out only when its kind is full or it does not fit (500 runs)', () => {
    fc.assert(
      fc.property(rankedArb, fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 60 }), (ranked, k, tokenBudget) => {
        const taken = new Set(packRanked(ranked, { k, tokenBudget }, words).items.map((i) => i.id));
        let running = 0;
        const perKind = new Map<ItemKind, number>();
        for (const c of ranked) {
          const count = perKind.get(c.kind) ?? 0;
          const t = words.count(c.text);
          if (taken.has(c.id)) {
            running += t;
            perKind.set(c.kind, count + 1);
          } else {
            expect(count >= k || running + t > tokenBudget).toBe(true);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('only cuts the ranked list: the items of a kind at k are the first ones at any larger k, with the same scores (500 runs)', () => {
    fc.assert(
      fc.property(rankedArb, fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 10 }), (ranked, k, more) => {
        const small = packRanked(ranked, { k }, words).items;
        const large = packRanked(ranked, { k: k + more }, words).items;
        for (const kind of KINDS) {
          const of = (items: typeof small) => items.filter((i) => i.kind === kind).map((i) => [i.id, i.score]);
          expect(of(small)).toEqual(of(large).slice(0, of(small).length));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('saidOnce', () => {
  const event = item('event', 'ev', 0.9, [{ kind: 'fact', id: 'f-lost' }], 'Jon lost job as banker (19 January 2023)');
  const turn = item('mention', 'm', 0.85, [], 'Jon: Lost my job as a banker yesterday, so I am starting my own business.');

  it('leaves out a fact whose words the event including it or the turn it cites says above it', () => {
    const ranked = byScore([
      event,
      turn,
      item('fact', 'f-lost', 0.8, [{ kind: 'mention', id: 'm' }], 'Jon lost job as banker'),
      item('fact', 'f-starting', 0.7, [{ kind: 'mention', id: 'm' }], 'Jon is starting own business'),
      item('fact', 'f-business', 0.6, [{ kind: 'mention', id: 'm' }], 'Jon plans to start own business'),
    ]);
    expect(saidOnce(ranked).map((c) => c.id)).toEqual(['ev', 'm', 'f-business']);
  });

  it('keeps a fact ranked above what says it, an item it is not linked to, and every mention, event and episode', () => {
    const ranked = byScore([
      item('fact', 'f-lost', 0.95, [{ kind: 'mention', id: 'm' }], 'Jon lost job as banker'),
      event,
      turn,
      item('fact', 'f-other', 0.5, [], 'Jon lost job as banker'),
      item('episode', 'ep', 0.4, [{ kind: 'event', id: 'ev' }], 'Jon lost job'),
    ]);
    expect(saidOnce(ranked).map((c) => c.id)).toEqual(['f-lost', 'ev', 'm', 'f-other', 'ep']);
  });

  it('leaves a ranking without facts as it is, so k and the budget still only cut it', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<ItemKind>('event', 'mention', 'episode'), { maxLength: 30 }), (kinds) => {
        const ranked = kinds.map((kind, i) => item(kind, `i${i}`, 1 - i / 100, [], 'the same words'));
        expect(saidOnce(ranked)).toEqual(ranked);
      }),
    );
  });
});
