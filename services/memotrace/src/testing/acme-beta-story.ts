import { MONDAY, THU, WED } from './alice-joins-acme';

/**
 * The Acme/Beta story as the console (services/console) shows it: Monday's commands, then on Thursday the memory learns
 * that Alice moved to Beta on Wednesday (told by an agent, with a reason the audit keeps).
 */
export const THURSDAY = [
  {
    op: 'RECORD_MENTION',
    mentionId: 'm-thu',
    docId: 'chat-2',
    text: 'I moved to Beta yesterday',
    speaker: 'Alice',
    occurredAt: THU,
    recordedAt: THU,
  },
  {
    op: 'UPSERT_EDGE',
    factId: 'alice-beta',
    src: 'alice',
    rel: 'works_at',
    dst: 'beta',
    validFrom: WED,
    evidence: ['m-thu'],
    recordedAt: THU,
    actor: 'hr-agent',
    reason: 'Alice said she moved',
  },
  {
    op: 'UPSERT_EVENT',
    eventId: 'ev-move',
    summary: 'Alice moved from Acme to Beta',
    includesFacts: ['alice-beta'],
    timeSpan: { from: WED },
    recordedAt: THU,
  },
] as const;

export const STORY = [...MONDAY, ...THURSDAY];
