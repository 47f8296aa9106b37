import type { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors';
import { verifyQuery } from '../admin';
import { checkQuery } from '../check';
import * as q from '../queries';
import { memoryId } from '../primitives';
import { JSONL_CONTENT_TYPE } from '../transfer';
import { buildComponentSchemas, inputSchema, ref, type JsonSchema } from './components';
import { OPERATIONS, TAGS } from './operations';

/** Where the service answers MCP over streamable HTTP (services/mcp/src/http-route.ts). */
export const MCP_PATH = '/mcp';

/** OpenAPI 3.1 document of the HTTP contract (SPEC §4), generated from the zod schemas. */

type Obj = Record<string, unknown>;

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

function errorResponseObject(status: number): Obj {
  const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === status);
  return { description: `error: ${codes.join(', ')}`, content: json(ref('ErrorResponse')) };
}

function responses(okSchema: string | Obj, errorStatuses: number[]): Obj {
  const ok = typeof okSchema === 'string' ? { description: 'OK', content: json(ref(okSchema)) } : okSchema;
  const out: Obj = { '200': ok };
  for (const s of errorStatuses) out[String(s)] = errorResponseObject(s);
  return out;
}

/** OpenAPI parameters from a strict zod object schema (one per key). */
function parameters(schema: z.ZodObject, location: 'path' | 'query'): Obj[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const fieldSchema = field as z.ZodType;
    const required = location === 'path' || !fieldSchema.safeParse(undefined).success;
    const param: Obj = { name, in: location, required, schema: inputSchema(fieldSchema) };
    return param;
  });
}

const memory = () => parameters(q.memoryParams, 'path');
const jsonBody = (name: string) => ({ required: true, content: json(ref(name)) });

