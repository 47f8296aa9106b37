import {
  ENTITY_PAGE_FACTS,
  changesQuery,
  entitiesQuery,
  entityParams,
  entityQuery,
  episodesQuery,
  topicsQuery,
  eventsQuery,
  auditQuery,
  exportQuery,
  factParams,
  factsQuery,
  historyQuery,
  memoriesQuery,
  memoryParams,
  type MentionExtractionStatus,
  mentionParams,
  mentionQuery,
  mentionsQuery,
  toJsonlLine,
  verifyQuery,
} from '@memotrace/contracts';
import { type EntityView, type MemoryQueries, changesPageEnd, commandsOfLog, maxInstant } from '@memotrace/domain';
import type { LogStore } from '@memotrace/log-store';
import { HttpError, mayReadMemory, parseInput } from '@memotrace/http-kit';
import { MEMORY_STREAM_PREFIX, factTag, memoryIdOfStream, memoryStreamId, readMemoryLog } from '@memotrace/memory-log';
import type { FastifyInstance } from 'fastify';
import { type ClaimReader, registerCheckRoute } from './check-route';
import { type ConsistencyGate, unknownMemory } from './consistency';
import { type RecallBackend, type SearchCorpora, type TierStore, registerSearchRoute } from './search';
import { type FactTiers, factTiers } from './fact-tiers';
import { documentPage } from './document-page';
import { verifyMemory } from './verify';

export interface QueryRouteDeps {
  gate: ConsistencyGate;
  store: LogStore;
  now(): string;
  corpora: SearchCorpora;
  recall?: RecallBackend | undefined;
  /** Drops every copy of a deleted memory this process holds (logs, folded states, search corpora, vectors of the given texts or all). */
  forgetMemory?: (memoryId: string, vectorHashes?: readonly string[]) => void;
  /** How the latest async extraction job naming a mention stands; without it, `none`. */
  extractionOf?: (memoryId: string, mentionId: string) => Promise<MentionExtractionStatus>;
  /** Reads the claims of a check's text; without it, a check takes claims only. */
  readClaims?: ClaimReader | undefined;
  /** Retrieval statistics and tiers (SPEC 5.4); without them every item is hot. */
  tiers?: (TierStore & FactTiers) | undefined;
}

/**
 * The read side of SPEC §4: time cuts, history, audit, entities, events, mentions, changes, search, export; and
 * the memory listing of §5.0. Every read of a memory without records is 404 UNKNOWN_MEMORY: the routes
 * that ask the gate get it from there, the others (audit, export) check only when they found nothing.
 */
