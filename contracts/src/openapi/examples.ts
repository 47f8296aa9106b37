/**
 * The example bodies of the OpenAPI document: one small story told through every operation. Alice
 * tells an agent in session-1 that she started at Acme; the agent records the turn, the entities, the
 * fact and the event on Monday 6 May 2024 at 09:00; on Tuesday it learns that ACME Corp is Acme
 * and that her contract began on 1 May. operations.unit.spec.ts parses each example with the zod
 * schema it illustrates.
 */

export const MON = '2024-05-06T09:00:00.000Z';
export const TUE = '2024-05-07T09:00:00.000Z';
/** When the example reads happen: a request without recordedAt cuts at its own server time. */
export const NOW = '2024-05-08T12:00:00.000Z';

const TURN = {
  mentionId: 'session-1:1',
  docId: 'session-1',
  text: 'I started at Acme on Monday.',
  speaker: 'Alice',
  occurredAt: '2024-05-06T08:30:00.000Z',
};

const FACT = { factId: 'alice-works-at-acme', src: 'alice', rel: 'works_at', dst: 'acme' };
const FACT_CONTENT = { confidence: 0.9, evidence: [TURN.mentionId], source: 'session-1' };

export const commandsRequest = {
  commands: [
    { op: 'UPSERT_ENTITY', commandId: 'ingest-1:alice', entityId: 'alice', name: 'Alice', types: ['person'], recordedAt: MON },
    { op: 'UPSERT_ENTITY', commandId: 'ingest-1:acme', entityId: 'acme', name: 'Acme', types: ['company'], recordedAt: MON },
    { op: 'DEFINE_RELATION', commandId: 'ingest-1:works_at', rel: 'works_at', cardinality: 'one', recordedAt: MON },
    { op: 'RECORD_MENTION', commandId: 'ingest-1:turn-1', ...TURN, recordedAt: MON },
    { op: 'UPSERT_EDGE', commandId: 'ingest-1:fact', ...FACT, validFrom: '2024-05-06T00:00:00Z', ...FACT_CONTENT, recordedAt: MON, actor: 'agent-7' },
    {
      op: 'UPSERT_EVENT',
      commandId: 'ingest-1:event',
      eventId: 'alice-joins-acme',
      summary: 'Alice joins Acme',
      participants: [
        { entityId: 'alice', role: 'employee' },
        { entityId: 'acme', role: 'employer' },
      ],
      includesFacts: [FACT.factId],
      timeSpan: { from: '2024-05-06T00:00:00Z' },
      recordedAt: MON,
    },
  ],
};

const applied = (commandId: string, ids: Record<string, string>) => ({ commandId, status: 'applied', recordedAt: MON, ids });

export const commandsResponse = {
  position: 6,
  results: [
    applied('ingest-1:alice', { entityId: 'alice' }),
    applied('ingest-1:acme', { entityId: 'acme' }),
    applied('ingest-1:works_at', { rel: 'works_at' }),
    applied('ingest-1:turn-1', { mentionId: TURN.mentionId }),
    applied('ingest-1:fact', { factId: FACT.factId }),
    applied('ingest-1:event', { eventId: 'alice-joins-acme' }),
  ],
};

/** The fact's first version, closed on Tuesday by the retro-correction, and the version that replaced it. */
const firstVersion = { ...FACT, validFrom: '2024-05-06T00:00:00.000Z', validTo: null, recordedFrom: MON, recordedTo: TUE, ...FACT_CONTENT };
const correctedVersion = { ...FACT, validFrom: '2024-05-01T00:00:00.000Z', validTo: null, recordedFrom: TUE, recordedTo: null, ...FACT_CONTENT };

export const memoriesResponse = { memories: [{ memoryId: 'demo', position: 9, latestRecordedAt: TUE }] };

export const factsResponse = {
  cut: { validAt: '2024-05-03T00:00:00.000Z', recordedAt: NOW },
  source: 'projection',
  facts: [correctedVersion],
  next: null,
};

