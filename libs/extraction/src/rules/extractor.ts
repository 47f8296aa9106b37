import { deriveEventId, deriveFactId, relationPhrase } from '@memotrace/domain';
import type { Derived, ExtractionInput, Extractor, Turn } from '../port';
import { versionWith } from '../version';
import { type CategoryMatch, matchCategories } from './categories';
import { type Clause, readClauses } from './clauses';
import { EntityBook, type NameSimilarity } from './entities';
import { cleanName, type EntityKind, nameKey, nameRuns } from './names';
import { probability, type TurnSignals, turnSignals } from './selection';
import { type Statement, type StatementObject, statementsOf, verbStatement } from './statements';
import { resolveTimeSpan, spanWords, type TimeSpan } from './time';
import { addressedTo, readSentences } from './tokens';
import { cardinalityOf, relationKey, reuse } from '../relations';
import { statedPlainly } from './vocabulary';

export interface RulesExtractorOptions {
  /**
   * How alike two names are in [0, 1] (e.g. embedding similarity), for near-duplicate entities; none by
   * default. Made afresh for each extraction: what it keeps (vectors of names) lives only as long.
   */
  similarity?: () => NameSimilarity;
  /** What `similarity` is (e.g. the embedding model): part of the version, since the output depends on it. */
  similarityModel?: string;
  /** A similarity score counts from this value on: a suggested merge, under the memory's gate (default 0.85). */
  similarityGate?: number;
  /** Near-duplicates at or above this score are the same entity (an alias or a MERGE_ENTITY); default 0.95. */
  mergeGate?: number;
  /** The confidence of a merge only suggested: below the memory's gate (default 0.3). */
  suggestionConfidence?: number;
}

export const RULES_EXTRACTOR_NAME = 'rules';
export const RULES_EXTRACTOR_VERSION = '2.0.0';

const MAX_SUMMARY = 300;
/** The least confidence of a statement said plainly (vocabulary.ts): above the usual gate, whatever the turn is like. */
const PLAIN_CONFIDENCE = 0.75;
const PRESENT = /^(?:right now|now|today|currently|tonight)$/iu;

/**
 * The default extractor: no model, only compromise (tags, verb forms, names) and chrono (time).
 * Each clause of a turn that states something of someone (the speaker, something of theirs, a
 * person named) becomes a statement in third person: a fact `subject rel object` citing the turn.
 * A clause that says something happened or will happen at a time also becomes an event, whose
 * summary says what and when and which includes the fact. Questions, greetings and chit-chat derive
 * nothing; no fact or event holds a turn's sentence. Entities are the people, places, organisations
 * and pets named, resolved against the memory's and each other before they are created. The output
 * depends only on the input (and on the similarity hook, if given).
 */
export function createRulesExtractor(options: RulesExtractorOptions = {}): Extractor {
  const gates = {
    similarityGate: options.similarityGate ?? 0.85,
    mergeGate: options.mergeGate ?? 0.95,
    suggestionConfidence: options.suggestionConfidence ?? 0.3,
  };
  return {
    name: RULES_EXTRACTOR_NAME,
    version:
      options.similarity === undefined
        ? RULES_EXTRACTOR_VERSION
        : versionWith(RULES_EXTRACTOR_NAME, RULES_EXTRACTOR_VERSION, `names-${options.similarityModel ?? 'similarity'}`),
    async extract(input: ExtractionInput, signal?: AbortSignal): Promise<Derived[]> {
      const book = new EntityBook(input.memoryId, input.entities, gates, options.similarity?.());
      const relations = new Map<string, string>();
      for (const r of input.relations ?? []) relations.set(relationKey(r.rel), r.rel);
      const declared = new Set((input.relations ?? []).filter((r) => r.cardinality === 'one').map((r) => r.rel));
      const speakerNames = new Map([...input.window, ...input.turns].map((t) => [nameKey(t.speaker), t.speaker.trim()] as const));
      const speakers = new Set(speakerNames.keys());
      const previous = new Map(input.window.map((t) => [t.sessionId, t] as const));
      const ctx: TurnContext = { memoryId: input.memoryId, book, relations, declared, speakers, speakerNames, previous };
      const out: Derived[] = [];
      for (const turn of input.turns) {
        signal?.throwIfAborted();
        await extractTurn(turn, ctx, out);
      }
      return out;
    },
  };
}