export function registerQueryRoutes(app: FastifyInstance, deps: QueryRouteDeps): void {
  const { gate, store, now, corpora, recall, extractionOf, readClaims, tiers } = deps;
  const withTiers = factTiers(tiers);
  registerSearchRoute(app, { gate, now, corpora, recall, tiers });
  registerCheckRoute(app, { gate, now, readClaims, withTiers });

  // One row per memory from the log's stream index (its last record), not a scan of the log.
  app.get('/v1/memories', async (request) => {
    parseInput(memoriesQuery, request.query, 'query');
    const memories = (await store.streamHeads(MEMORY_STREAM_PREFIX)).flatMap(({ streamId, revision, metadata }) => {
      const memoryId = memoryIdOfStream(streamId)!;
      // Its position as writes hand it out: the length of its log. Stream order is memoryId order (one prefix).
      return mayReadMemory(request, memoryId) ? [{ memoryId, position: revision + 1, latestRecordedAt: metadata.recordedAt }] : [];
    });
    return { memories };
  });

  app.get('/v1/memories/:memoryId/facts', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const q = parseInput(factsQuery, request.query, 'query');
    const at = now();
    const cut = { validAt: q.validAt ?? at, recordedAt: q.recordedAt ?? at };
    const filter = { src: q.src, rel: q.rel, dst: q.dst, after: q.after, limit: q.limit };
    const include = { entities: q.include?.includes('entities') ?? false, mentions: q.include?.includes('mentions') ?? false };
    return { cut, source: q.consistency, ...(await factsPage(memoryId, cut, filter, q, include)) };
  });

  /** A page of the facts at the cut, with the entities they name and the mentions they cite when asked, by the same source at the same cut. */
  async function factsPage(
    memoryId: string,
    cut: { validAt: string; recordedAt: string },
    filter: { src?: string[]; rel?: string; dst?: string; after?: string; limit?: number },
    read: { consistency: 'projection' | 'replay'; minPosition?: number },
    include: { entities: boolean; mentions: boolean; perSrc?: number },
  ) {
    const probe = { ...filter, limit: nextProbe(filter.limit) };
    const found = await gate.read(memoryId, read.consistency, read.minPosition, {
      replay: (queries) => queries.facts(memoryId, cut, probe),
      projection: (queries) => queries.checkpointedFacts(memoryId, cut, probe),
    });
    const { page, next } = pageAnswer(found, filter.limit, (f) => f.factId);
    // Each subject's first perSrc facts of the page: only the entities those name are read and sent.
    const { perSrc } = include;
    const counts = perSrc === undefined ? undefined : new Map<string, number>();
    let facts =
      counts === undefined
        ? page
        : page.filter((f) => {
            const n = (counts.get(f.src) ?? 0) + 1;
            counts.set(f.src, n);
            return n <= perSrc!;
          });
    facts = await withTiers(memoryId, facts);
    if (!include.entities && !include.mentions) return { facts, next, counts };
    const queries = await gate.source(memoryId, read.consistency, read.minPosition);
    const cited = [...new Set(facts.flatMap((f) => f.evidence))];
    const [entities, mentions] = await Promise.all([
      include.entities ? entitiesNamedBy(queries, memoryId, cut.recordedAt, facts) : undefined,
      include.mentions ? (cited.length === 0 ? [] : queries.mentions(memoryId, cut.recordedAt, { ids: cited })) : undefined,
    ]);
    return { facts, next, entities, mentions, counts };
  }

  app.get('/v1/memories/:memoryId/facts/:factId/history', async (request) => {
    const { memoryId, factId } = parseInput(factParams, request.params, 'path');
    const q = parseInput(historyQuery, request.query, 'query');
    const versions = await (await gate.source(memoryId, 'projection', q.minPosition)).history(memoryId, factId, q.recordedAt);
    if (versions === null) throw unknownFact(factId);
    return { factId, versions: await withTiers(memoryId, versions) };
  });

  app.get('/v1/memories/:memoryId/facts/:factId/audit', async (request) => {
    const { memoryId, factId } = parseInput(factParams, request.params, 'path');
    parseInput(auditQuery, request.query, 'query');
    const stored = await store.readByTag(factTag(memoryId, factId));
    if (stored.length === 0) throw (await store.streamPosition(memoryStreamId(memoryId))) === 0 ? unknownMemory(memoryId) : unknownFact(factId);
    // The memory's position after each event (its revision + 1), as writes hand them out: the same after an import.
    const events = stored.map((e) => ({ position: e.revision + 1, type: e.type, ...auditMeta(e.metadata), data: e.data }));
    return { factId, events };
  });

  // The entities of a cut, found by name or alias and type, a page at a time in entityId order.
  app.get('/v1/memories/:memoryId/entities', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const q = parseInput(entitiesQuery, request.query, 'query');
    const at = now();
    // Entities have no valid time: validAt filters none of them, but is part of the cut the answer names.
    const cut = { validAt: q.validAt ?? at, recordedAt: q.recordedAt ?? at };
    const filter = { name: q.name, match: q.match, type: q.type, ids: q.ids, after: q.after, limit: nextProbe(q.limit) };
    const found = await (await gate.source(memoryId, q.consistency, q.minPosition)).entities(memoryId, cut.recordedAt, filter);
    const { page: entities, next } = pageAnswer(found, q.limit, (e) => e.entityId);
    if (q.include === undefined) return { cut, source: q.consistency, entities, next };
    // The page's facts in the same request: a reader of the page needs no second round trip for them.
    const src = entities.map((e) => e.entityId);
    const { counts, ...facts } =
      src.length === 0
        ? { facts: [], next: null, entities: [], counts: undefined }
        : await factsPage(memoryId, cut, { src, limit: ENTITY_PAGE_FACTS }, q, { entities: true, mentions: false, perSrc: q.factsPerEntity });
    if (q.factsPerEntity === undefined) return { cut, source: q.consistency, entities, next, facts };
    const perEntity = Object.fromEntries(src.map((id) => [id, counts?.get(id) ?? 0]));
    return { cut, source: q.consistency, entities, next, facts: { ...facts, counts: perEntity } };
  });

  app.get('/v1/memories/:memoryId/entities/:entityId', async (request) => {
    const { memoryId, entityId } = parseInput(entityParams, request.params, 'path');
    const q = parseInput(entityQuery, request.query, 'query');
    const entity = await (await gate.source(memoryId, 'projection', q.minPosition)).entity(memoryId, entityId, q.recordedAt ?? now());
    if (entity === null) throw new HttpError('UNKNOWN_ENTITY', `unknown entity ${JSON.stringify(entityId)} at this record time`);
    return entity;
  });

  app.get('/v1/memories/:memoryId/events', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const q = parseInput(eventsQuery, request.query, 'query');
    // SPEC §3.2: each of the cut's times defaults to the request's server time, so without
    // validAt only events whose time span holds now are listed; validAt=* lists them all.
    const at = now();
    const cut = { validAt: q.validAt ?? at, recordedAt: q.recordedAt ?? at };
    const filter = { entity: q.entity, after: q.after, limit: nextProbe(q.limit) };
    const found = await (await gate.source(memoryId, q.consistency, q.minPosition)).events(memoryId, cut, filter);
    const { page: events, next } = pageAnswer(found, q.limit, (e) => e.eventId);
    return { cut, source: q.consistency, events, next };
  });

  // SPEC §3.2: an episode is visible iff recorded by recordedAt and one of its events is; it lists only those.
  app.get('/v1/memories/:memoryId/episodes', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const q = parseInput(episodesQuery, request.query, 'query');
    const at = now();
    const cut = { validAt: q.validAt ?? at, recordedAt: q.recordedAt ?? at };
    const found = await (
      await gate.source(memoryId, q.consistency, q.minPosition)
    ).episodes(memoryId, cut, { after: q.after, limit: nextProbe(q.limit) });
    const { page: episodes, next } = pageAnswer(found, q.limit, (e) => e.episodeId);
    return { cut, source: q.consistency, episodes, next };
  });

  // SPEC §5.4: a topic is visible iff recorded by recordedAt and one of its members is; it lists only those.
  app.get('/v1/memories/:memoryId/topics', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const q = parseInput(topicsQuery, request.query, 'query');
    const cut = { validAt: q.validAt ?? '*', recordedAt: q.recordedAt ?? now() };
    const found = await (
      await gate.source(memoryId, q.consistency, q.minPosition)
    ).topics(memoryId, cut, { after: q.after, limit: nextProbe(q.limit) });
    const { page: topics, next } = pageAnswer(found, q.limit, (t) => t.topicId);
    return { cut, source: q.consistency, topics, next };
  });

  // A document's mentions in document order (SPEC §5.1: a conversation's turns), a page at a time.
  app.get('/v1/memories/:memoryId/mentions', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const q = parseInput(mentionsQuery, request.query, 'query');
    const at = now();
    // Mentions have no valid time: validAt filters none of them, but is part of the cut the answer names.
    const cut = { validAt: q.validAt ?? at, recordedAt: q.recordedAt ?? at };
    const mentions = await (await gate.source(memoryId, q.consistency, q.minPosition)).documentMentions(memoryId, q.docId, cut.recordedAt);
    const page = documentPage(mentions, q.after, q.limit);
    if (page === null) {
      throw new HttpError(
        'INVALID_REQUEST',
        `after: no mention ${JSON.stringify(q.after)} in document ${JSON.stringify(q.docId)} at this record time`,
        [{ path: 'after', message: 'names no mention of this document at this record time' }],
      );
    }
    return { cut, source: q.consistency, docId: q.docId, ...page };
  });

  app.get('/v1/memories/:memoryId/mentions/:mentionId', async (request) => {
    const { memoryId, mentionId } = parseInput(mentionParams, request.params, 'path');
    const q = parseInput(mentionQuery, request.query, 'query');
    const mention = await (await gate.source(memoryId, q.consistency, q.minPosition)).mention(memoryId, mentionId, q.recordedAt ?? now());
    if (mention === null) throw new HttpError('UNKNOWN_MENTION', `unknown mention ${JSON.stringify(mentionId)} at this record time`);
    return mention;
  });

  app.get('/v1/memories/:memoryId/mentions/:mentionId/derived', async (request) => {
    const { memoryId, mentionId } = parseInput(mentionParams, request.params, 'path');
    const log = await readMemoryLog(store, memoryId);
    if (log.length === 0) throw unknownMemory(memoryId);
    const commands = commandsOfLog(log);
    if (!commands.some((c) => c.op === 'RECORD_MENTION' && c.mentionId === mentionId))
      throw new HttpError('UNKNOWN_MENTION', `unknown mention ${JSON.stringify(mentionId)}`);
    const extraction = extractionOf ? await extractionOf(memoryId, mentionId) : { status: 'none' as const };
    return { mentionId, commands: commands.filter((c) => c.derivedFrom?.includes(mentionId)), extraction };
  });

  app.get('/v1/memories/:memoryId/changes', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const q = parseInput(changesQuery, request.query, 'query');
    // Without `to`, up to the request time: an empty interval if `from` is later.
    const to = q.to ?? maxInstant(q.from, now());
    const queries = await gate.source(memoryId, 'projection', q.minPosition);
    // A page is the window [from, end) of whole record instants: its answer is that window's, as if asked for it.
    const end = q.limit === undefined ? null : changesPageEnd(await queries.changeCounts(memoryId, q.from, to, q.limit + 1), q.limit);
    const answered = end ?? to;
    const changes = await queries.changes(memoryId, q.from, answered);
    if (q.include === undefined) return { from: q.from, to: answered, changes, next: end };
    const entities = await entitiesNamedBy(
      queries,
      memoryId,
      answered,
      changes.map((c) => c.version),
    );
    return { from: q.from, to: answered, changes, next: end, entities };
  });

  // Read models vs exact replay for one memory: every difference, not just the first.
  app.get('/v1/memories/:memoryId/verify', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const q = parseInput(verifyQuery, request.query, 'query');
    const [projection, replay] = [await gate.source(memoryId, 'projection'), await gate.source(memoryId, 'replay')];
    return verifyMemory({ projection, replay, store }, memoryId, q.recordedAt ?? now());
  });

  app.get('/v1/memories/:memoryId/export', async (request, reply) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    parseInput(exportQuery, request.query, 'query');
    const log = await readMemoryLog(store, memoryId);
    if (log.length === 0) throw unknownMemory(memoryId);
    const body = commandsOfLog(log)
      .map((command) => toJsonlLine(command) + '\n')
      .join('');
    return reply.header('content-type', 'application/x-ndjson').send(body);
  });
}

