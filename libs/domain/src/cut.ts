import type { EdgeTarget } from './commands';
import type { MergeClasses } from './merge-classes';
import {
  type EntityRecord,
  type EpisodeVersion,
  type EventVersion,
  type FactRecord,
  type FactVersion,
  type MemoryState,
  type MentionRecord,
  type MergeRecord,
  canonicalTarget,
  lastOf,
  subjectKey,
} from './state';
import { normaliseName } from './ids';
import { type Instant, contains } from './time';
import type {
  ChangeCount,
  ChangeView,
  Cut,
  EntityFilter,
  EntityView,
  EpisodeView,
  EventFilter,
  EventView,
  FactFilter,
  FactView,
  MentionFilter,
  MentionView,
  TopicView,
  Page,
  ValidAt,
} from './views';
import { compareDocumentOrder, compareIds, pageOf } from './views';
import {
  type AccessorParts,
  type CutKind,
  type CutPredicate,
  type Translations,
  TOPIC_VISIBILITY,
  VISIBILITY,
  compileCut,
  inRecordTime,
  inValidTime,
  listedMembers,
} from './visibility';

/**
 * The reference cut: cut functions over a state folded up to the cut's record time `r`
 * (see `fold`), deciding what is in the cut `(validAt, r)` by the rules of visibility.ts
 * (`inCut`, compiled per kind by `compileCut`), never by rules of their own. Such a state holds exactly what was recorded at
 * or before `r`, so `r` is its latest record time, and by the invariant of SPEC 3.1 only an
 * item's last version can hold `r` in its record interval: it is the one version the rules
 * are asked about.
 */

export function inValidity(from: Instant, to: Instant | null, validAt: ValidAt): boolean {
  return inValidTime(from, to, validAt);
}

/** The records of the state that the rules read, by kind. */
interface StateItems {
  fact: FactVersion;
  event: EventVersion;
  episode: EpisodeVersion;
  mention: MentionRecord;
  entity: EntityRecord;
  merge: MergeRecord;
}

/** The domain's translation of the rules: where its records keep what the rules read, and the one version of an item that can be in the cut. */
const STATE_ITEMS: Translations<
  { [K in CutKind]: AccessorParts<StateItems[K]> },
  { [K in CutKind]: { candidate(state: MemoryState, id: string): StateItems[K] | undefined } }
> = {
  fact: {
    recordedFrom: (v) => v.recordedFrom,
    recordedTo: (v) => v.recordedTo,
    validity: { from: (v) => v.validFrom, to: (v) => v.validTo },
    candidate: (state, id) => lastOf(state.facts.get(id)?.versions ?? []),
  },
  event: {
    recordedFrom: (v) => v.recordedFrom,
    recordedTo: (v) => v.recordedTo,
    validity: { from: (v) => v.timeSpan.from, to: (v) => v.timeSpan.to },
    members: (v) => v.includesFacts,
    candidate: (state, id) => lastOf(state.events.get(id) ?? []),
  },
  episode: {
    recordedFrom: (v) => v.recordedFrom,
    recordedTo: (v) => v.recordedTo,
    validity: { from: (v) => v.window.from, to: (v) => v.window.to },
    members: (v) => v.events,
    candidate: (state, id) => lastOf(state.episodes.get(id) ?? []),
  },
  mention: { recordedFrom: (m) => m.recordedFrom, candidate: (state, id) => state.mentions.get(id) },
  entity: { recordedFrom: (e) => e.recordedFrom, candidate: (state, id) => state.entities.get(id) },
  // Merges are named by no member list.
  merge: { recordedFrom: (m) => m.recordedAt, candidate: () => undefined },
};

/**
 * The record time of a state folded to r: its latest. (A state that does not say holds no
 * later record time either: any instant after all of them, such as one after every instant,
 * cuts it alike.)
 */
const foldedAt = (state: MemoryState): Instant => state.latestRecordedAt ?? '\uffff';

/** Each kind's rule compiled once from its translation. */
const STATE_CUT: { readonly [K in CutKind]: CutPredicate<StateItems[K]> } = {
  fact: compileCut('fact', STATE_ITEMS.fact),
  event: compileCut('event', STATE_ITEMS.event),
  episode: compileCut('episode', STATE_ITEMS.episode),
  mention: compileCut('mention', STATE_ITEMS.mention),
  entity: compileCut('entity', STATE_ITEMS.entity),
  merge: compileCut('merge', STATE_ITEMS.merge),
};