interface TurnContext {
  memoryId: string;
  book: EntityBook;
  /** Relations known by key (the memory's, then this extraction's own): a statement reuses their spelling. */
  relations: Map<string, string>;
  /** `one` relations declared (by the memory or earlier in this extraction). */
  declared: Set<string>;
  speakers: Set<string>;
  /** Each speaker's name as said, by key. */
  speakerNames: Map<string, string>;
  /** The turn said last in each session (the window's, then each turn's as it is read). */
  previous: Map<string, Turn>;
}

/** A statement with what the turn needs to write it: its confidence, its time, its clause's event if any. */
interface Planned {
  statement: Statement;
  confidence: number;
  span: TimeSpan;
  event: boolean;
}

/** A turn read: each clause with its statements (the clause's own first), and what the turn shows. */
export interface TurnReading {
  clauses: { clause: Clause; statements: Statement[] }[];
  signals: TurnSignals;
}

/**
 * `listener`: the one other person of the dialog, whom "you" and "your" name when the turn speaks of
 * something of theirs; `answers`: the turn follows a question of the other speaker's.
 */
export function readTurn(text: string, at: string, listener?: string, answers = false): TurnReading {
  const said = readSentences(text);
  const sentences = listener === undefined ? said : said.map((s) => addressedTo(s, listener));
  const clauses: TurnReading['clauses'] = [];
  for (const sentence of sentences) {
    for (const clause of readClauses(sentence)) {
      const statements = statementsOf(clause, bareHappening(clause) ? timeOf(clause, at) : undefined);
      if (clause.subject.kind === 'speaker') statements.push(...matchCategories(clause.text).map((m) => categoryStatement(clause, m)));
      clauses.push({ clause, statements });
    }
  }
  return {
    clauses,
    signals: turnSignals(
      said,
      clauses.flatMap((r) => r.statements),
      answers,
      listener ?? null,
    ),
  };
}

async function extractTurn(turn: Turn, ctx: TurnContext, out: Derived[]): Promise<void> {
  if (turn.speaker.trim() === '' || turn.text.trim() === '') return;
  const others = [...ctx.speakers.values()].filter((s) => s !== nameKey(turn.speaker));
  const before = ctx.previous.get(turn.sessionId);
  const answers = before !== undefined && nameKey(before.speaker) !== nameKey(turn.speaker) && /\?\s*$/u.test(before.text.trim());
  ctx.previous.set(turn.sessionId, turn);
  const { clauses, signals } = readTurn(turn.text, turn.at, others.length === 1 ? ctx.speakerNames.get(others[0]!) : undefined, answers);
  const planned: Planned[] = [];
  let index = 0;
  for (const { clause, statements } of clauses) {
    const past = clause.mode === 'past' || clause.mode === 'perfect' || clause.mode === 'used_to';
    const span = resolveTimeSpan(clause.text, turn.at, past);
    // "Now", "today": the time of the telling, not of what happened; "every morning": a habit, no event.
    const timed = (span.expression !== null && !PRESENT.test(span.expression)) || clause.recent;
    statements.forEach((statement, i) => {
      const p = probability(statement, signals, index++);
      const confidence = confidenceOf(statement.canonical && statedPlainly(statement.rel) ? Math.max(p, PLAIN_CONFIDENCE) : p);
      const happening = clause.mode === 'past' || clause.mode === 'perfect' || clause.mode === 'future' || statement.intent === true;
      planned.push({ statement, confidence, span, event: i === 0 && timed && happening && !clause.copula });
    });
  }
  if (planned.length === 0) return;
  const speakerId = await ctx.book.resolve(turn.speaker, 'person', turn.mentionId, out);
  if (speakerId === null) return;
  for (const p of planned) await writeStatement(turn, p, speakerId, ctx, out);
}