export const checkRequest = {
  claims: [
    { src: 'alice', rel: 'works_at', dst: 'acme' },
    { src: 'alice', rel: 'works_at', dst: 'acme', validAt: '2024-04-15T00:00:00Z' },
  ],
  validAt: '2024-05-03T00:00:00Z',
};

export const checkResponse = {
  cut: { validAt: '2024-05-03T00:00:00.000Z', recordedAt: NOW },
  source: 'projection',
  verdicts: [
    { claim: { src: 'alice', rel: 'works_at', dst: 'acme' }, verdict: 'supported', facts: [correctedVersion] },
    {
      claim: { src: 'alice', rel: 'works_at', dst: 'acme', validAt: '2024-04-15T00:00:00.000Z' },
      verdict: 'not_yet_valid',
      facts: [correctedVersion],
    },
  ],
};

export const consolidateResponse = {
  cooled: 12,
  warmed: 1,
  appended: [
    { commandId: 'consolidate-5d1c0c2e9a4b7f3e8c6a1d2b4e6f8a0c', op: 'UPSERT_TOPIC', status: 'applied' },
    { commandId: 'consolidate-9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b', op: 'UPSERT_EPISODE', status: 'duplicate' },
  ],
  mergeSuggestions: [
    {
      srcId: 'acme-inc',
      dstId: 'acme-corporation',
      score: 0.9,
      why: '"Acme Inc." and "Acme Corporation" name the same organisation once suffixes are dropped',
      evidence: [],
    },
  ],
};

export const historyResponse = { factId: FACT.factId, versions: [firstVersion, correctedVersion] };

export const auditResponse = {
  factId: FACT.factId,
  events: [
    {
      position: 5,
      type: 'FactAsserted',
      recordedAt: MON,
      commandId: 'ingest-1:fact',
      actor: 'agent-7',
      reason: null,
      data: { ...FACT, validFrom: '2024-05-06T00:00:00.000Z', validTo: null, ...FACT_CONTENT },
    },
    {
      position: 9,
      type: 'FactRetroCorrected',
      recordedAt: TUE,
      commandId: 'ingest-2:correct',
      actor: 'agent-7',
      reason: 'her contract began on 1 May',
      data: { factId: FACT.factId, validFrom: '2024-05-01T00:00:00.000Z', validTo: null },
    },
  ],
};

export const entityResponse = {
  entityId: 'acme',
  name: 'Acme',
  names: ['Acme', 'ACME Corp'],
  aliases: ['ACME Corp'],
  types: ['company'],
  merges: [{ entityId: 'acme-corp', into: 'acme', recordedAt: TUE }],
  recordedFrom: MON,
};

export const entitiesResponse = {
  cut: { validAt: NOW, recordedAt: NOW },
  source: 'projection',
  entities: [entityResponse],
  next: null,
};

export const eventsResponse = {
  cut: { validAt: '*', recordedAt: NOW },
  source: 'projection',
  events: [
    {
      eventId: 'alice-joins-acme',
      summary: 'Alice joins Acme',
      timeSpan: { from: '2024-05-06T00:00:00.000Z', to: null },
      participants: [
        { entityId: 'alice', role: 'employee' },
        { entityId: 'acme', role: 'employer' },
      ],
      includesFacts: [FACT.factId],
      recordedFrom: MON,
    },
  ],
  next: null,
};

export const topicsResponse = {
  cut: { validAt: '*', recordedAt: NOW },
  source: 'projection',
  topics: [
    {
      topicId: 'alice-onboarding',
      title: 'Alice: onboarding, Acme, team',
      summary: 'Alice joins Acme as an engineer. Alice meets her team.',
      window: { from: '2024-05-06T00:00:00.000Z', to: '2024-05-11T00:00:00.000Z' },
      members: ['alice-joins-acme'],
      recordedFrom: TUE,
    },
  ],
  next: null,
};

export const episodesResponse = {
  cut: { validAt: '*', recordedAt: NOW },
  source: 'projection',
  episodes: [
    {
      episodeId: 'onboarding',
      title: "Alice's first week at Acme",
      window: { from: '2024-05-06T00:00:00.000Z', to: '2024-05-11T00:00:00.000Z' },
      events: ['alice-joins-acme'],
      recordedFrom: TUE,
    },
  ],
  next: null,
};