/** What a page of `limit` asks the source for: one more, to learn whether a next page exists. */
function nextProbe(limit: number | undefined): number | undefined {
  return limit === undefined ? undefined : limit + 1;
}

/** The page of an answer asked with `nextProbe`, and its `next`: the last id, when more followed. */
function pageAnswer<T>(found: T[], limit: number | undefined, idOf: (item: T) => string): { page: T[]; next: string | null } {
  if (limit === undefined || found.length <= limit) return { page: found, next: null };
  const page = found.slice(0, limit);
  return { page, next: idOf(page[page.length - 1]!) };
}

/**
 * The entities fact versions name (their subjects and entity objects), as the entities read shows them at
 * `recordedAt`: by their canonical ids, as answers name them.
 */
async function entitiesNamedBy(
  queries: MemoryQueries,
  memoryId: string,
  recordedAt: string,
  versions: readonly { src: string; dst: unknown }[],
): Promise<EntityView[]> {
  const ids = [...new Set(versions.flatMap((f) => (typeof f.dst === 'string' ? [f.src, f.dst] : [f.src])))];
  return ids.length === 0 ? [] : queries.entities(memoryId, recordedAt, { ids });
}

function unknownFact(factId: string): HttpError {
  return new HttpError('UNKNOWN_FACT', `unknown fact ${JSON.stringify(factId)}`);
}

function auditMeta(metadata: { commandId: string; recordedAt: string; actor: string | null; reason: string | null }) {
  return { recordedAt: metadata.recordedAt, commandId: metadata.commandId, actor: metadata.actor, reason: metadata.reason };
}