function buildPaths(): Obj {
  const m = '/v1/memories/{memoryId}';
  return {
    '/v1/memories': {
      get: {
        operationId: 'listMemories',
        parameters: parameters(q.memoriesQuery, 'query'),
        responses: responses('MemoriesResponse', [400]),
      },
    },
    '/v1/access': {
      get: {
        operationId: 'getAccess',
        parameters: parameters(q.accessQuery, 'query'),
        responses: responses('AccessResponse', [400]),
      },
    },
    [m]: {
      delete: {
        operationId: 'deleteMemory',
        parameters: memory(),
        responses: responses('MemoryDeletedResponse', [400, 404]),
      },
    },
    [`${m}/commands`]: {
      post: {
        operationId: 'postCommands',
        parameters: memory(),
        requestBody: jsonBody('CommandsRequest'),
        responses: responses('CommandsResponse', [400, 404, 409, 413]),
      },
    },
    [`${m}/turns`]: {
      post: {
        operationId: 'postTurns',
        parameters: memory(),
        requestBody: jsonBody('TurnsRequest'),
        responses: responses('TurnsResponse', [400, 404, 409, 413, 502]),
      },
    },
    [`${m}/reextract`]: {
      post: {
        operationId: 'postReextract',
        parameters: memory(),
        requestBody: jsonBody('ReextractRequest'),
        responses: {
          '202': { description: 'queued: the jobs and the turns they name', content: json(ref('ReextractResponse')) },
          '400': errorResponseObject(400),
          '404': errorResponseObject(404),
        },
      },
    },
    [`${m}/extraction`]: {
      get: {
        operationId: 'getExtraction',
        parameters: memory(),
        responses: responses('ExtractionSettings', [400, 404]),
      },
    },
    [`${m}/facts`]: {
      get: {
        operationId: 'getFacts',
        parameters: [...memory(), ...parameters(q.factsQuery, 'query')],
        responses: responses('FactsResponse', [400, 404, 408]),
      },
    },
    [`${m}/facts/{factId}/history`]: {
      get: {
        operationId: 'getFactHistory',
        parameters: [...parameters(q.factParams, 'path'), ...parameters(q.historyQuery, 'query')],
        responses: responses('HistoryResponse', [400, 404]),
      },
    },
    [`${m}/facts/{factId}/audit`]: {
      get: {
        operationId: 'getFactAudit',
        parameters: [...parameters(q.factParams, 'path'), ...parameters(q.auditQuery, 'query')],
        responses: responses('AuditResponse', [400, 404]),
      },
    },
    [`${m}/entities`]: {
      get: {
        operationId: 'listEntities',
        parameters: [...memory(), ...parameters(q.entitiesQuery, 'query')],
        responses: responses('EntitiesResponse', [400, 404, 408]),
      },
    },
    [`${m}/entities/{entityId}`]: {
      get: {
        operationId: 'getEntity',
        parameters: [...parameters(q.entityParams, 'path'), ...parameters(q.entityQuery, 'query')],
        responses: responses('EntityResponse', [400, 404]),
      },
    },
    [`${m}/events`]: {
      get: {
        operationId: 'getEvents',
        parameters: [...memory(), ...parameters(q.eventsQuery, 'query')],
        responses: responses('EventsResponse', [400, 404]),
      },
    },
    [`${m}/episodes`]: {
      get: {
        operationId: 'listEpisodes',
        parameters: [...memory(), ...parameters(q.episodesQuery, 'query')],
        responses: responses('EpisodesResponse', [400, 404, 408]),
      },
    },
    [`${m}/topics`]: {
      get: {
        operationId: 'listTopics',
        parameters: [...memory(), ...parameters(q.topicsQuery, 'query')],
        responses: responses('TopicsResponse', [400, 404, 408]),
      },
    },
    [`${m}/mentions`]: {
      get: {
        operationId: 'listMentions',
        parameters: [...memory(), ...parameters(q.mentionsQuery, 'query')],
        responses: responses('MentionsResponse', [400, 404, 408]),
      },
    },
    [`${m}/mentions/{mentionId}`]: {
      get: {
        operationId: 'getMention',
        parameters: [...parameters(q.mentionParams, 'path'), ...parameters(q.mentionQuery, 'query')],
        responses: responses('Mention', [400, 404, 408]),
      },
    },
    [`${m}/mentions/{mentionId}/derived`]: {
      get: {
        operationId: 'getDerivedCommands',
        parameters: parameters(q.mentionParams, 'path'),
        responses: responses('DerivedResponse', [400, 404]),
      },
    },
    [`${m}/changes`]: {
      get: {
        operationId: 'getChanges',
        parameters: [...memory(), ...parameters(q.changesQuery, 'query')],
        responses: responses('ChangesResponse', [400, 404]),
      },
    },
    [`${m}/search`]: {
      post: {
        operationId: 'search',
        parameters: memory(),
        requestBody: jsonBody('SearchRequest'),
        responses: responses('SearchResponse', [400, 404, 413]),
      },
    },
    [`${m}/check`]: {
      post: {
        operationId: 'check',
        parameters: [...memory(), ...parameters(checkQuery, 'query')],
        requestBody: jsonBody('CheckRequest'),
        responses: responses('CheckResponse', [400, 404, 413]),
      },
    },
    [`${m}/consolidate`]: {
      post: {
        operationId: 'consolidate',
        parameters: memory(),
        requestBody: jsonBody('ConsolidateRequest'),
        responses: responses('ConsolidateResponse', [400, 404]),
      },
    },
    [`${m}/export`]: {
      get: {
        operationId: 'exportMemory',
        parameters: [...memory(), ...parameters(q.exportQuery, 'query')],
        responses: responses(
          {
            description: 'JSONL: one command per line, each with recordedAt and commandId',
            content: { [JSONL_CONTENT_TYPE]: { schema: { type: 'string' } } },
          },
          [400, 404],
        ),
      },
    },
    [`${m}/import`]: {
      post: {
        operationId: 'importMemory',
        parameters: memory(),
        requestBody: {
          required: true,
          description: 'JSONL: one command per line; commandId and recordedAt are required on every line',
          content: { [JSONL_CONTENT_TYPE]: { schema: { type: 'string' } } },
        },
        responses: responses('ImportResponse', [400, 404, 409, 413]),
      },
    },
    [`${m}/verify`]: {
      get: {
        operationId: 'verifyMemory',
        parameters: [...memory(), ...parameters(verifyQuery, 'query')],
        responses: responses('VerifyResponse', [400, 404]),
      },
    },
    '/v1/admin/rebuild': {
      post: {
        operationId: 'startRebuild',
        requestBody: jsonBody('RebuildRequest'),
        responses: {
          ...responses('RebuildStatus', [400]),
          '200': { description: 'a rebuild is already running: its status', content: json(ref('RebuildStatus')) },
          '202': { description: 'started: its status', content: json(ref('RebuildStatus')) },
        },
      },
      get: {
        operationId: 'getRebuild',
        responses: responses('RebuildStatus', []),
      },
    },
    [MCP_PATH]: {
      post: {
        operationId: 'mcp',
        parameters: [
          {
            name: 'memory',
            in: 'query',
            required: false,
            description: 'the memory of tool calls that name none',
            schema: inputSchema(memoryId),
          },
        ],
        requestBody: jsonBody('McpRequest'),
        responses: {
          ...responses('McpResponse', []),
          '202': { description: 'a notification (a request without id) was accepted; no body' },
          '401': { description: 'keys are configured and the request has no valid one: a JSON-RPC error', content: json(ref('McpResponse')) },
        },
        // A key is checked here (401) and again by every tool call (403 outside its memories, as a tool error).
        security: API_KEY,
      },
    },
    '/healthz': {
      get: { operationId: 'healthz', responses: responses('HealthResponse', []) },
    },
    '/readyz': {
      get: {
        operationId: 'readyz',
        responses: {
          ...responses('HealthResponse', []),
          '503': {
            description: 'not ready: `{"status": "not ready", "failures": [...]}`, one per failing probe',
            content: json(ref('HealthResponse')),
          },
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        responses: { '200': { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    '/docs': {
      get: {
        operationId: 'docs',
        responses: {
          '200': {
            description: 'OpenAPI 3.1 document, or the API reference page',
            content: { ...json({ type: 'object' }), 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
  };
}

export function buildOpenApiDocument(): Obj {
  return {
    openapi: '3.1.0',
    info: { title: 'MemoTrace', version: '1.0.0', description: DESCRIPTION },
    // Relative: the service that serves this document, whatever its address (a browser on /docs, a client given a base URL).
    servers: [{ url: '/', description: 'the MemoTrace service that serves this document' }],
    tags: TAGS.map((tag) => ({ ...tag })),
    paths: withOperationDocs(withAccessControl(buildPaths())),
    components: {
      schemas: buildComponentSchemas(),
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key sent as `Authorization: Bearer <key>`; required when the operator configured keys',
        },
      },
    },
  };
}

/** A bearer API key, or none when the operator configured no keys (the service then listens on loopback only). */
const API_KEY = [{ apiKey: [] }, {}];

/** `/v1/...` operations take a bearer API key: 401 without a valid one, 403 outside its memories or access. */
function withAccessControl(paths: Obj): Obj {
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const operation of Object.values(item as Record<string, Obj>)) {
      operation['security'] = API_KEY;
      const out = operation['responses'] as Obj;
      out['401'] = errorResponseObject(401);
      out['403'] = errorResponseObject(403);
    }
  }
  return paths;
}

const DESCRIPTION = [
  'MemoTrace is a bitemporal, event-sourced knowledge-graph memory for LLM agents. Agents write DSL commands (entities, facts, ' +
    "L2 events, episodes, mentions such as dialog turns); every accepted command is appended to the memory's immutable log, from " +
    'which the read models and the search index are built, and any answer can be given again by exact replay of the log.',
  '',
  '**Time.** Every fact has a *valid time* (when it held in the world) and a *record time* (when the memory came to believe it), ' +
    'so a read takes a cut `(validAt, recordedAt)`: what the memory believed at `recordedAt` about `validAt`, each defaulting to the ' +
    'request time. Record time only moves forward in a memory, so an answer at a past record time never changes.',
  '',
  '**Access.** When the operator configures API keys, every `/v1` request and `/mcp` needs `Authorization: Bearer <key>`; a key is ' +
    'scoped to memories and to `read`, `write` or `admin` (each granting the ones before it: GET and search read; everything else ' +
    'writes; `ERASE` commands and `DELETE /v1/memories/{memoryId}` need admin): 401 without a valid key, 403 outside its scope. ' +
    'Without keys the service listens on loopback only. `/healthz`, `/readyz`, `/metrics` and `/docs` are open.',
  '',
  'Errors are `{"error": {"code", "message", "details"?}}`; bad input is 400 INVALID_REQUEST with one detail per field and writes nothing.',
].join('\n');

/**
 * Each operation's summary, description and tags, and the examples of its request body and success
 * response, from operations.ts: an operation it does not document is an error, not a bare entry.
 */
function withOperationDocs(paths: Obj): Obj {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item as Record<string, Obj>)) {
      const id = operation['operationId'] as string;
      const doc = OPERATIONS[id];
      if (doc === undefined) throw new Error(`operation ${id} is not documented in operations.ts`);
      // One place for the words: a path entry's own text would be overwritten, or worse, disagree.
      if ('summary' in operation || 'description' in operation)
        throw new Error(`operation ${id}: its summary and description belong in operations.ts`);
      Object.assign(operation, { summary: doc.summary, description: doc.description, tags: [...doc.tags] });
      if (doc.request !== undefined) mediaOf(operation['requestBody'] as Obj, doc.request.contentType, id)['example'] = doc.request.example;
      const ok = (operation['responses'] as Obj)[doc.response.status ?? '200'] as Obj;
      mediaOf(ok, doc.response.contentType, id)['example'] = doc.response.example;
    }
  }
  return paths;
}

/** The media type object of a body or response that an example illustrates. */
function mediaOf(body: Obj | undefined, contentType = 'application/json', operationId: string): Obj {
  const media = (body?.['content'] as Obj | undefined)?.[contentType] as Obj | undefined;
  if (media === undefined) throw new Error(`operation ${operationId} has no ${contentType} body for its example`);
  return media;
}
