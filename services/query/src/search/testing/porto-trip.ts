import type { WireCommandInput } from '@memotrace/contracts';

/**
 * Maya's trip to Porto, long over, beside where she lives (open-ended): a question about the past
 * ("When did Maya go to Porto?") must find the trip without being given a cut.
 */
export const PORTO_SAID_AT = '2023-05-08T10:00:00.000Z';

export const PORTO_TRIP: readonly WireCommandInput[] = [
  { op: 'UPSERT_ENTITY', entityId: 'maya', name: 'Maya', recordedAt: PORTO_SAID_AT },
  { op: 'UPSERT_ENTITY', entityId: 'porto', name: 'Porto', recordedAt: PORTO_SAID_AT },
  { op: 'UPSERT_ENTITY', entityId: 'lisbon', name: 'Lisbon', recordedAt: PORTO_SAID_AT },
  {
    op: 'RECORD_MENTION',
    mentionId: 'said',
    docId: 'chat',
    speaker: 'Maya',
    text: 'Back from Porto, what a trip!',
    occurredAt: PORTO_SAID_AT,
    recordedAt: PORTO_SAID_AT,
  },
  {
    op: 'UPSERT_EDGE',
    factId: 'maya-lisbon',
    src: 'maya',
    rel: 'lives_in',
    dst: 'lisbon',
    validFrom: '2021-01-01T00:00:00.000Z',
    recordedAt: PORTO_SAID_AT,
  },
  {
    op: 'UPSERT_EDGE',
    factId: 'maya-in-porto',
    src: 'maya',
    rel: 'stayed_in',
    dst: 'porto',
    validFrom: '2023-05-01T00:00:00.000Z',
    validTo: '2023-05-07T00:00:00.000Z',
    evidence: ['said'],
    recordedAt: PORTO_SAID_AT,
  },
  {
    op: 'UPSERT_EVENT',
    eventId: 'porto-trip',
    summary: 'Maya went to Porto',
    includesFacts: ['maya-in-porto'],
    timeSpan: { from: '2023-05-01T00:00:00.000Z', to: '2023-05-07T00:00:00.000Z' },
    recordedAt: PORTO_SAID_AT,
  },
];
