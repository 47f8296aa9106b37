import { deriveEventId, deriveFactId } from '@memotrace/domain';
import type { Derived, ExtractionInput, Extractor, Turn } from '../port';
import { EntityBook, type EntityKind, type NameSimilarity } from './entities';
import { cleanName, nameKey } from './names';
import { CATEGORY_RELATIONS, matchCategories } from './categories';
import { matchRelations, RELATIONS, type Relation } from './relations';
import { turnProbability } from './selection';
import { readTurn, type Statement } from './statements';
import { resolveTimeSpan } from './time';
import { versionWith } from '../version';

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
  /** The least probability of the selection model at which a turn derives events (default 0.33); it maps to confidence 0.5. */
  selectionThreshold?: number;
}

export const RULES_EXTRACTOR_NAME = 'rules';
export const RULES_EXTRACTOR_VERSION = '1.3.0';

const MAX_SUMMARY = 300;
/** Relations stated plainly enough to derive even from a turn the model passes over. */
const STRONG = new Set<Relation>(['lives_in', 'from', 'works_at', 'works_as', 'has_family', 'has_pet', 'relationship_status', ...CATEGORY_RELATIONS]);
/** A further sentence of a selected turn derives its own event from this statement score on. */
const EVENT_STATEMENT = 0.55;
const MAX_EVENTS = 3;
/** Names that are never people, though taggers read them so at the start of a sentence. */
const NOT_NAMES = /^(?:i|me|we|you|he|she|they|it|mom|dad|god|lol|omg|hey|hi|wow|thanks|yeah|ok|okay)$/u;

/**
 * The default extractor: no model, only compromise (names, tense) and chrono (time). A turn
 * derives an event when a sentence states something of the speaker's own life (with the
 * speaker and the people, places and organisations it names as participants, and its time
 * resolved against the turn's `at`), and facts for the personal relations it states in the
 * first person. Entities are resolved against the memory's and each other before they are
 * created. The output depends only on the input (and on the similarity hook, if given).
 */
export function createRulesExtractor(options: RulesExtractorOptions = {}): Extractor {
  const gates = {
    similarityGate: options.similarityGate ?? 0.85,
    mergeGate: options.mergeGate ?? 0.95,
    suggestionConfidence: options.suggestionConfidence ?? 0.3,
  };
  const selectionThreshold = options.selectionThreshold ?? 0.33;
  return {
    name: RULES_EXTRACTOR_NAME,
    version:
      options.similarity === undefined
        ? RULES_EXTRACTOR_VERSION
        : versionWith(RULES_EXTRACTOR_NAME, RULES_EXTRACTOR_VERSION, `names-${options.similarityModel ?? 'similarity'}`),
    async extract(input: ExtractionInput, signal?: AbortSignal): Promise<Derived[]> {
      const book = new EntityBook(input.memoryId, input.entities, gates, options.similarity?.());
      const speakers = new Set([...input.window, ...input.turns].map((t) => nameKey(t.speaker)));
      const defined = new Set<Relation>();
      const out: Derived[] = [];
      for (const turn of input.turns) {
        signal?.throwIfAborted();
        await extractTurn(turn, { memoryId: input.memoryId, book, speakers, defined, selectionThreshold }, out);
      }
      return out;
    },
  };
}

interface TurnContext {
  memoryId: string;
  book: EntityBook;
  speakers: Set<string>;
  defined: Set<Relation>;
  selectionThreshold: number;
}

