/**
 * The search tests' story: on Monday Alice joins Acme (entities, a one-relation, the mention
 * that evidences the fact, an event and an episode over it); on Thursday each test records
 * her move to Beta in its own words.
 */
export const MON = '2024-05-06T09:00:00.000Z';
export const WED = '2024-05-08T00:00:00.000Z';
export const WED_NOON = '2024-05-08T12:00:00.000Z';
export const THU = '2024-05-09T10:00:00.000Z';

export const MONDAY = [
  { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: MON },
  { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: MON },
  { op: 'UPSERT_ENTITY', entityId: 'beta', name: 'Beta', recordedAt: MON },
  { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one', recordedAt: MON },
  { op: 'RECORD_MENTION', mentionId: 'm-mon', docId: 'chat-1', text: 'I started at Acme today', speaker: 'Alice', occurredAt: MON, recordedAt: MON },
  {
    op: 'UPSERT_EDGE',
    factId: 'alice-acme',
    src: 'alice',
    rel: 'works_at',
    dst: 'acme',
    validFrom: '2024-05-06T00:00:00Z',
    evidence: ['m-mon'],
    recordedAt: MON,
  },
  {
    op: 'UPSERT_EVENT',
    eventId: 'ev-join',
    summary: 'Alice joined Acme',
    includesFacts: ['alice-acme'],
    timeSpan: { from: '2024-05-06T00:00:00Z' },
    recordedAt: MON,
  },
  {
    op: 'UPSERT_EPISODE',
    episodeId: 'ep-onboarding',
    title: 'Alice onboarding at Acme',
    window: { from: '2024-05-06T00:00:00Z' },
    events: ['ev-join'],
    recordedAt: MON,
  },
] as const;