/** The cut `(validAt, r)` of a state folded to r, one per answer (its closures are made once, not per item). */
class StateCut {
  private readonly cut: Cut;
  private readonly anyValidity: Cut;

  constructor(
    private readonly state: MemoryState,
    validAt: ValidAt,
  ) {
    const recordedAt = foldedAt(state);
    this.cut = { validAt, recordedAt };
    this.anyValidity = { validAt: '*', recordedAt };
  }

  /** Whether `item` of `kind` is in the cut. */
  shows<K extends CutKind>(kind: K, item: StateItems[K]): boolean {
    return (STATE_CUT[kind] as CutPredicate<StateItems[K]>)(item, this.cut, this.counts);
  }

  /** A member counts: the item of `kind` named `id` is in the cut `('*', r)`. */
  readonly counts = (kind: CutKind, id: string): boolean => this.countsOf(kind, id);

  private countsOf<K extends CutKind>(kind: K, id: string): boolean {
    const item = (STATE_ITEMS[kind].candidate as (state: MemoryState, id: string) => StateItems[K] | undefined)(this.state, id);
    return item !== undefined && (STATE_CUT[kind] as CutPredicate<StateItems[K]>)(item, this.anyValidity, this.counts);
  }

  /** The members an item's answer lists (its rule's `lists`). */
  listed(kind: 'event' | 'episode', members: readonly string[]): string[] {
    const requires = VISIBILITY[kind].requires;
    return listedMembers(requires, members, (id) => this.counts(requires.kind, id));
  }
}

/** Every validity bound of the state's versions (fact validities, event spans, episode windows), sorted: where validAt cuts can change. */
export function validityBounds(state: MemoryState): Instant[] {
  const bounds = new Set<Instant>();
  const add = (from: Instant, to: Instant | null) => {
    bounds.add(from);
    if (to !== null) bounds.add(to);
  };
  for (const fact of state.facts.values()) for (const v of fact.versions) add(v.validFrom, v.validTo);
  for (const versions of state.events.values()) for (const v of versions) add(v.timeSpan.from, v.timeSpan.to);
  for (const versions of state.episodes.values()) for (const v of versions) add(v.window.from, v.window.to);
  return [...bounds].sort();
}

export function factsAt(state: MemoryState, validAt: ValidAt, filter: FactFilter = {}): FactView[] {
  const views: FactView[] = [];
  const cut = new StateCut(state, validAt);
  const src = srcIds(filter);
  const candidates = src !== undefined && filter.rel !== undefined ? subjectFacts(state, src, filter.rel) : state.facts.values();
  for (const fact of candidates) {
    const version = lastOf(fact.versions);
    if (!version || !cut.shows('fact', version) || !matches(state, fact, version, filter)) continue;
    views.push(factView(state.classes, fact, version));
  }
  return pageOf(
    views.sort((a, b) => compareIds(a.factId, b.factId)),
    (f) => f.factId,
    filter,
  );
}

/**
 * The facts of the subjects `(rel, src)` for each src and every member of its class at the state's record time (the
 * state's subject index): what a filter naming both src and rel can select, without reading the other facts.
 */
export function subjectFacts(state: MemoryState, src: readonly string[], rel: string): FactRecord[] {
  const ids = new Set<string>();
  for (const id of src)
    for (const member of state.classes.classOf(state.classes.canonical(id)))
      for (const factId of state.factsBySubject.get(subjectKey(rel, member)) ?? []) ids.add(factId);
  return [...ids].map((factId) => state.facts.get(factId)!);
}

export function factHistory(state: MemoryState, factId: string): FactView[] | null {
  const fact = state.facts.get(factId);
  return fact ? fact.versions.map((version) => factView(state.classes, fact, version)) : null;
}

