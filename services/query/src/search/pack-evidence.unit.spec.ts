import type { ScoredCandidate } from './items';
import { type TokenCounter, packEvidence } from './select';

const T = '2024-05-06T09:00:00.000Z';
const words: TokenCounter = { count: (text) => text.split(/\s+/).filter(Boolean).length };
const item = (kind: ScoredCandidate['kind'], id: string, score: number, evidence: { kind: ScoredCandidate['kind']; id: string }[] = [], text = id): ScoredCandidate => ({ kind, id, text, score, recordedFrom: T, evidence });

describe('packEvidence', () => {
  const ranked = [
    item('mention', 'm-best', 0.9),
    item('fact', 'f-other', 0.8),
    item('event', 'ev', 0.7, [{ kind: 'fact', id: 'f-in-event' }]),
    item('mention', 'm-evidence', 0.1),
    item('fact', 'f-in-event', 0.2, [{ kind: 'mention', id: 'm-evidence' }]),
    item('episode', 'ep', 0.95),
  ];

  it('answers events first, then the facts they include, then the mentions evidencing those facts, then the rest by rank', () => {
    const { items } = packEvidence(ranked, { k: 10 }, words);
    expect(items.map((i) => i.id)).toEqual(['ev', 'f-in-event', 'f-other', 'm-evidence', 'm-best', 'ep']);
  });

  it('under a tight budget keeps the evidence closure ahead of better-ranked loose items', () => {
    const { items, tokens } = packEvidence(ranked, { k: 10, tokenBudget: 4 }, words);
    expect(items.map((i) => i.id)).toEqual(['ev', 'f-in-event', 'f-other', 'm-evidence']);
    expect(tokens).toBe(4);
  });

  it('never exceeds a random budget and respects k (500 runs)', () => {
    for (let run = 0; run < 500; run++) {
      const many = Array.from({ length: 30 }, (_, i) =>
        item((['event', 'fact', 'mention', 'episode'] as const)[i % 4]!, `i${i}`, Math.random(), [], 'w '.repeat(1 + Math.floor(Math.random() * 8))),
      );
      const budget = Math.floor(Math.random() * 40);
      const k = 1 + Math.floor(Math.random() * 5);
      const { items, tokens } = packEvidence(many, { k, tokenBudget: budget }, words);
      expect(tokens).toBeLessThanOrEqual(budget);
      expect(tokens).toBe(items.reduce((sum, i) => sum + i.tokens, 0));
      for (const kind of ['event', 'fact', 'mention', 'episode']) expect(items.filter((i) => i.kind === kind).length).toBeLessThanOrEqual(k);
    }
  });
});
