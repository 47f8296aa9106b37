import type { ExtractionInput } from '../../port';

/**
 * A dialog written for these tests (no corpus text), and the answer a model could give for it,
 * written by hand: shared by the unit specs and the local-server spec.
 */

export const MEMORY_ID = 'mem-llm-test';

export const dialog: ExtractionInput = {
  memoryId: MEMORY_ID,
  window: [
    { mentionId: 'w0', sessionId: 's1', speaker: 'Jonas', text: 'Hey Maya, long time no see. How is the bakery?', at: '2024-05-08T14:59:00.000Z' },
  ],
  turns: [
    { mentionId: 't1', sessionId: 's1', speaker: 'Maya', text: 'I left it! And I moved to Porto last Saturday.', at: '2024-05-08T15:00:00.000Z' },
    { mentionId: 't2', sessionId: 's1', speaker: 'Jonas', text: 'Porto, wow. What are you doing there?', at: '2024-05-08T15:01:00.000Z' },
    {
      mentionId: 't3',
      sessionId: 's1',
      speaker: 'Maya',
      text: 'I started at Riverside Clinic yesterday, and my dog Biscuit loves the new flat.',
      at: '2024-05-08T15:02:00.000Z',
    },
  ],
  entities: [
    { entityId: 'ent_maya', name: 'Maya', aliases: ['May'], types: ['person'] },
    { entityId: 'ent_jonas', name: 'Jonas', aliases: [], types: ['person'] },
  ],
};

/** A good answer: relative dates resolved against the turns' `at` (Wednesday 8 May 2024). */
export const goodAnswer = {
  items: [
    { command: { op: 'UPSERT_ENTITY', name: 'Porto', aliases: [], types: ['place'] }, confidence: 0.95, turns: ['t1'], why: 'city Maya moved to' },
    {
      command: { op: 'UPSERT_ENTITY', name: 'Riverside Clinic', aliases: [], types: ['organisation'] },
      confidence: 0.9,
      turns: ['t3'],
      why: 'new job',
    },
    { command: { op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one' }, confidence: 0.9, turns: ['t1'], why: 'one home at a time' },
    {
      command: { op: 'UPSERT_EDGE', src: 'ent_maya', rel: 'lives_in', dst: 'Porto', validFrom: '2024-05-04T00:00:00Z', validTo: null },
      confidence: 0.9,
      turns: ['t1'],
      why: 'says she moved to Porto',
    },
    {
      command: {
        op: 'UPSERT_EVENT',
        summary: 'Maya moved to Porto',
        participants: [{ entityId: 'May', role: 'mover' }],
        timeSpan: { from: '2024-05-04T00:00:00Z', to: '2024-05-05T00:00:00Z' },
        factItems: [3],
      },
      confidence: 0.95,
      turns: ['t1'],
      why: 'move last Saturday',
    },
    {
      command: { op: 'UPSERT_EDGE', src: 'Maya', rel: 'works_at', dst: 'Riverside Clinic', validFrom: '2024-05-07T02:00:00+02:00', validTo: null },
      confidence: 0.85,
      turns: ['t3'],
      why: 'started a new job yesterday',
    },
    { command: { op: 'UPSERT_ENTITY', name: 'Biscuit', aliases: [], types: ['pet', 'dog'] }, confidence: 0.6, turns: ['t3'], why: 'her dog' },
    {
      command: { op: 'UPSERT_EDGE', src: 'ent_maya', rel: 'has_pet', dst: 'Biscuit', validFrom: '2024-05-08T15:02:00Z', validTo: null },
      confidence: 0.9,
      turns: ['t3', 't3'],
      why: 'my dog Biscuit',
    },
  ],
};

/** An answer with one good item and one of each kind of invalid item. */
export const mixedAnswer = {
  items: [
    { command: { op: 'ARCHIVE_EDGE', factId: 'fact_old_job' }, confidence: 0.9, turns: ['t1'], why: 'left the bakery' },
    {
      command: {
        op: 'UPSERT_EDGE',
        src: 'ent_maya',
        rel: 'lives_in',
        dst: { literal: 'Porto', datatype: 'string' },
        validFrom: '2024-05-04T00:00:00Z',
        validTo: null,
      },
      confidence: 0.9,
      turns: ['w0'],
      why: 'cites a context turn',
    },
    { command: { op: 'UPSERT_ENTITY', name: 'Porto', aliases: [], types: [] }, confidence: 2, turns: ['t1'], why: 'confidence out of range' },
    {
      command: {
        op: 'UPSERT_EDGE',
        src: 'ent_maya',
        rel: 'left',
        dst: { literal: 'bakery', datatype: 'string' },
        validFrom: '2024-05-08T15:00:00Z',
        validTo: null,
      },
      confidence: 0.8,
      turns: ['t1'],
      why: 'left the bakery',
    },
  ],
};