/** Answers name entities by their canonical id at the cut (SPEC MERGE_ENTITY). */
export function factView(classes: MergeClasses, fact: Pick<FactRecord, 'factId' | 'src' | 'rel' | 'dst'>, version: FactVersion): FactView {
  // An erased version's literal stays erased when a later assertion names the fact's literal again.
  const dst = fact.dst === null || (version.erased && typeof fact.dst !== 'string') ? null : targetView(canonicalTarget(classes, fact.dst));
  const view: FactView = {
    factId: fact.factId,
    src: classes.canonical(fact.src),
    rel: fact.rel,
    dst,
    validFrom: version.validFrom,
    validTo: version.validTo,
    recordedFrom: version.recordedFrom,
    recordedTo: version.recordedTo,
    confidence: version.confidence,
    evidence: [...version.evidence],
    source: version.source,
  };
  if (version.erased) view.erased = true;
  return view;
}

/** Answers list fields in one order, whatever order the log's storage kept. */
function targetView(target: EdgeTarget): EdgeTarget {
  return typeof target === 'string' ? target : { literal: target.literal, datatype: target.datatype };
}

/** A fact filter's `src`, as a list (one id or several). */
export function srcIds(filter: Pick<FactFilter, 'src'>): readonly string[] | undefined {
  return typeof filter.src === 'string' ? [filter.src] : filter.src;
}

export function matchesFilter(classes: MergeClasses, fact: { src: string; rel: string; dst: EdgeTarget | null }, filter: FactFilter): boolean {
  if (filter.rel !== undefined && fact.rel !== filter.rel) return false;
  const src = srcIds(filter);
  if (src !== undefined) {
    const root = classes.canonical(fact.src);
    if (!src.some((id) => classes.canonical(id) === root)) return false;
  }
  if (filter.dst !== undefined) {
    const dst = fact.dst;
    // An erased literal matches no filter.
    const hit =
      dst === null ? false : typeof dst === 'string' ? classes.canonical(dst) === classes.canonical(filter.dst) : String(dst.literal) === filter.dst;
    if (!hit) return false;
  }
  return true;
}

function matches(state: MemoryState, fact: FactRecord, version: FactVersion, filter: FactFilter): boolean {
  const dst = version.erased && typeof fact.dst !== 'string' ? null : fact.dst;
  return matchesFilter(state.classes, { src: fact.src, rel: fact.rel, dst }, filter);
}

export function entityAt(state: MemoryState, entityId: string): EntityView | null {
  const cut = new StateCut(state, '*');
  const shown = (id: string): EntityRecord | undefined => {
    const entity = state.entities.get(id);
    return entity !== undefined && cut.shows('entity', entity) ? entity : undefined;
  };
  if (!shown(entityId)) return null;
  const root = state.classes.canonical(entityId);
  const entity = shown(root);
  if (!entity) return null;
  const members = state.classes
    .classOf(root)
    .map(shown)
    .filter((e) => e !== undefined);
  // An erased name is left out of the lists.
  const names = new Set<string>();
  if (entity.name !== null) names.add(entity.name);
  const aliases = new Set<string>();
  const types = new Set<string>();
  for (const member of members) {
    if (member.name !== null) {
      names.add(member.name);
      if (member.entityId !== root) aliases.add(member.name);
    }
    member.aliases.forEach((a) => aliases.add(a.value));
    member.types.forEach((t) => types.add(t.value));
  }
  if (entity.name !== null) aliases.delete(entity.name);
  const inClass = new Set(members.map((m) => m.entityId));
  const view: EntityView = {
    entityId: root,
    name: entity.name,
    names: [...names],
    aliases: [...aliases],
    types: [...types],
    merges: state.merges
      .filter((m) => inClass.has(m.dstRoot) && cut.shows('merge', m))
      .map((m) => ({ entityId: m.srcRoot, into: m.dstRoot, recordedAt: m.recordedAt })),
    recordedFrom: entity.recordedFrom,
  };
  if (entity.erased) view.erased = true;
  return view;
}

/**
 * The canonical entities the state shows that `filter` selects (see EntityFilter), each as
 * `entityAt` answers it, sorted by entityId. An entity merged into another is listed as that one:
 * its name is then one of the canonical entity's names and aliases.
 */
