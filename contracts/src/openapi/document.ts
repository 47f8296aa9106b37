import type { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors';
import { verifyQuery } from '../admin';
import * as q from '../queries';
import { JSONL_CONTENT_TYPE } from '../transfer';
import { buildComponentSchemas, inputSchema, ref, type JsonSchema } from './components';

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
        summary: 'The memories the caller may read, each with its position and latest recordedAt, sorted by memoryId',
        parameters: parameters(q.memoriesQuery, 'query'),
        responses: responses('MemoriesResponse', [400]),
      },
    },
    [`${m}/commands`]: {
      post: {
        operationId: 'postCommands',
        summary: 'Apply a batch of 1..1000 DSL commands atomically',
        parameters: memory(),
        requestBody: jsonBody('CommandsRequest'),
        responses: responses('CommandsResponse', [400, 404, 409, 413]),
      },
    },
    [`${m}/facts`]: {
      get: {
        operationId: 'getFacts',
        summary: 'Fact versions in a bitemporal cut, sorted by factId',
        parameters: [...memory(), ...parameters(q.factsQuery, 'query')],
        responses: responses('FactsResponse', [400, 404, 408]),
      },
    },
    [`${m}/facts/{factId}/history`]: {
      get: {
        operationId: 'getFactHistory',
        summary: 'Every version of a fact, oldest first',
        parameters: [...parameters(q.factParams, 'path'), ...parameters(q.historyQuery, 'query')],
        responses: responses('HistoryResponse', [400, 404]),
      },
    },
    [`${m}/facts/{factId}/audit`]: {
      get: {
        operationId: 'getFactAudit',
        summary: 'Every event that touched a fact, in log order',
        parameters: [...parameters(q.factParams, 'path'), ...parameters(q.auditQuery, 'query')],
        responses: responses('AuditResponse', [400, 404]),
      },
    },
    [`${m}/entities`]: {
      get: {
        operationId: 'listEntities',
        summary: 'Entities visible at a record time, found by name or alias and type, a page at a time sorted by entityId',
        description:
          'Lists the canonical entities visible at `recordedAt` (an entity merged into another is listed as that one). ' +
          '`name` matches an entity name or alias case-insensitively, with whitespace normalised, exactly or (`match=prefix`) as a prefix. ' +
          'Pages hold `limit` entities (default 100, at most 1000); pass `next` as `after` for the next page.',
        parameters: [...memory(), ...parameters(q.entitiesQuery, 'query')],
        responses: responses(
          {
            description: 'OK',
            content: {
              'application/json': {
                schema: ref('EntitiesResponse'),
                example: {
                  cut: { validAt: '2024-05-09T12:00:00.000Z', recordedAt: '2024-05-09T12:00:00.000Z' },
                  source: 'projection',
                  entities: [
                    {
                      entityId: 'alice',
                      name: 'Alice',
                      names: ['Alice'],
                      aliases: ['Ali'],
                      types: ['person'],
                      merges: [],
                      recordedFrom: '2024-05-06T09:00:00.000Z',
                    },
                  ],
                  next: null,
                },
              },
            },
          },
          [400, 404, 408],
        ),
      },
    },
    [`${m}/entities/{entityId}`]: {
      get: {
        operationId: 'getEntity',
        summary: 'An entity with names, aliases and merges visible at a record time',
        parameters: [...parameters(q.entityParams, 'path'), ...parameters(q.entityQuery, 'query')],
        responses: responses('EntityResponse', [400, 404]),
      },
    },
    [`${m}/events`]: {
      get: {
        operationId: 'getEvents',
        summary: 'Visible L2 events in a cut, sorted by eventId',
        parameters: [...memory(), ...parameters(q.eventsQuery, 'query')],
        responses: responses('EventsResponse', [400, 404]),
      },
    },
    [`${m}/changes`]: {
      get: {
        operationId: 'getChanges',
        summary: 'Fact versions opened or closed with record time in [from, to)',
        parameters: [...memory(), ...parameters(q.changesQuery, 'query')],
        responses: responses('ChangesResponse', [400, 404]),
      },
    },
    [`${m}/search`]: {
      post: {
        operationId: 'search',
        summary: 'Ranked, auditable subgraph for a query within a cut and token budget',
        parameters: memory(),
        requestBody: jsonBody('SearchRequest'),
        responses: responses('SearchResponse', [400, 404, 413]),
      },
    },
    [`${m}/export`]: {
      get: {
        operationId: 'exportMemory',
        summary: 'The memory log as JSONL, one accepted command per line in log order',
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
        summary: 'Replay an exported JSONL log into an empty memory',
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
        summary: 'Compare the read models with exact replay for one memory at a record time (default now); every difference',
        parameters: [...memory(), ...parameters(verifyQuery, 'query')],
        responses: responses('VerifyResponse', [400, 404]),
      },
    },
    '/v1/admin/rebuild': {
      post: {
        operationId: 'startRebuild',
        summary: 'Start a blue/green rebuild of the read models: to the head (switched in) or up to record time `to` (snapshot schema)',
        requestBody: jsonBody('RebuildRequest'),
        responses: {
          ...responses('RebuildStatus', [400]),
          '200': { description: 'a rebuild is already running: its status', content: json(ref('RebuildStatus')) },
          '202': { description: 'started: its status', content: json(ref('RebuildStatus')) },
        },
      },
      get: {
        operationId: 'getRebuild',
        summary: "The rebuild's state, progress (events done, rate, ETA), result or error",
        responses: responses('RebuildStatus', []),
      },
    },
    '/healthz': {
      get: { operationId: 'healthz', summary: 'Liveness', responses: responses('HealthResponse', []) },
    },
    '/readyz': {
      get: { operationId: 'readyz', summary: 'Readiness', responses: responses('HealthResponse', [503]) },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        responses: { '200': { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    '/docs': {
      get: {
        operationId: 'docs',
        summary: 'This OpenAPI document (JSON), or a browsable API reference page for a browser',
        description:
          'JSON (2-space indented) unless the client prefers text/html (a browser), which gets a Swagger UI page ' +
          'whose assets are served from /docs/static. `GET /docs/openapi.json` and `GET /docs/json` always answer JSON.',
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
    info: {
      title: 'MemoTrace',
      version: '1.0.0',
      description: 'Bitemporal, event-sourced knowledge-graph memory for LLM agents (HTTP contract v1).',
    },
    paths: withAccessControl(buildPaths()),
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

/** `/v1/...` operations take a bearer API key: 401 without a valid one, 403 outside its memories or access. */
function withAccessControl(paths: Obj): Obj {
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const operation of Object.values(item as Record<string, Obj>)) {
      operation['security'] = [{ apiKey: [] }, {}];
      const out = operation['responses'] as Obj;
      out['401'] = errorResponseObject(401);
      out['403'] = errorResponseObject(403);
    }
  }
  return paths;
}
