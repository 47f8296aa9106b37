import type { ConsolidateResponse } from '@memotrace/contracts';
import {
  type Command,
  type CommandBody,
  type Instant,
  type MemoryState,
  type Tier,
  type TieredKind,
  coolsUnder,
  factText,
  lastOf,
  lastTouched,
  salienceOf,
  tierKey,
} from '@memotrace/domain';
import { createHash } from 'node:crypto';
import type { CommandHandler } from '../command-handler';
import { deriveEpisodes } from './episodes';
import { suggestMerges } from './merge-suggestions';
import { type RestatedSource, restatedFacts } from './restated-facts';
import { deriveTopics } from './topics';

/** Who appends what consolidation derives (SPEC 5.4): `consolidator:<name>@<version>`. */
export const CONSOLIDATOR_NAME = 'rules';
export const CONSOLIDATOR_VERSION = '1';
export const CONSOLIDATOR_ACTOR = `consolidator:${CONSOLIDATOR_NAME}@${CONSOLIDATOR_VERSION}`;

/** The most commands one append holds (the DSL's batch limit). */
const BATCH = 1000;

interface ItemKey {
  kind: TieredKind;
  id: string;
}

/** What consolidation reads and writes of the retrieval statistics and tiers (ItemTiers). */
export interface ConsolidationTiers {
  all(memoryId: string): Promise<ReadonlyMap<string, { returned: number; lastReturnedAt: Instant | null; tier: Tier; cooledAt: Instant | null }>>;
  setTier(memoryId: string, items: readonly ItemKey[], tier: Tier, at: Instant): Promise<void>;
  snapshot(memoryId: string): Promise<void>;
}

export interface ConsolidationDeps {
  handler: Pick<CommandHandler, 'handle' | 'readState'>;
  tiers: ConsolidationTiers;
  clock: { now(): Instant };
}

/** One tiered item as consolidation weighs it. */
interface Weighed extends ItemKey {
  assertedAt: Instant;
  confidence: number | null;
  links: number;
}

/** What a run reads of the memory's state, copied out (the state stays the handler's). */
interface Snapshot {
  policy: MemoryState['tierPolicy'];
  items: Weighed[];
  episodes: Parameters<typeof deriveEpisodes>[1] extends readonly (infer E)[] ? Omit<E, 'salience'>[] : never;
  topicSources: Parameters<typeof deriveTopics>[1] extends readonly (infer S)[] ? S[] : never;
  restated: RestatedSource[];
  merge: Parameters<typeof suggestMerges>[0];
}

/**
 * The memory's evolution, run now (SPEC 5.4, `POST .../consolidate`; the background sweep runs the same):
 * cooling and warming by the memory's tier policy, episodes of low-salience events, durative topics, and
 * merge suggestions (never merges). What it derives is appended as ordinary commands of actor
 * CONSOLIDATOR_ACTOR whose ids are digests of their content, so a second run over the same memory appends
 * nothing new: every command comes back `duplicate`. Null for a memory without records.
 */
export async function consolidate(memoryId: string, deps: ConsolidationDeps): Promise<ConsolidateResponse | null> {
  const { handler, tiers, clock } = deps;
  const snapshot = await handler.readState(memoryId, (state) => (state.eventCount === 0 ? null : snapshotOf(state)));
  if (snapshot === null) return null;
  const at = clock.now();
  const now = Date.parse(at);
  const stats = await tiers.all(memoryId);

  const salience = new Map<string, number>();
  const cool: ItemKey[] = [];
  const warm: ItemKey[] = [];
  for (const item of snapshot.items) {
    const key = tierKey(item.kind, item.id);
    const seen = stats.get(key);
    const input = { assertedAt: item.assertedAt, lastReturnedAt: seen?.lastReturnedAt ?? null, returned: seen?.returned ?? 0 };
    const value = salienceOf({ ...input, confidence: item.confidence, links: item.links }, now);
    salience.set(key, value);
    if (seen?.tier === 'cold') {
      // Asserted again or returned by a search since it cooled: it warms (a search warms at once; this catches assertions).
      if (seen.cooledAt === null || lastTouched(input) > Date.parse(seen.cooledAt)) warm.push(item);
    } else if (coolsUnder(snapshot.policy, input, value, now)) cool.push(item);
  }
  await tiers.setTier(memoryId, cool, 'cold', at);
  await tiers.setTier(memoryId, warm, 'hot', at);
  await tiers.snapshot(memoryId);

  // Titled by entity ids, never names: an episode's title is not sealed, and an erasure of a name must not leave it there.
  const episodes = deriveEpisodes(
    memoryId,
    snapshot.episodes.map((e) => ({ ...e, salience: salience.get(tierKey('event', e.eventId)) ?? 1 })),
  );
  const restated = restatedFacts(snapshot.restated);
  // A fact this run archives is no topic's member: the next run derives the same topics.
  const archived = new Set(restated.flatMap(({ body }) => (body.op === 'ARCHIVE_EDGE' ? [body.factId] : [])));
  const topics = deriveTopics(
    memoryId,
    snapshot.topicSources.filter((s) => s.kind !== 'fact' || !archived.has(s.id)),
  );
  const commands: Command[] = [
    ...restated.map(({ body, salt, reason }) => derived(body, salt, reason)),
    ...episodes.map((e) => derived({ op: 'UPSERT_EPISODE', episodeId: e.episodeId, title: e.title, window: span(e.window), events: e.events })),
    ...topics.map((t) =>
      // The DSL takes at most MAX_LIST_ITEMS members: a longer topic keeps its latest ones.
      derived({
        op: 'UPSERT_TOPIC',
        topicId: t.topicId,
        title: t.title,
        summary: t.summary,
        window: span(t.window),
        members: t.members.slice(-BATCH),
      }),
    ),
  ];
  const appended: ConsolidateResponse['appended'] = [];
  for (let i = 0; i < commands.length; i += BATCH) {
    const batch = commands.slice(i, i + BATCH);
    const outcome = await handler.handle(memoryId, batch);
    outcome.results.forEach((result, j) => appended.push({ commandId: result.commandId, op: batch[j]!.op, status: result.status }));
  }
  return { cooled: cool.length, warmed: warm.length, appended, mergeSuggestions: suggestMerges(snapshot.merge) };
}

