import type { Instant } from '@memotrace/domain';
import { type CommandDraft, eraseCommand } from './random-log';

/**
 * Erasure (SPEC §5.2) as a story: canary strings in every content field (names, aliases, types,
 * literals, sources, summaries, texts, speakers), then erasures of an entity, a document, a fact
 * and a mention, then new content for the erased subjects. Each step is a list of commands
 * recorded together; nothing outside the erased content holds "canary".
 */
const DAYS = { SUN: '2024-05-05', MON: '2024-05-06', TUE: '2024-05-07', WED: '2024-05-08', THU: '2024-05-09', FRI: '2024-05-10', SAT: '2024-05-11' };
export const at = (day: keyof typeof DAYS, hhmm = '00:00'): Instant => `${DAYS[day]}T${hhmm}:00.000Z`;
const literal = (value: string) => ({ literal: value, datatype: 'string' as const });

/** The erased content's marker: no read model may hold it once the story is projected. */
export const CANARY = 'canary';

export const ERASURE_STORY: CommandDraft[][] = [
  [
    { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'CanaryAlice', aliases: ['CanaryAli'], types: ['canary-type'], recordedAt: at('MON', '09:00') },
    { op: 'UPSERT_ENTITY', entityId: 'ally', name: 'Ally', recordedAt: at('MON', '09:00') },
    { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: at('MON', '09:00') },
    { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob', recordedAt: at('MON', '09:00') },
    {
      op: 'UPSERT_EDGE',
      factId: 'f-works',
      src: 'alice',
      rel: 'works_at',
      dst: 'acme',
      validFrom: at('MON'),
      source: 'canary-source-1',
      recordedAt: at('MON', '09:00'),
    },
    {
      op: 'UPSERT_EDGE',
      factId: 'f-email',
      src: 'alice',
      rel: 'email',
      dst: literal('canary@example.org'),
      source: 'canary-source-2',
      recordedAt: at('MON', '09:00'),
    },
    { op: 'UPSERT_EDGE', factId: 'f-city', src: 'acme', rel: 'city', dst: literal('Paris'), source: 'website', recordedAt: at('MON', '09:00') },
    {
      op: 'UPSERT_EDGE',
      factId: 'f-age',
      src: 'bob',
      rel: 'age',
      dst: { literal: 4242, datatype: 'number' },
      source: 'canary-source-3',
      recordedAt: at('MON', '09:00'),
    },
    {
      op: 'UPSERT_EVENT',
      eventId: 'ev-join',
      summary: 'CanaryAlice joined Acme',
      participants: [{ entityId: 'alice', role: 'agent' }],
      includesFacts: ['f-works'],
      timeSpan: { from: at('MON') },
      recordedAt: at('MON', '09:00'),
    },
    {
      op: 'UPSERT_EVENT',
      eventId: 'ev-bob',
      summary: 'Bob left',
      participants: [{ entityId: 'bob', role: 'agent' }],
      includesFacts: [],
      timeSpan: { from: at('MON') },
      recordedAt: at('MON', '09:00'),
    },
    { op: 'RECORD_MENTION', mentionId: 'm1', docId: 'd1', text: 'canary text one', speaker: 'CanarySpeaker', recordedAt: at('MON', '09:00') },
    { op: 'RECORD_MENTION', mentionId: 'm2', docId: 'd1', text: 'canary text two', recordedAt: at('MON', '09:00') },
    { op: 'RECORD_MENTION', mentionId: 'm3', docId: 'd2', text: 'unrelated', speaker: 'Bob', recordedAt: at('MON', '09:00') },
    { op: 'RECORD_MENTION', mentionId: 'm4', docId: 'd2', text: 'canary text four', speaker: 'CanarySpeaker', recordedAt: at('MON', '09:00') },
  ],
  [
    { op: 'RETRO_CORRECT', factId: 'f-email', validFrom: at('SUN'), recordedAt: at('TUE', '09:00') },
    {
      op: 'UPSERT_EVENT',
      eventId: 'ev-join',
      summary: 'CanaryAlice joined Acme again',
      participants: [{ entityId: 'alice', role: 'agent' }],
      includesFacts: ['f-works'],
      timeSpan: { from: at('MON') },
      recordedAt: at('TUE', '09:00'),
    },
    { op: 'MERGE_ENTITY', srcId: 'ally', dstId: 'alice', recordedAt: at('TUE', '09:00') },
    { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'CanaryAlice', aliases: ['CanaryAlicia'], recordedAt: at('TUE', '09:00') },
  ],
  [{ ...eraseCommand({ entityId: 'alice' }), recordedAt: at('WED', '09:00') } as CommandDraft],
  [{ ...eraseCommand({ docId: 'd1' }), recordedAt: at('WED', '10:00') } as CommandDraft],
  [
    { ...eraseCommand({ factId: 'f-age' }), recordedAt: at('WED', '11:00') } as CommandDraft,
    { ...eraseCommand({ mentionId: 'm4' }), recordedAt: at('WED', '11:00') } as CommandDraft,
  ],
  [
    { op: 'RETRO_CORRECT', factId: 'f-email', validTo: at('SAT'), recordedAt: at('THU', '09:00') },
    {
      op: 'UPSERT_EDGE',
      factId: 'f-email',
      src: 'alice',
      rel: 'email',
      dst: literal('new@example.org'),
      source: 'new source',
      recordedAt: at('FRI', '09:00'),
    },
    { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice Again', aliases: ['Ali'], types: ['person'], recordedAt: at('FRI', '09:00') },
    {
      op: 'UPSERT_EVENT',
      eventId: 'ev-join',
      summary: 'Alice Again rejoined',
      participants: [{ entityId: 'alice', role: 'agent' }],
      includesFacts: [],
      timeSpan: { from: at('FRI') },
      recordedAt: at('FRI', '09:00'),
    },
  ],
];