export function entitiesAt(state: MemoryState, filter: EntityFilter = {}): EntityView[] {
  const cut = new StateCut(state, '*');
  const matchesName = nameMatcher(filter);
  const type = filter.type === undefined ? undefined : normaliseName(filter.type);
  // The roots the ids name: an id names its class at r if the entity it names is visible.
  const named =
    filter.ids === undefined
      ? undefined
      : new Set(
          filter.ids.filter((id) => state.entities.has(id) && cut.shows('entity', state.entities.get(id)!)).map((id) => state.classes.canonical(id)),
        );
  const roots = [...state.entities.values()]
    .filter((e) => cut.shows('entity', e) && state.classes.canonical(e.entityId) === e.entityId && (named === undefined || named.has(e.entityId)))
    .map((e) => e.entityId)
    .filter((entityId) => filter.after === undefined || compareIds(entityId, filter.after) > 0)
    .sort(compareIds);
  // Views in id order, only as many as the page takes.
  const views: EntityView[] = [];
  for (const entityId of roots) {
    if (views.length === filter.limit) break;
    const view = entityAt(state, entityId)!;
    if (matchesName && !view.names.some(matchesName) && !view.aliases.some(matchesName)) continue;
    if (type !== undefined && !view.types.some((t) => normaliseName(t) === type)) continue;
    views.push(view);
  }
  return views;
}

/** Whether a name or alias matches the filter's name (exactly or as a prefix, as `normaliseName` keys); undefined without one. */
function nameMatcher({ name, match }: Pick<EntityFilter, 'name' | 'match'>): ((value: string) => boolean) | undefined {
  if (name === undefined) return undefined;
  const key = normaliseName(name);
  return match === 'prefix' ? (value) => normaliseName(value).startsWith(key) : (value) => normaliseName(value) === key;
}

/** SPEC §3.2 (VISIBILITY.event): recorded, and every fact of its evidence closure believed at the cut; those the filter selects. */
export function eventsAt(state: MemoryState, validAt: ValidAt, filter: EventFilter = {}): EventView[] {
  const views: EventView[] = [];
  const cut = new StateCut(state, validAt);
  const about = filter.entity === undefined ? undefined : state.classes.canonical(filter.entity);
  for (const versions of state.events.values()) {
    const current = lastOf(versions);
    if (!current || !cut.shows('event', current)) continue;
    if (about !== undefined && !isAbout(state, current, about)) continue;
    const view: EventView = {
      eventId: current.eventId,
      summary: current.summary,
      timeSpan: { from: current.timeSpan.from, to: current.timeSpan.to },
      participants: current.participants.map((p) => ({ entityId: state.classes.canonical(p.entityId), role: p.role })),
      includesFacts: cut.listed('event', current.includesFacts),
      recordedFrom: current.recordedFrom,
    };
    if (current.erased) view.erased = true;
    views.push(view);
  }
  return pageOf(
    views.sort((a, b) => compareIds(a.eventId, b.eventId)),
    (e) => e.eventId,
    filter,
  );
}

/** EventFilter.entity: the entity (a class root at the cut) takes part in the event, or a fact of its evidence is from or to it. */
function isAbout(state: MemoryState, event: EventVersion, root: string): boolean {
  const names = (id: string) => state.classes.canonical(id) === root;
  return (
    event.participants.some((p) => names(p.entityId)) ||
    event.includesFacts.some((factId) => {
      const fact = state.facts.get(factId);
      return fact !== undefined && (names(fact.src) || (typeof fact.dst === 'string' && names(fact.dst)));
    })
  );
}

/** VISIBILITY.episode: visible iff one of its events is; lists only its visible events. A page of them by episodeId. */
export function episodesAt(state: MemoryState, validAt: ValidAt, page: Page = {}): EpisodeView[] {
  const views: EpisodeView[] = [];
  const cut = new StateCut(state, validAt);
  for (const versions of state.episodes.values()) {
    const current = lastOf(versions);
    if (!current || !cut.shows('episode', current)) continue;
    const events = cut.listed('episode', current.events);
    views.push({
      episodeId: current.episodeId,
      title: current.title,
      window: { from: current.window.from, to: current.window.to },
      events,
      recordedFrom: current.recordedFrom,
    });
  }
  return pageOf(
    views.sort((a, b) => compareIds(a.episodeId, b.episodeId)),
    (e) => e.episodeId,
    page,
  );
}

