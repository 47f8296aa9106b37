import {
  commandsRequest,
  consolidateRequest,
  importQuery,
  memoryParams,
  parseImportJsonl,
  reextractRequest,
  toDomainCommand,
  turnsRequest,
} from '@memotrace/contracts';
import { DomainError } from '@memotrace/domain';
import {
  HttpError,
  type ServiceMetrics,
  accessForCommands,
  domainHttpError,
  parseInput,
  principalOf,
  registerTextBodyParser,
  requireAccess,
} from '@memotrace/http-kit';
import type { ConsolidateResponse } from '@memotrace/contracts';
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { CommandHandler } from './command-handler';
import type { MemoryDeletion } from './memory-deletion';
import { ExtractionFailedError } from '@memotrace/extraction';
import type { TurnIntake } from './turn-intake';

/** POST .../commands and POST .../import (SPEC §4). */
export function registerCommandRoutes(app: FastifyInstance, handler: CommandHandler, metrics: ServiceMetrics): void {
  app.post('/v1/memories/:memoryId/commands', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const body = parseInput(commandsRequest, request.body, 'commands');
    // With access control on, the authenticated principal is the actor of every command.
    const principal = principalOf(request);
    // The key was checked for write before the body was read; an erasure in the batch needs admin (nothing is written otherwise).
    requireAccess(principal, accessForCommands(body.commands), 'ERASE');
    const commands = body.commands.map((wire) => toDomainCommand(principal ? { ...wire, actor: principal.id } : wire, () => `cmd-${randomUUID()}`));
    const outcome = await handler.handle(memoryId, commands);
    for (const result of outcome.results) metrics.commands.inc({ status: result.status });
    return { position: outcome.position, results: outcome.results };
  });

  // An export file back, whatever type the client names it (application/x-ndjson, application/json
  // from a JSON client, curl's form default, none): the body is read as JSONL text in this scope only.
  void app.register(async (scope) => {
    registerTextBodyParser(scope);
    scope.post('/v1/memories/:memoryId/import', async (request) => {
      const { memoryId } = parseInput(memoryParams, request.params, 'path');
      parseInput(importQuery, request.query, 'query');
      if (typeof request.body !== 'string')
        throw new HttpError('INVALID_REQUEST', 'import needs a body: JSONL, one command per line (an export file)');
      const parsed = parseImportJsonl(request.body);
      if (!parsed.ok) throw new HttpError('INVALID_REQUEST', 'invalid import file', parsed.details);
      // An export of a memory with erasures holds its ERASE commands: importing them erases, which needs admin.
      requireAccess(principalOf(request), accessForCommands(parsed.commands), 'an import with ERASE commands');
      const outcome = await handler.importLog(memoryId, parsed.commands).catch((error: unknown) => {
        throw error instanceof DomainError ? atLine(error, parsed.lines) : error;
      });
      // A line repeating an earlier line's commandId is a duplicate: not imported twice.
      return { position: outcome.position, imported: outcome.results.filter((r) => r.status !== 'duplicate').length };
    });
  });
}

/** POST .../turns (SPEC §5.1): dialog turns, and in sync mode what the extractor derives from them, as one batch. */
export function registerTurnRoutes(app: FastifyInstance, intake: TurnIntake, metrics: ServiceMetrics): void {
  app.post('/v1/memories/:memoryId/turns', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const body = parseInput(turnsRequest, request.body, 'turns request');
    const principal = principalOf(request);
    const outcome = await intake.record(memoryId, body, principal?.id).catch((error: unknown) => {
      if (error instanceof ExtractionFailedError)
        throw new HttpError(
          'EXTRACTION_FAILED',
          `${error.message}; nothing was written (resend with "extraction": "async" or "off" to keep the turns)`,
        );
      throw error;
    });
    for (const result of [...outcome.results, ...outcome.derived]) metrics.commands.inc({ status: result.status });
    return outcome;
  });

  // The memory's extraction settings: its gate (set by SET_EXTRACTION_GATE, a logged command) and this process's default.
  app.get('/v1/memories/:memoryId/extraction', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const settings = await intake.settings(memoryId);
    if (settings === undefined) throw new HttpError('UNKNOWN_MEMORY', `unknown memory ${JSON.stringify(memoryId)}: it has no accepted command`);
    return { memoryId, ...settings };
  });

  // Re-extraction: async jobs for the recorded turns with the current extractor; what they derive is appended later.
  app.post('/v1/memories/:memoryId/reextract', async (request, reply) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const body = parseInput(reextractRequest, request.body ?? {}, 'reextract request');
    const outcome = await intake.reextract(memoryId, body.sessionId);
    if (outcome === undefined) throw new HttpError('UNKNOWN_MEMORY', `unknown memory ${JSON.stringify(memoryId)}: it has no accepted command`);
    return reply.status(202).send(outcome);
  });
}

/**
 * A domain error of an import names the file's line, as its parse errors do: `line.11.recordedAt`.
 * Located from the error's structured data (its command index, field and problem).
 */
function atLine(error: DomainError, lines: readonly number[]): DomainError | HttpError {
  const line = error.commandIndex === undefined ? undefined : lines[error.commandIndex];
  if (line === undefined) return error;
  const message = `line ${line}: ${error.problem}`;
  return domainHttpError(error, { path: error.field === undefined ? `line.${line}` : `line.${line}.${error.field}`, message });
}

/**
 * `DELETE /v1/memories/{memoryId}` (SPEC §5.2, admin: access control asks for it before the route runs):
 * removes the memory entirely. 404 UNKNOWN_MEMORY when it has no log.
 */
export function registerMemoryDeletionRoute(app: FastifyInstance, deletion: MemoryDeletion): void {
  app.delete('/v1/memories/:memoryId', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const { deleted, records } = await deletion.delete(memoryId);
    if (!deleted) throw new HttpError('UNKNOWN_MEMORY', `unknown memory ${JSON.stringify(memoryId)}: it has no accepted command`);
    return { memoryId, deleted: true, records };
  });
}

/**
 * POST .../consolidate (SPEC 5.4): the memory's evolution now (cooling and warming, episodes, topics, merge
 * suggestions); a memory without records is 404 UNKNOWN_MEMORY (a run creates nothing).
 */
export function registerConsolidateRoute(app: FastifyInstance, run: (memoryId: string) => Promise<ConsolidateResponse | null>): void {
  app.post('/v1/memories/:memoryId/consolidate', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    parseInput(consolidateRequest, request.body ?? {}, 'body');
    const outcome = await run(memoryId);
    if (outcome === null) throw new HttpError('UNKNOWN_MEMORY', `memory ${JSON.stringify(memoryId)} does not exist`);
    return outcome;
  });
}
