import { z } from 'zod';
import * as admin from '../admin';
import * as check from '../check';
import * as consolidate from '../consolidate';
import * as cmd from '../commands';
import * as mcp from '../mcp';
import { searchRequest } from '../queries';
import * as res from '../responses';
import * as turns from '../turns';
import { JSONL_CONTENT_TYPE, importResponse, parseImportJsonl } from '../transfer';
import * as ex from './examples';

/**
 * What the OpenAPI document says about each operation beyond its parameters and schemas: summary,
 * description, tags, and an example of its request body (when it has one) and of its success
 * response, each with the zod schema it illustrates. document.ts takes every operation's text from
 * here and refuses to build without it; operations.unit.spec.ts parses each example with its schema.
 */

export const TAGS = [
  { name: 'commands', description: 'Write to a memory: batches of DSL commands, appended atomically to its log.' },
  {
    name: 'reads',
    description:
      'Time-cut reads of one memory: what it believed at a record time about a valid time. Each read takes ' +
      '`minPosition` (read your writes), and the listings also `consistency=replay` (exact replay of the log instead of the read models).',
  },
  { name: 'search', description: 'Ranked, auditable retrieval within a cut and a token budget.' },
  { name: 'audit', description: 'Who changed what, when and why: the log records behind a fact, and the versions opened or closed in a period.' },
  { name: 'transfer', description: "Export a memory's log as JSONL and import it into an empty memory." },
  {
    name: 'operations',
    description: 'Health, metrics, this document, verification of the read models, their blue/green rebuild, and deleting a memory.',
  },
  { name: 'mcp', description: 'The Model Context Protocol endpoint: the memory as tools for agents.' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

/** A body (request or response) and its example. JSON unless `contentType` says otherwise. */
export interface BodyExample {
  /** The zod schema the example must parse with: for JSON, the component the operation's body refers to. */
  schema: z.ZodType;
  example: unknown;
  contentType?: string;
}

export interface OperationDoc {
  summary: string;
  description: string;
  tags: readonly [Tag, ...Tag[]];
  request?: BodyExample;
  /** The success response; `status` defaults to 200. */
  response: BodyExample & { status?: '200' | '202' };
}

/** An export file (and an import body): one command per line, each with commandId and recordedAt. */
const jsonlLog = z.string().superRefine((text, ctx) => {
  const parsed = parseImportJsonl(text);
  if (!parsed.ok) for (const d of parsed.details) ctx.addIssue({ code: 'custom', message: `${d.path}: ${d.message}` });
  else if (parsed.commands.length === 0) ctx.addIssue({ code: 'custom', message: 'holds no command' });
});

/** Prometheus text exposition: comments, and samples `name{labels} value`. */
const prometheusText = z
  .string()
  .refine((text) => text.split('\n').every((line) => line === '' || line.startsWith('# ') || /^[a-zA-Z_:][\w:]*(\{.*\})? \S+$/.test(line)), {
    error: 'is not Prometheus text',
  });

const openApiDocument = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

const CUT_TEXT =
  'Each of `validAt` and `recordedAt` defaults to the request time; `validAt=*` takes every valid time. The answer names its cut, ' +
  'so a later request can repeat it: an answer at a record time that is past never changes (cut isolation). Waits (bounded) ' +
  "for the read models to reach the memory's last write, or `minPosition`.";

export const OPERATIONS: Record<string, OperationDoc> = {
  listMemories: {
    summary: 'List the memories the caller may read',
    description:
      'Every memory the key may read (all of them without access control), sorted by memoryId, each with its position (the length ' +
      'of its log, a `minPosition` token) and the `recordedAt` of its last record. A memory exists from its first accepted command.',
    tags: ['reads'],
    response: { schema: res.memoriesResponse, example: ex.memoriesResponse },
  },
  getAccess: {
    summary: 'What the key of the request may do',
    description:
      "The key's id (the `actor` of its commands), its access level (`read`, `write` or `admin`) and the memories it is scoped to " +
      '(`["*"]`: all), so a client offers only what the key may do. Any valid key may ask. Without access control (no keys configured, ' +
      'loopback only) everything is allowed: `accessControl` is false, `keyId` null, `access` `admin`.',
    tags: ['operations'],
    response: { schema: res.accessResponse, example: ex.accessResponse },
  },
  postCommands: {
    summary: 'Apply a batch of DSL commands atomically',
    description:
      'Decides 1..1000 commands against the memory and appends them in one atomic write: all accepted or nothing written. A command ' +
      'resent with a known `commandId` is `duplicate` with its original result; one that would change nothing is `unchanged`. ' +
      "`recordedAt` is the client's (never earlier than the memory's latest: 409 RECORD_TIME_REGRESSION) or the server clock. " +
      "The answer's `position` is a consistency token: pass it as `minPosition` to read your writes. The first write creates the memory. " +
      'A batch with an `ERASE` needs an admin key when keys are configured (403 otherwise, and nothing of the batch is written).',
    tags: ['commands'],
    request: { schema: cmd.commandsRequest, example: ex.commandsRequest },
    response: { schema: res.commandsResponse, example: ex.commandsResponse },
  },
  postTurns: {
    summary: 'Record dialog turns, and what an extractor derives from them',
    description:
      'Records 1..1000 turns of session `sessionId` as mentions (`mentionId` = `turnId`, else derived from sessionId, at, speaker and ' +
      'text; a resent turn is `duplicate` and derives nothing new). `extraction` (default `sync`): `sync` derives DSL commands ' +
      '(entities, facts, events) from the new turns and appends them with the turns as one atomic batch at one `recordedAt`; ' +
      '`async` appends the turns at once and a job derives from them later, each derived command recorded when it is derived ' +
      '(`GET …/mentions/{mentionId}/derived` says how the job stands; a failed one is retried, the turns stay); ' +
      '`off` records the turns only. Derived commands carry `actor` `extractor:<name>@<version>`, a confidence, their turns in ' +
      "`derivedFrom` (and as a fact's `evidence`); only those reaching the memory's confidence gate are appended. An extractor " +
      'that fails or times out in `sync` mode answers 502 EXTRACTION_FAILED and nothing is written.',
    tags: ['commands'],
    request: { schema: turns.turnsRequest, example: ex.turnsRequest },
    response: { schema: turns.turnsResponse, example: ex.turnsResponse },
  },
  postReextract: {
    summary: 'Derive again from recorded turns with the current extractor',
    description:
      "Queues async extraction jobs for the memory's recorded turns (every mention with text and a time, sent through `/turns` or " +
      'as a `RECORD_MENTION`; erased ones are left out), all sessions or only `sessionId`: one session per job, up to 50 turns each, ' +
      "in dialog order, run by the service's current extractor, each derived command recorded when it is derived. Nothing is " +
      'deleted: the same extractor version derives the same command ids (`duplicate`, nothing new); a new version derives new ' +
      "commands, which supersede the old ones through the DSL (a `one` relation's new fact closes the old one's validity). " +
      '`GET …/mentions/{mentionId}/derived` lists both and says how the latest job stands. 404 UNKNOWN_MEMORY for a memory without a log.',
    tags: ['commands'],
    request: { schema: turns.reextractRequest, example: ex.reextractRequest },
    response: { schema: turns.reextractResponse, example: ex.reextractResponse, status: '202' },
  },
  getExtraction: {
    summary: "The memory's extraction gate and the process's extractor",
    description:
      "How the memory's turns are derived from: the serving process's extractor and default gate (`EXTRACTION_GATE`), the memory's " +
      'own gate, and the one in effect (the least confidence of a derived command appended). A memory sets its gate with the command ' +
      '`SET_EXTRACTION_GATE` (`{"op": "SET_EXTRACTION_GATE", "gate": 0.7}`; `null` returns to the default): a logged command like any ' +
      'other, so export, import and replay carry it. Served by the writing processes, which run extraction. 404 UNKNOWN_MEMORY for a ' +
      'memory without a log.',
    tags: ['commands'],
    response: { schema: turns.extractionSettings, example: ex.extractionSettings },
  },
  getDerivedCommands: {
    summary: 'The commands derived from a mention',
    description:
      'Every accepted command whose `derivedFrom` names the mention (a dialog turn), in log order, as the export writes it, and ' +
      '`extraction`: how the latest async extraction job naming the turn stands (`none`, `pending`, `failed` with its error and ' +
      'attempts, `done`). 404 UNKNOWN_MENTION when the memory never recorded the mention.',
    tags: ['audit'],
    response: { schema: turns.derivedResponse, example: ex.derivedResponse },
  },
  getFacts: {
    summary: 'Fact versions in a bitemporal cut',
    description:
      'The fact versions in the cut `(validAt, recordedAt)`: recorded at or before `recordedAt` and not closed by then, and valid at ' +
      '`validAt`; at most one version per fact, sorted by factId. `src`, `rel` and `dst` filter (an entity id also matches the ' +
      'entities merged with it by then); `src` may be given several times, for the facts from any of those entities. With `limit`, ' +
      "a page: for the next one pass `next` as `after`, with this answer's `cut`. `include=entities` adds the entities the " +
      "answer's facts name (src and an entity dst), as the entities read shows them: facts and their names in one request. " +
      `${CUT_TEXT} \`consistency=replay\` answers by exact replay of the log: the same answer.`,
    tags: ['reads'],
    response: { schema: res.factsResponse, example: ex.factsResponse },
  },
  getFactHistory: {
    summary: 'Every version of a fact',
    description:
      'Every version of the fact, oldest first, with its valid and record intervals; with `recordedAt`, only what was recorded by ' +
      'then (a version closed later shows `recordedTo: null`).',
    tags: ['reads'],
    response: { schema: res.historyResponse, example: ex.historyResponse },
  },
  getFactAudit: {
    summary: 'The log records that touched a fact',
    description:
      "Every log record that touched the fact, in log order, each with the memory's position right after it, its type, " +
      '`recordedAt`, the `commandId`, who sent it (`actor`), why (`reason`) and its data.',
    tags: ['audit'],
    response: { schema: res.auditResponse, example: ex.auditResponse },
  },
  getEntity: {
    summary: 'An entity at a record time',
    description:
      'The entity as known at `recordedAt` (default now): its name, the names and aliases of the entities merged into it, its types ' +
      'and merges. Asked by the id of an entity merged away, it answers the entity it was merged into.',
    tags: ['reads'],
    response: { schema: res.entityResponse, example: ex.entityResponse },
  },
  listEntities: {
    summary: 'Find entities by name, alias or type',
    description:
      'The canonical entities visible at `recordedAt` (an entity merged into another is listed as that one), sorted by entityId. ' +
      '`name` matches an entity name or alias case-insensitively, with whitespace normalised, exactly or (`match=prefix`) as a ' +
      'prefix; `type` keeps the entities with that type. A page holds `limit` entities; for the next one pass `next` as `after`, ' +
      "with this answer's `cut.recordedAt`. `ids` (given once per id) keeps the entities those ids name, each as its canonical entity: " +
      'one request for the names of many. Entities have no valid time, so `validAt` filters none of them. ' +
      CUT_TEXT,
    tags: ['reads'],
    response: { schema: res.entitiesResponse, example: ex.entitiesResponse },
  },
  getEvents: {
    summary: 'L2 events visible in a cut',
    description:
      'The events recorded by `recordedAt` whose evidence (`includesFacts`) is believed then in full, and whose time span holds ' +
      '`validAt` (every span with `validAt=*`), sorted by eventId. `entity` keeps the events about an entity (or an entity merged ' +
      'with it by then): it takes part in them, or a fact of their evidence is from or to it. With `limit`, a page: for the next ' +
      `one pass \`next\` as \`after\`, with this answer's \`cut\`. ${CUT_TEXT}`,
    tags: ['reads'],
    response: { schema: res.eventsResponse, example: ex.eventsResponse },
  },
  listEpisodes: {
    summary: 'Episodes visible in a cut',
    description:
      'The episodes recorded by `recordedAt` with at least one of their events visible then (at any valid time), each listing ' +
      'only those events, in its own order; with a `validAt`, only episodes whose window holds it (every window with `validAt=*`). ' +
      "Sorted by episodeId, a page of `limit` at a time: for the next one pass `next` as `after`, with this answer's `cut`. " +
      `${CUT_TEXT} \`consistency=replay\` answers by exact replay of the log: the same answer.`,
    tags: ['reads'],
    response: { schema: res.episodesResponse, example: ex.episodesResponse },
  },
  listTopics: {
    summary: 'Durative topics visible in a cut',
    description:
      'What went on over a period (SPEC 5.4): the topics recorded by `recordedAt` with at least one member (a mention, event or ' +
      'fact) visible then (at any valid time), each listing only those members, in its own order. `validAt` defaults to `*`; a ' +
      'given one keeps the topics whose window holds it. Consolidation (`POST .../consolidate`) derives topics; `UPSERT_TOPIC` ' +
      "writes one. Sorted by topicId, a page of `limit` at a time: for the next one pass `next` as `after`, with this answer's `cut`. " +
      '`consistency=replay` answers by exact replay of the log: the same answer.',
    tags: ['reads'],
    response: { schema: res.topicsResponse, example: ex.topicsResponse },
  },
  listMentions: {
    summary: "A document's mentions in document order",
    description:
      "The mentions of document `docId` (a conversation's turns: `docId` is the session id) recorded by `recordedAt`, in document " +
      'order: by `occurredAt` (mentions without one last), then by mentionId in natural order (`D1:9` before `D1:10`). Mentions have ' +
      'no valid time, so `validAt` filters none of them. A page holds `limit` mentions; for the next one pass `next` as `after`, ' +
      `with this answer's \`cut.recordedAt\` so that the pages fit together. An unknown document has no mentions. ${CUT_TEXT}`,
    tags: ['reads'],
    response: { schema: res.mentionsResponse, example: ex.mentionsResponse },
  },
  getMention: {
    summary: 'One mention',
    description:
      'The mention as recorded (mentions never change), if recorded by `recordedAt` (default now); else 404 UNKNOWN_MENTION. ' +
      'Fact versions name their mentions in `evidence`.',
    tags: ['reads'],
    response: { schema: res.mentionView, example: ex.mentionResponse },
  },
  getChanges: {
    summary: 'Fact versions opened or closed in a record-time window',
    description:
      'Every fact version opened or closed with record time in `[from, to)` (`to` defaults to the request time), in record-time ' +
      'order: what the memory learned or stopped believing in that period. With `limit`, a page of whole record instants (at least ' +
      'one, which may hold more than `limit` changes): the answer is then the window `[from, next)`, its `to`, answered as if asked ' +
      'for it; the following page starts at `next`.',
    tags: ['audit'],
    response: { schema: res.changesResponse, example: ex.changesResponse },
  },
  search: {
    summary: 'Search a memory within a cut and a token budget',
    description:
      'A compact, auditable subgraph for a natural-language query: ranked facts, events, mentions and episodes visible in the cut, ' +
      'each with its evidence. `validAt` defaults to `*` (everything believed at `recordedAt`). `k` caps the items of each kind and ' +
      '`tokenBudget` the total tokens; neither changes the ranking, they only cut it.',
    tags: ['search'],
    request: { schema: searchRequest, example: ex.searchRequest },
    response: { schema: res.searchResponse, example: ex.searchResponse },
  },
  check: {
    summary: 'Check claims an agent is about to make against a cut',
    description:
      'One verdict per claim `(src, rel, dst)` at the cut, the first of these that applies: `supported` (a version of the fact is ' +
      'in the cut), `contradicted` (the relation is declared `one` and another value is in the cut), `outdated` (a believed ' +
      'version ended by `validAt`), `not_yet_valid` (a believed version starts after `validAt`), `retracted` (a version was ' +
      'believed before `recordedAt` and none is now), `unknown`; with the fact versions it rests on. Ids resolve through the ' +
      "merges known at `recordedAt`. Instead of `claims`, `text` (an agent's draft answer) is read by the memory's extractor, " +
      'as a turn said by `speaker` at `validAt`; the answer then lists the claims it read. `consistency=replay` answers by replay.',
    tags: ['reads'],
    request: { schema: check.checkRequest, example: ex.checkRequest },
    response: { schema: check.checkResponse, example: ex.checkResponse },
  },
  consolidate: {
    summary: "Run the memory's evolution now",
    description:
      "SPEC 5.4 (it also runs in the background, every `CONSOLIDATE_INTERVAL_MS`): cooling and warming by the memory's " +
      '`SET_TIER_POLICY`, episodes of low-salience events of one participant set and month, durative topics, and merge ' +
      'suggestions for near-duplicate entities (never a merge: `MERGE_ENTITY` accepts one). What it derives is appended as ' +
      'ordinary commands of actor `consolidator:<name>@<version>` whose ids are digests of their content: a second run over the ' +
      'same memory appends nothing (every command `duplicate`). The body is `{}`. 404 UNKNOWN_MEMORY for a memory without records.',
    tags: ['commands'],
    request: { schema: consolidate.consolidateRequest, example: {} },
    response: { schema: consolidate.consolidateResponse, example: ex.consolidateResponse },
  },
  exportMemory: {
    summary: "Export a memory's log as JSONL",
    description:
      'One accepted command per line, in log order, each with its `recordedAt` and `commandId` (an `unchanged` command included): ' +
      'the body `POST …/import` takes.',
    tags: ['transfer'],
    response: { schema: jsonlLog, example: ex.exportJsonl, contentType: JSONL_CONTENT_TYPE },
  },
  importMemory: {
    summary: 'Import an exported log into an empty memory',
    description:
      'Replays a JSONL export into an empty memory in one atomic write (409 MEMORY_NOT_EMPTY otherwise); afterwards every query ' +
      'answers as in the original. Every line needs its `commandId` and `recordedAt`; a bad line is 400 naming it (`line.3.validTo`) ' +
      'and nothing is written. The body is read as JSONL whatever its content type.',
    tags: ['transfer'],
    request: { schema: jsonlLog, example: ex.exportJsonl, contentType: JSONL_CONTENT_TYPE },
    response: { schema: importResponse, example: ex.importResponse },
  },
  verifyMemory: {
    summary: 'Compare the read models with exact replay',
    description:
      "Asks one memory's queries both from the read models and by replay of the log at `recordedAt` (default now) and lists every " +
      'difference: facts, events and episodes at `validAt=*` and at its validity bounds, mentions, every entity and fact history.',
    tags: ['operations'],
    response: { schema: admin.verifyResponse, example: ex.verifyResponse },
  },
  startRebuild: {
    summary: 'Start a blue/green rebuild of the read models',
    description:
      'Rebuilds the read models from the log beside the live ones on a worker thread. `{}` rebuilds to the head and switches the ' +
      'new tables in; `{"to": T}` builds a frozen snapshot schema of what was recorded by T, which is not switched in. 202 with ' +
      'the status when started, 200 with the status of the rebuild already running. Needs a key for all memories with write access. ' +
      'Served by the all-in-one service (`npm start`).',
    tags: ['operations'],
    request: { schema: admin.rebuildRequest, example: ex.rebuildRequest },
    response: { schema: admin.rebuildStatus, example: ex.rebuildStarted, status: '202' },
  },
  deleteMemory: {
    summary: 'Delete a memory entirely',
    description:
      'Removes the memory: its log, its read-model rows, its search-index items and the vectors only they used, its OpenSearch ' +
      'documents and its content keys, and what every process holds of it in its caches. Afterwards the id names an empty memory: ' +
      'reads are 404 UNKNOWN_MEMORY, and a write starts it again at position 1. It cannot be undone. Needs an admin key of the ' +
      'memory when keys are configured; 404 UNKNOWN_MEMORY when the memory has no log.',
    tags: ['operations'],
    response: { schema: res.memoryDeletedResponse, example: ex.memoryDeleted },
  },
  getRebuild: {
    summary: 'The state of the running or last rebuild',
    description: 'Its state, and its progress (phase, events done, rate, estimated time left) while running, its result or its error after.',
    tags: ['operations'],
    response: { schema: admin.rebuildStatus, example: ex.rebuildDone },
  },
  healthz: {
    summary: 'Liveness',
    description: 'Answers while the process serves HTTP. Needs no key.',
    tags: ['operations'],
    response: { schema: res.healthResponse, example: ex.healthz },
  },
  readyz: {
    summary: 'Readiness',
    description: 'Answers 200 once every readiness probe passes (its database reachable), else 503 with the failing probes. Needs no key.',
    tags: ['operations'],
    response: { schema: res.healthResponse, example: ex.readyz },
  },
  metrics: {
    summary: 'Prometheus metrics',
    description:
      'Request latencies by route and status, commands and errors counted, projection lag, and the Node.js process metrics, in ' +
      'Prometheus text format. Needs no key.',
    tags: ['operations'],
    response: { schema: prometheusText, example: ex.metricsText, contentType: 'text/plain' },
  },
  docs: {
    summary: 'This API reference',
    description:
      'This OpenAPI 3.1 document as JSON (2-space indented) unless the client prefers text/html (a browser), which gets a Swagger UI ' +
      'page whose assets are served from /docs/static. `GET /docs/openapi.json` and `GET /docs/json` always answer JSON. Needs no key.',
    tags: ['operations'],
    response: { schema: openApiDocument, example: ex.docsDocument },
  },
  mcp: {
    summary: 'MCP over streamable HTTP',
    description:
      'The Model Context Protocol (JSON-RPC 2.0) on the all-in-one service (`npm start`): `initialize`, `tools/list`, `tools/call`. Stateless: ' +
      'each POST stands alone (GET and DELETE are 405). Send `Accept: application/json, text/event-stream`; answers are JSON. ' +
      "Tool calls go through the HTTP API with the caller's key, so the rules of `/v1` hold; with keys configured, a request " +
      'without a valid key is a JSON-RPC error with HTTP 401. `?memory=<id>` sets the memory of tool calls that name none.',
    tags: ['mcp'],
    request: { schema: mcp.jsonRpcRequest, example: ex.mcpRequest },
    response: { schema: mcp.jsonRpcResponse, example: ex.mcpResponse },
  },
};