/** TOPIC_VISIBILITY: visible iff one of its members is; lists only its visible members. A page of them by topicId. */
export function topicsAt(state: MemoryState, validAt: ValidAt, page: Page = {}): TopicView[] {
  const views: TopicView[] = [];
  const cut = new StateCut(state, validAt);
  const recordedAt = foldedAt(state);
  for (const versions of state.topics.values()) {
    const current = lastOf(versions);
    if (!current || !inRecordTime(TOPIC_VISIBILITY.record, current.recordedFrom, current.recordedTo, recordedAt)) continue;
    if (!inValidTime(current.window.from, current.window.to, validAt)) continue;
    const members = current.members.filter((m) => cut.counts(m.kind, m.id)).map((m) => m.id);
    if (members.length === 0) continue;
    views.push({
      topicId: current.topicId,
      title: current.title,
      summary: current.summary,
      window: { from: current.window.from, to: current.window.to },
      members,
      recordedFrom: current.recordedFrom,
      ...(current.erased ? { erased: true as const } : {}),
    });
  }
  return pageOf(
    views.sort((a, b) => compareIds(a.topicId, b.topicId)),
    (t) => t.topicId,
    page,
  );
}

export function mentionsAt(state: MemoryState, filter: MentionFilter = {}): MentionView[] {
  const cut = new StateCut(state, '*');
  const mentions = filter.ids === undefined ? [...state.mentions.values()] : filter.ids.flatMap((id) => state.mentions.get(id) ?? []);
  return [...new Set(mentions)]
    .filter((m) => cut.shows('mention', m))
    .map(mentionView)
    .sort((a, b) => compareIds(a.mentionId, b.mentionId));
}

/** The mentions of document `docId` the state shows, in document order. */
export function documentMentionsAt(state: MemoryState, docId: string): MentionView[] {
  const cut = new StateCut(state, '*');
  return [...state.mentions.values()]
    .filter((m) => m.docId === docId && cut.shows('mention', m))
    .map(mentionView)
    .sort(compareDocumentOrder);
}

/** The mention `mentionId` if the state shows it, else null. */
export function mentionAt(state: MemoryState, mentionId: string): MentionView | null {
  const mention = state.mentions.get(mentionId);
  return mention !== undefined && new StateCut(state, '*').shows('mention', mention) ? mentionView(mention) : null;
}

function mentionView(m: MentionRecord): MentionView {
  const view: MentionView = {
    mentionId: m.mentionId,
    docId: m.docId,
    text: m.text,
    speaker: m.speaker,
    occurredAt: m.occurredAt,
    recordedFrom: m.recordedFrom,
  };
  if (m.erased) view.erased = true;
  return view;
}

/** Versions opened or closed with record time in `[from, to)`, in record-time order. */
export function changesBetween(state: MemoryState, from: Instant, to: Instant): ChangeView[] {
  const changes: ChangeView[] = [];
  for (const fact of state.facts.values()) {
    for (const version of fact.versions) {
      const view = factView(state.classes, fact, version);
      if (contains(from, to, version.recordedFrom)) changes.push({ change: 'opened', at: version.recordedFrom, version: view });
      if (version.recordedTo !== null && contains(from, to, version.recordedTo))
        changes.push({ change: 'closed', at: version.recordedTo, version: view });
    }
  }
  return changes.sort(compareChanges);
}

/** The record instants with changes in `[from, to)`, ascending, with how many at each: the first `max` of them. */
export function changeCountsOf(changes: readonly ChangeView[], max: number): ChangeCount[] {
  const counts: ChangeCount[] = [];
  for (const change of changes) {
    const last = counts[counts.length - 1];
    if (last?.at === change.at) last.changes += 1;
    else if (counts.length === max) break;
    else counts.push({ at: change.at, changes: 1 });
  }
  return counts;
}

/**
 * By time, then fact, closings before openings, then older version first. A total order:
 * versions opened at the same record time (one replaced within that instant) are ordered
 * by record end (the ended one first), then validity, so read models and replay agree.
 */
export function compareChanges(a: ChangeView, b: ChangeView): number {
  if (a.at !== b.at) return compareIds(a.at, b.at);
  if (a.version.factId !== b.version.factId) return compareIds(a.version.factId, b.version.factId);
  if (a.change !== b.change) return a.change === 'closed' ? -1 : 1;
  return (
    compareIds(a.version.recordedFrom, b.version.recordedFrom) ||
    compareEnds(a.version.recordedTo, b.version.recordedTo) ||
    compareIds(a.version.validFrom, b.version.validFrom) ||
    compareEnds(a.version.validTo, b.version.validTo)
  );
}

/** Interval ends: an open end (null) comes after every instant. */
function compareEnds(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareIds(a, b);
}