/**
 * A derived command: the consolidator's actor, and an id that is a digest of the command's content and of `salt`
 * (what else makes it a new command: the version an archive closes), so a run over the same memory re-sends the
 * same ids.
 */
function derived(body: CommandBody, salt = '', reason?: string): Command {
  const hash = createHash('sha256').update(CONSOLIDATOR_ACTOR).update('\u0000').update(JSON.stringify(body));
  if (salt !== '') hash.update('\u0000').update(salt);
  const commandId = `consolidate-${hash.digest('hex').slice(0, 32)}`;
  return { ...body, commandId, actor: CONSOLIDATOR_ACTOR, ...(reason === undefined ? {} : { reason }) } as Command;
}

function span(window: { from: number; to: number }): { from: Instant; to: Instant } {
  return { from: new Date(window.from).toISOString(), to: new Date(window.to).toISOString() };
}

/** The items, events, texts and entities a run weighs, read from the state as believed now. */
function snapshotOf(state: MemoryState): Snapshot {
  const { classes } = state;
  const names = new Map<string, string>();
  const entities: Snapshot['merge']['entities'][number][] = [];
  for (const entity of state.entities.values()) {
    if (entity.name !== null) names.set(entity.entityId, entity.name);
    if (classes.canonical(entity.entityId) !== entity.entityId || entity.name === null) continue;
    entities.push({
      entityId: entity.entityId,
      name: entity.name,
      aliases: entity.aliases.map((a) => a.value),
      types: entity.types.map((t) => t.value),
    });
  }
  const nameOf = (id: string) => names.get(classes.canonical(id)) ?? names.get(id) ?? id;
  const items: Weighed[] = [];
  const topicSources: Snapshot['topicSources'] = [];
  const facts: Snapshot['merge']['facts'][number][] = [];
  const restated: RestatedSource[] = [];
  // The facts the events believed now include: their evidence, which must stay believed.
  const included = new Set<string>();
  for (const versions of state.events.values()) {
    const event = lastOf(versions);
    if (event !== undefined && event.recordedTo === null) for (const factId of event.includesFacts) included.add(factId);
  }
  for (const fact of state.facts.values()) {
    const version = lastOf(fact.versions);
    if (version === undefined || version.recordedTo !== null) continue;
    const links = version.evidence.length + (typeof fact.dst === 'string' ? 2 : 1);
    items.push({ kind: 'fact', id: fact.factId, assertedAt: version.recordedFrom, confidence: version.confidence, links });
    const src = classes.canonical(fact.src);
    const dst = typeof fact.dst === 'string' ? classes.canonical(fact.dst) : fact.dst;
    if (dst === null || version.erased === true) continue;
    facts.push({
      factId: fact.factId,
      src,
      rel: fact.rel,
      dst: typeof dst === 'string' ? dst : { literal: dst.literal },
      evidence: version.evidence,
    });
    restated.push({
      factId: fact.factId,
      src: fact.src,
      rel: fact.rel,
      dst: fact.dst!,
      canonicalSrc: src,
      canonicalDst: typeof dst === 'string' ? dst : { literal: dst.literal, datatype: dst.datatype },
      validFrom: version.validFrom,
      validTo: version.validTo,
      evidence: version.evidence,
      firstRecordedAt: fact.versions[0]!.recordedFrom,
      openedAt: version.recordedFrom,
      included: included.has(fact.factId),
    });
    topicSources.push({
      kind: 'fact',
      id: fact.factId,
      text: factText({ src, rel: fact.rel, dst }, nameOf),
      at: Date.parse(version.validFrom),
      person: nameOf(src),
    });
  }
  const episodes: Snapshot['episodes'] = [];
  for (const versions of state.events.values()) {
    const event = lastOf(versions);
    if (event === undefined || event.recordedTo !== null) continue;
    const participants = [...new Set(event.participants.map((p) => classes.canonical(p.entityId)))].sort();
    items.push({
      kind: 'event',
      id: event.eventId,
      assertedAt: event.recordedFrom,
      confidence: null,
      links: event.includesFacts.length + participants.length,
    });
    if (event.summary === null) continue;
    const from = Date.parse(event.timeSpan.from);
    episodes.push({
      eventId: event.eventId,
      summary: event.summary,
      participants,
      from,
      to: event.timeSpan.to === null ? null : Date.parse(event.timeSpan.to),
    });
    const person = participants[0];
    topicSources.push({ kind: 'event', id: event.eventId, text: event.summary, at: from, person: person === undefined ? null : nameOf(person) });
  }
  const mentions: Snapshot['merge']['mentions'][number][] = [];
  for (const mention of state.mentions.values()) {
    items.push({ kind: 'mention', id: mention.mentionId, assertedAt: mention.recordedFrom, confidence: null, links: 0 });
    mentions.push({ mentionId: mention.mentionId, docId: mention.docId, speaker: mention.speaker, text: mention.text });
    if (mention.text === null) continue;
    topicSources.push({
      kind: 'mention',
      id: mention.mentionId,
      text: mention.text,
      at: Date.parse(mention.occurredAt ?? mention.recordedFrom),
      person: mention.speaker,
    });
  }
  return { policy: state.tierPolicy, items, episodes, topicSources, restated, merge: { entities, facts, mentions } };
}