async function extractTurn(turn: Turn, ctx: TurnContext, out: Derived[]): Promise<void> {
  if (turn.speaker.trim() === '' || turn.text.trim() === '') return;
  const reading = readTurn(turn.text, (sentence) => matchRelations(sentence).length);
  const statements = reading.statements;
  if (statements.length === 0) return;
  const probability = turnProbability(reading.signals, statements[0]!.score);
  const selected = probability >= ctx.selectionThreshold;
  // Confidence is the model's probability moved so that the selection threshold sits at 0.5, a memory's usual gate.
  const confidence = Math.round(Math.max(0.05, Math.min(0.95, 0.5 + (probability - ctx.selectionThreshold))) * 100) / 100;
  const relations = statements.flatMap((s) => [...matchRelations(s.text), ...matchCategories(s.text)].map((r) => ({ ...r, statement: s })));
  const kept = relations.filter((r) => selected || STRONG.has(r.rel));
  if (!selected && kept.length === 0) return;

  const speakerId = await ctx.book.resolve(turn.speaker, 'person', turn.mentionId, out);
  if (speakerId === null) return;
  ctx.book.uses(speakerId, 0.99);
  const facts: { factId: string; confidence: number }[] = [];

  for (const r of kept) {
    let dst: string | { literal: string; datatype: 'string' };
    if ('entity' in r.dst) {
      const id = await ctx.book.resolve(cleanName(r.dst.entity), r.dst.kind, turn.mentionId, out);
      if (id === null || id === speakerId) continue;
      ctx.book.uses(id, r.confidence);
      dst = id;
    } else {
      dst = { literal: r.dst.literal, datatype: 'string' };
    }
    if (RELATIONS[r.rel] === 'one' && !ctx.defined.has(r.rel)) {
      ctx.defined.add(r.rel);
      out.push({
        command: { op: 'DEFINE_RELATION', rel: r.rel, cardinality: 'one' },
        confidence: 1,
        turns: [turn.mentionId],
        why: `"${r.rel}" holds one value at a time`,
      });
    }
    const span = resolveTimeSpan(r.statement.text, turn.at, r.statement.kind === 'past');
    const factId = deriveFactId(ctx.memoryId, speakerId, r.rel, dst);
    out.push({
      command: {
        op: 'UPSERT_EDGE',
        factId,
        src: speakerId,
        rel: r.rel,
        dst,
        validFrom: RELATIONS[r.rel] === 'one' && span.expression !== null && span.from <= turn.at ? span.from : turn.at,
        confidence: r.confidence,
        evidence: [turn.mentionId],
      },
      confidence: r.confidence,
      turns: [turn.mentionId],
      why: r.why,
    });
    facts.push({ factId, confidence: r.confidence });
  }

  if (!selected) return;
  const events = statements.filter((st, i) => i === 0 || (st.score >= EVENT_STATEMENT && i < MAX_EVENTS));
  for (const statement of events) await deriveEvent(turn, statement, confidence, speakerId, facts, ctx, out);
}

async function deriveEvent(
  turn: Turn,
  statement: Statement,
  confidence: number,
  speakerId: string,
  facts: { factId: string; confidence: number }[],
  ctx: TurnContext,
  out: Derived[],
): Promise<void> {
  const participants: { entityId: string; role: string }[] = [{ entityId: speakerId, role: 'speaker' }];
  const named: [string[], EntityKind, string][] = [
    [statement.people, 'person', 'participant'],
    [statement.places, 'place', 'place'],
    [statement.organizations, 'organization', 'organization'],
  ];
  for (const [names, kind, role] of named) {
    for (const raw of names) {
      const name = cleanName(raw);
      if (name.length < 2 || !/^\p{Lu}/u.test(name) || NOT_NAMES.test(nameKey(name)) || isVocative(statement.text, raw)) continue;
      if (kind !== 'person' && ctx.speakers.has(nameKey(name))) continue;
      const id = await ctx.book.resolve(name, kind, turn.mentionId, out);
      if (id === null || participants.some((p) => p.entityId === id)) continue;
      ctx.book.uses(id, confidence);
      participants.push({ entityId: id, role });
    }
  }
  // The event rests on its turn through a fact citing it (UPSERT_EVENT has no evidence of its own): that the
  // speaker told it, which holds at the instant of the telling. A cut of a later time leaves it out, so it never
  // stands beside its turn as a second copy of the same words; the event carries the time of what was told.
  const literal = { literal: statement.text, datatype: 'string' as const };
  const toldId = deriveFactId(ctx.memoryId, speakerId, 'told', literal);
  out.push({
    command: {
      op: 'UPSERT_EDGE',
      factId: toldId,
      src: speakerId,
      rel: 'told',
      dst: literal,
      validFrom: turn.at,
      validTo: new Date(Date.parse(turn.at) + 1).toISOString(),
      confidence,
      evidence: [turn.mentionId],
    },
    confidence,
    turns: [turn.mentionId],
    why: `the turn tells it (${statement.why})`,
  });
  const span = resolveTimeSpan(statement.text, turn.at, statement.kind !== 'future');
  const summary = truncate(`${turn.speaker}: ${statement.text}`);
  const includesFacts = [toldId, ...facts.filter((f) => f.confidence >= confidence).map((f) => f.factId)];
  out.push({
    command: {
      op: 'UPSERT_EVENT',
      eventId: deriveEventId(ctx.memoryId, summary, span.from),
      summary,
      participants,
      includesFacts: [...new Set(includesFacts)],
      timeSpan: { from: span.from, to: span.to },
    },
    confidence,
    turns: [turn.mentionId],
    why: `${statement.kind} statement (${statement.why})${span.expression !== null ? `, time "${span.expression}"` : ''}`,
  });
}

/** A name said to the listener ("Thanks, Anna!"), not of someone taking part. */
function isVocative(sentence: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  return new RegExp(`(?:^(?:\\w+\\s+)?${escaped}\\s*[,!]|,\\s*${escaped}\\s*[.!?,]*$)`, 'u').test(sentence.trim());
}

function truncate(text: string): string {
  return text.length <= MAX_SUMMARY ? text : `${text.slice(0, MAX_SUMMARY - 1).trimEnd()}…`;
}