/** The fact of a statement, and the event of its clause when it tells of something that happened or will happen at a time. */
async function writeStatement(turn: Turn, p: Planned, speakerId: string, ctx: TurnContext, out: Derived[]): Promise<void> {
  const { statement, confidence, span } = p;
  const subject = statement.subject;
  // A person named as the subject: one the memory or the dialog knows, or a new one by that name.
  const src = subject.kind === 'named' ? await ctx.book.resolve(cleanName(subject.name), 'person', turn.mentionId, out) : speakerId;
  if (src === null) return;
  ctx.book.uses(src, confidence);
  const dst = await target(statement.object, turn, ctx, out);
  if (dst === null || dst === src) return;
  if (typeof dst === 'string') ctx.book.uses(dst, confidence);
  const rel = reuse(statement.rel, ctx.relations);
  ctx.relations.set(relationKey(rel), rel);
  if (cardinalityOf(rel) === 'one' && !ctx.declared.has(rel)) {
    ctx.declared.add(rel);
    out.push({
      command: { op: 'DEFINE_RELATION', rel, cardinality: 'one' },
      confidence: 1,
      turns: [turn.mentionId],
      why: `"${rel}" holds one value at a time`,
    });
  }
  // "Right now", "today": the present of the telling, not a time the change happened at.
  const said = span.expression !== null && span.from <= turn.at && !PRESENT.test(span.expression);
  const factId = deriveFactId(ctx.memoryId, src, rel, dst);
  out.push({
    command: {
      op: 'UPSERT_EDGE',
      factId,
      src,
      rel,
      dst,
      // A change said with its time ("moved here last month") holds from then on; anything else from the telling.
      validFrom: said && (cardinalityOf(rel) === 'one' || p.event) ? span.from : turn.at,
      confidence,
      evidence: [turn.mentionId],
    },
    confidence,
    turns: [turn.mentionId],
    why: `${statement.why}${statement.canonical ? '' : ', named for its verb'}`,
  });
  if (p.event) await writeEvent(turn, p, speakerId, src, factId, ctx, out);
}

async function writeEvent(turn: Turn, p: Planned, speakerId: string, src: string, factId: string, ctx: TurnContext, out: Derived[]): Promise<void> {
  const clause = p.statement.clause;
  const told = verbStatement(clause) ?? p.statement;
  const who = clause.subject.kind === 'named' ? clause.subject.name : clause.subject.kind === 'possessed' ? `${turn.speaker}'s` : turn.speaker;
  const rel = told.rel;
  const object = 'literal' in told.object ? told.object.literal : told.object.entity;
  const when = spanWords(p.span, turn.at);
  // A happening with nothing it happened to holds its time already ("graduated the week of 14 August 2023").
  const summary = truncate(object === when ? `${who} ${relationPhrase(rel)} ${when}` : `${who} ${relationPhrase(rel)} ${object} (${when})`);
  const participants: { entityId: string; role: string }[] = [{ entityId: src, role: src === speakerId ? 'speaker' : 'subject' }];
  for (const run of nameRuns(clause.tokens)) {
    if (run.kind === 'thing' || (run.kind !== 'person' && ctx.speakers.has(nameKey(run.name)))) continue;
    const id = await ctx.book.resolve(cleanName(run.name), run.kind, turn.mentionId, out);
    if (id === null || participants.some((x) => x.entityId === id)) continue;
    ctx.book.uses(id, p.confidence);
    participants.push({ entityId: id, role: run.kind === 'person' ? 'participant' : run.kind });
  }
  out.push({
    command: {
      op: 'UPSERT_EVENT',
      eventId: deriveEventId(ctx.memoryId, summary, p.span.from),
      summary,
      participants,
      includesFacts: [factId],
      timeSpan: { from: p.span.from, to: p.span.to },
    },
    confidence: p.confidence,
    turns: [turn.mentionId],
    why: `${clause.mode} "${clause.surface}"${p.span.expression !== null ? `, time "${p.span.expression}"` : ', just before the telling'}`,
  });
}

/** A clause telling of something that happened with nothing it happened to ("I graduated last week"). */
function bareHappening(clause: Clause): boolean {
  return clause.object.length === 0 && !clause.copula && (clause.mode === 'past' || clause.mode === 'perfect');
}

/** The time a clause says, in words, resolved against the turn's `at`; undefined when it says none. */
function timeOf(clause: Clause, at: string): string | undefined {
  const span = resolveTimeSpan(clause.text, at, true);
  return span.expression === null ? undefined : spanWords(span, at);
}

async function target(
  object: StatementObject,
  turn: Turn,
  ctx: TurnContext,
  out: Derived[],
): Promise<string | { literal: string; datatype: 'string' } | null> {
  if ('literal' in object) return { literal: object.literal, datatype: 'string' };
  const name = cleanName(object.entity);
  if (name.length < 2) return null;
  return ctx.book.resolve(name, object.kind as EntityKind, turn.mentionId, out);
}

function categoryStatement(clause: Clause, m: CategoryMatch): Statement {
  return { subject: clause.subject, rel: m.rel, object: { literal: m.literal }, canonical: true, clause, why: m.why };
}

/** The model's probability, in hundredths, within [0.05, 0.95]. */
function confidenceOf(p: number): number {
  return Math.round(Math.max(0.05, Math.min(0.95, p)) * 100) / 100;
}

function truncate(text: string): string {
  return text.length <= MAX_SUMMARY ? text : `${text.slice(0, MAX_SUMMARY - 1).trimEnd()}…`;
}
