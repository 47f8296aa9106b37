import { deriveEntityId, deriveFactId, fold } from '@memotrace/domain';
import type { Derived, ExtractionInput, Extractor } from '@memotrace/extraction';
import { TurnExtraction } from './turn-extraction';

/** What the service keeps of an extractor's output, whatever the extractor: no copies of turns, the relations it knows. */
const MEMORY = 'm';
const AT = '2024-03-01T10:00:00.000Z';
const TURN = { mentionId: 't1', sessionId: 's', speaker: 'Dana', text: 'I have been looking for a job in a call center for weeks now.', at: AT };

function withExtractor(derive: (input: ExtractionInput) => Derived[]): { extraction: TurnExtraction; seen: ExtractionInput[] } {
  const seen: ExtractionInput[] = [];
  const extractor: Extractor = {
    name: 'test',
    version: '1.0.0',
    async extract(input) {
      seen.push(input);
      return derive(input);
    },
  };
  return { extraction: new TurnExtraction(extractor, { gate: 0.5, timeoutMs: 1000, windowTurns: 5 }), seen };
}

describe('turn extraction', () => {
  it('leaves out a fact that repeats its turn’s words as the memory says it, and an event resting on it', async () => {
    const dana = deriveEntityId(MEMORY, 'Dana');
    const copy = { literal: 'I have been looking for a job', datatype: 'string' as const };
    const statement = { literal: 'job in a call center', datatype: 'string' as const };
    const { extraction } = withExtractor(() => [
      { command: { op: 'UPSERT_ENTITY', name: 'Dana', types: ['person'] }, confidence: 0.9, turns: ['t1'] },
      { command: { op: 'UPSERT_EDGE', src: dana, rel: 'said', dst: copy }, confidence: 0.9, turns: ['t1'] },
      {
        command: {
          op: 'UPSERT_EVENT',
          summary: 'Dana looks for work',
          includesFacts: [deriveFactId(MEMORY, dana, 'said', copy)],
          timeSpan: { from: AT },
        },
        confidence: 0.9,
        turns: ['t1'],
      },
      { command: { op: 'UPSERT_EDGE', src: dana, rel: 'seeks', dst: statement }, confidence: 0.9, turns: ['t1'] },
    ]);
    const state = fold([]);
    const planned = await extraction.derive(MEMORY, extraction.context(state, [TURN], 's'), {});
    expect(planned.map((p) => [p.command.op, p.command.op === 'UPSERT_EDGE' ? p.command.rel : ''])).toEqual([
      ['UPSERT_ENTITY', ''],
      ['UPSERT_EDGE', 'seeks'],
    ]);
  });

  it('gives the extractor the relations the memory declared or used, with their cardinality', async () => {
    const { extraction, seen } = withExtractor(() => []);
    const state = fold([]);
    state.relations.set('works_at', 'one');
    state.factsBySubject.set('likes\u0000ent_a', new Set(['f1']));
    await extraction.derive(MEMORY, extraction.context(state, [TURN], 's'), {});
    expect(seen[0]!.relations).toEqual([
      { rel: 'works_at', cardinality: 'one' },
      { rel: 'likes', cardinality: 'many' },
    ]);
  });
});
