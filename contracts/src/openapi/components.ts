import { z } from 'zod';
import * as admin from '../admin';
import * as check from '../check';
import * as consolidate from '../consolidate';
import * as cmd from '../commands';
import { errorResponse } from '../errors';
import { literalTarget } from '../literals';
import * as mcp from '../mcp';
import { canonicalInstant, id, instant } from '../primitives';
import { searchRequest } from '../queries';
import * as res from '../responses';
import { importResponse } from '../transfer';
import * as turns from '../turns';

/**
 * `components.schemas` of the OpenAPI document, generated from the zod schemas via
 * zod 4's native JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). Request
 * bodies are emitted as their input (wire) side, responses as their output side.
 */

export const REF_PREFIX = '#/components/schemas/';
export type JsonSchema = Record<string, unknown>;

/** Component name -> zod schema, request side (emitted as their input). Operation examples are checked against these. */
export const requestSchemas: Record<string, z.ZodType> = {
  Instant: instant,
  Id: id,
  LiteralTarget: literalTarget,
  Interval: cmd.interval,
  Participant: cmd.participant,
  UpsertEntityCommand: cmd.upsertEntity,
  MergeEntityCommand: cmd.mergeEntity,
  DefineRelationCommand: cmd.defineRelation,
  UpsertEdgeCommand: cmd.upsertEdge,
  ArchiveEdgeCommand: cmd.archiveEdge,
  RetroCorrectCommand: cmd.retroCorrect,
  UpsertEventCommand: cmd.upsertEvent,
  LinkCommand: cmd.link,
  UpsertEpisodeCommand: cmd.upsertEpisode,
  UpsertTopicCommand: cmd.upsertTopic,
  RecordMentionCommand: cmd.recordMention,
  SetExtractionGateCommand: cmd.setExtractionGate,
  SetTierPolicyCommand: cmd.setTierPolicy,
  Command: cmd.wireCommand,
  CommandsRequest: cmd.commandsRequest,
  TurnsRequest: turns.turnsRequest,
  ReextractRequest: turns.reextractRequest,
  SearchRequest: searchRequest,
  CheckRequest: check.checkRequest,
  ConsolidateRequest: consolidate.consolidateRequest,
  RebuildRequest: admin.rebuildRequest,
  McpRequest: mcp.jsonRpcRequest,
};

/** Component name -> zod schema, response side (emitted as their output). */
export const responseSchemas: Record<string, z.ZodType> = {
  CanonicalInstant: canonicalInstant,
  Literal: res.literalOut,
  FactVersion: res.factVersion,
  Cut: res.cut,
  CommandResult: res.commandResult,
  CommandsResponse: res.commandsResponse,
  TurnsResponse: turns.turnsResponse,
  ReextractResponse: turns.reextractResponse,
  ExtractionSettings: turns.extractionSettings,
  DerivedResponse: turns.derivedResponse,
  FactsResponse: res.factsResponse,
  HistoryResponse: res.historyResponse,
  AuditEvent: res.auditEvent,
  AuditResponse: res.auditResponse,
  EntityResponse: res.entityResponse,
  EntitiesResponse: res.entitiesResponse,
  EventView: res.eventView,
  EventsResponse: res.eventsResponse,
  Episode: res.episodeView,
  EpisodesResponse: res.episodesResponse,
  Topic: res.topicView,
  TopicsResponse: res.topicsResponse,
  AccessResponse: res.accessResponse,
  FactChange: res.factChange,
  ChangesResponse: res.changesResponse,
  Mention: res.mentionView,
  MentionsResponse: res.mentionsResponse,
  SearchItem: res.searchItem,
  SearchResponse: res.searchResponse,
  CheckResponse: check.checkResponse,
  ConsolidateResponse: consolidate.consolidateResponse,
  HealthResponse: res.healthResponse,
  MemorySummary: res.memorySummary,
  MemoriesResponse: res.memoriesResponse,
  MemoryDeletedResponse: res.memoryDeletedResponse,
  ImportResponse: importResponse,
  ErrorResponse: errorResponse,
  VerifyResponse: admin.verifyResponse,
  RebuildStatus: admin.rebuildStatus,
  McpResponse: mcp.jsonRpcResponse,
};

/** Drops the per-document keys a component must not carry. */
export function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

function emit(schemas: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(schemas)) registry.add(schema, { id: name });
  const { schemas: out } = z.toJSONSchema(registry, { io, uri: (id) => REF_PREFIX + id, unrepresentable: 'any' });
  const result: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(out)) {
    if (name === '__shared') throw new Error('unexpected shared JSON Schema definitions');
    result[name] = clean(schema as JsonSchema);
  }
  return result;
}

/** All component schemas; request and response names never collide. */
export function buildComponentSchemas(): Record<string, JsonSchema> {
  const requests = emit(requestSchemas, 'input');
  const responses = emit(responseSchemas, 'output');
  for (const name of Object.keys(responses)) {
    if (name in requests) throw new Error(`component name used twice: ${name}`);
  }
  return { ...requests, ...responses };
}

/** A standalone (inlined) JSON Schema of one request-side schema, e.g. a query parameter. */
export function inputSchema(schema: z.ZodType): JsonSchema {
  return clean(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
}

export function ref(name: string): JsonSchema {
  return { $ref: REF_PREFIX + name };
}