export const accessResponse = { accessControl: true, keyId: 'hr-agent', access: 'write', memories: ['demo'] };

const turn = (n: number, speaker: string, text: string) => ({
  mentionId: `session-1:${n}`,
  docId: 'session-1',
  text,
  speaker,
  occurredAt: '2024-05-06T08:30:00.000Z',
  recordedFrom: MON,
});

export const mentionResponse = { ...TURN, recordedFrom: MON };

export const mentionsResponse = {
  cut: { validAt: NOW, recordedAt: NOW },
  source: 'projection',
  docId: 'session-1',
  mentions: [mentionResponse, turn(2, 'agent-7', 'Congratulations! What is your role there?')],
  next: 'session-1:2',
};

export const changesResponse = {
  from: '2024-05-07T00:00:00.000Z',
  to: '2024-05-08T00:00:00.000Z',
  changes: [
    { change: 'closed', at: TUE, version: firstVersion },
    { change: 'opened', at: TUE, version: correctedVersion },
  ],
  next: null,
};

export const searchRequest = { query: 'Where does Alice work, and since when?', validAt: '*', k: 5, tokenBudget: 400 };

export const searchResponse = {
  cut: { validAt: '*', recordedAt: NOW },
  items: [
    {
      kind: 'fact',
      id: FACT.factId,
      text: 'Alice works at Acme',
      score: 1,
      tokens: 5,
      recordedFrom: TUE,
      validFrom: '2024-05-01T00:00:00.000Z',
      validTo: null,
      evidence: [{ kind: 'mention', id: TURN.mentionId }],
      salience: 0.62,
      tier: 'hot',
    },
    {
      kind: 'mention',
      id: TURN.mentionId,
      text: '[6 May 2024] Alice: I started at Acme on Monday.',
      score: 0.92,
      tokens: 17,
      recordedFrom: MON,
      occurredAt: TURN.occurredAt,
      evidence: [],
      salience: 0.41,
      tier: 'hot',
    },
    {
      kind: 'event',
      id: 'alice-joins-acme',
      text: 'Alice joins Acme',
      score: 0.85,
      tokens: 4,
      recordedFrom: MON,
      validFrom: '2024-05-06T00:00:00.000Z',
      validTo: null,
      evidence: [{ kind: 'fact', id: FACT.factId }],
      salience: 0.55,
      tier: 'hot',
    },
  ],
  tokens: 26,
  unembedded: 0,
};

/** Two lines of an export: what `GET …/export` answers and `POST …/import` takes. */
export const exportJsonl =
  [
    { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', aliases: [], types: ['person'], commandId: 'ingest-1:alice', recordedAt: MON },
    {
      op: 'RETRO_CORRECT',
      factId: FACT.factId,
      validFrom: '2024-05-01T00:00:00.000Z',
      validTo: null,
      commandId: 'ingest-2:correct',
      recordedAt: TUE,
    },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n') + '\n';

export const importResponse = { position: 9, imported: 9 };

export const memoryDeleted = { memoryId: 'demo', deleted: true, records: 9 };

export const verifyResponse = {
  memoryId: 'demo',
  recordedAt: NOW,
  consistent: true,
  compared: 14,
  validityBounds: 2,
  validAts: ['*', '2024-05-01T00:00:00.000Z', '2024-05-06T00:00:00.000Z'],
  differences: [],
};

export const rebuildRequest = { to: '2024-05-07T00:00:00Z' };

export const rebuildStarted = {
  state: 'running',
  to: '2024-05-07T00:00:00.000Z',
  startedAt: NOW,
  progress: {
    schema: 'rm_snapshot_1715040000000',
    to: '2024-05-07T00:00:00.000Z',
    phase: 'building',
    done: 0,
    total: 9,
    applied: 0,
    eventsPerSecond: 0,
    etaSeconds: null,
    elapsedMs: 0,
  },
  result: null,
  error: null,
};

export const rebuildDone = {
  state: 'done',
  to: null,
  startedAt: NOW,
  progress: null,
  result: { schema: 'rm_build_1715169600000', mode: 'switched', position: 9, applied: 9, elapsedMs: 412, eventsPerSecond: 21.8 },
  error: null,
};

export const healthz = { status: 'ok' };
export const readyz = { status: 'ready' };

export const metricsText = [
  '# HELP memotrace_http_request_duration_seconds HTTP request latency by route and status',
  '# TYPE memotrace_http_request_duration_seconds histogram',
  'memotrace_http_request_duration_seconds_bucket{le="0.025",method="POST",route="/v1/memories/:memoryId/commands",status="200"} 1',
  "# HELP memotrace_projection_lag_events the log's highest position minus the projection's checkpoint",
  '# TYPE memotrace_projection_lag_events gauge',
  'memotrace_projection_lag_events{projection="read-models"} 0',
  '',
].join('\n');

export const docsDocument = {
  openapi: '3.1.0',
  info: { title: 'MemoTrace', version: '1.0.0' },
  paths: { '/v1/memories': { get: { operationId: 'listMemories' } } },
};

export const mcpRequest = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'read_facts', arguments: { memoryId: 'demo', src: 'alice', validAt: '2024-05-03T00:00:00Z' } },
};

export const mcpResponse = {
  jsonrpc: '2.0',
  id: 1,
  result: { content: [{ type: 'text', text: JSON.stringify(factsResponse) }], structuredContent: factsResponse },
};

const SESSION = 'session-7';
const SAID = '2024-05-11T18:30:00.000Z';

/** Two turns of a dialog; the extractor derives what they state. */
export const turnsRequest = {
  sessionId: SESSION,
  turns: [
    { turnId: 'session-7:1', speaker: 'Alice', text: 'I moved to Lyon last month.', at: '2024-05-11T18:30:00Z' },
    { turnId: 'session-7:2', speaker: 'Bob', text: 'Nice! How is the new flat?', at: '2024-05-11T18:31:00Z' },
  ],
  extraction: 'sync',
};

const DERIVED_ID = 'x_3f1c0a9d2e7b4c5a6f8e9d0c';

export const turnsResponse = {
  position: 9,
  results: [
    { commandId: 'turn_8a41d2f0c3b5e6a7d8c9b0a1', status: 'applied', recordedAt: SAID, ids: { mentionId: 'session-7:1' } },
    { commandId: 'turn_0b7e5d3c1a9f8e7d6c5b4a39', status: 'applied', recordedAt: SAID, ids: { mentionId: 'session-7:2' } },
  ],
  derived: [
    {
      commandId: DERIVED_ID,
      op: 'UPSERT_EDGE',
      status: 'applied',
      ids: { factId: 'alice-lives-in-lyon' },
      turns: ['session-7:1'],
    },
  ],
};

export const derivedResponse = {
  mentionId: 'session-7:1',
  commands: [
    {
      op: 'UPSERT_EDGE',
      factId: 'alice-lives-in-lyon',
      src: 'alice',
      rel: 'lives_in',
      dst: { literal: 'Lyon', datatype: 'string' },
      validFrom: '2024-04-01T00:00:00.000Z',
      validTo: null,
      confidence: 0.8,
      evidence: ['session-7:1'],
      source: null,
      commandId: DERIVED_ID,
      recordedAt: SAID,
      actor: 'extractor:rules@2.0.0',
      reason: '"moved to" a place (confidence 0.80)',
      derivedFrom: ['session-7:1'],
    },
  ],
  extraction: { status: 'none' },
};

/** Re-extraction of one session with a new extractor version. */
export const reextractRequest = { sessionId: 'session-7' };

export const extractionSettings = { memoryId: 'agent-42', extractor: 'rules@2.0.0', gate: 0.7, memoryGate: 0.7, defaultGate: 0.5 };

export const reextractResponse = { jobs: 1, turns: 2, extractor: 'rules@2.0.0' };
