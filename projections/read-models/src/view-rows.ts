import type { EdgeTarget, EventView, FactView, Instant, Literal, MentionView, Participant } from '@memotrace/domain';
import { epochMs, instantOfEpochMs, instantOrNullOfEpochMs } from './instants';
import type { MergeForest } from './merge-forest';

/**
 * SELECT lists and row → view mappers. Views are built with the key order of
 * views.ts, and name entities by their canonical id at the cut (the forest).
 */
export const FACT_COLUMNS = `fact_id, src, rel, dst_entity, dst_literal,
  ${epochMs('valid_from')} AS valid_from, ${epochMs('valid_to')} AS valid_to,
  ${epochMs('recorded_from')} AS recorded_from, ${epochMs('recorded_to')} AS recorded_to,
  confidence, evidence, source, erased`;

export interface FactRow {
  fact_id: string;
  src: string;
  rel: string;
  dst_entity: string | null;
  dst_literal: Literal | null;
  valid_from: string;
  valid_to: string | null;
  recorded_from: string;
  recorded_to: string | null;
  confidence: number | null;
  evidence: string[];
  source: string | null;
  erased: boolean;
}

/** `recordedTo` is what the caller's record-time horizon lets it see (null: still open as far as it knows). */
export function factViewOfRow(row: FactRow, forest: MergeForest, recordedTo: Instant | null): FactView {
  const dst = targetOfRow(row.dst_entity, row.dst_literal);
  const view: FactView = {
    factId: row.fact_id,
    src: forest.canonical(row.src),
    rel: row.rel,
    dst: typeof dst === 'string' ? forest.canonical(dst) : dst,
    validFrom: instantOfEpochMs(row.valid_from),
    validTo: instantOrNullOfEpochMs(row.valid_to),
    recordedFrom: instantOfEpochMs(row.recorded_from),
    recordedTo,
    confidence: row.confidence === null ? null : Number(row.confidence),
    evidence: row.evidence,
    source: row.source,
  };
  if (row.erased) view.erased = true;
  return view;
}

export const EVENT_COLUMNS = `ev.event_id, ev.summary, ev.erased, ev.participants, ev.includes_facts,
  ${epochMs('ev.span_from')} AS span_from, ${epochMs('ev.span_to')} AS span_to, ${epochMs('ev.recorded_from')} AS recorded_from`;

export interface EventRow {
  event_id: string;
  summary: string | null;
  erased: boolean;
  participants: Participant[];
  includes_facts: string[];
  span_from: string;
  span_to: string | null;
  recorded_from: string;
}

export function eventViewOfRow(row: EventRow, forest: MergeForest): EventView {
  const view: EventView = {
    eventId: row.event_id,
    summary: row.summary,
    timeSpan: { from: instantOfEpochMs(row.span_from), to: instantOrNullOfEpochMs(row.span_to) },
    participants: row.participants.map((p) => ({ entityId: forest.canonical(p.entityId), role: p.role })),
    includesFacts: row.includes_facts,
    recordedFrom: instantOfEpochMs(row.recorded_from),
  };
  if (row.erased) view.erased = true;
  return view;
}

export const MENTION_COLUMNS =
  `mention_id, doc_id, text, speaker, ${epochMs('occurred_at')} AS occurred_at, ` + `${epochMs('recorded_from')} AS recorded_from, erased`;

export interface MentionRow {
  mention_id: string;
  doc_id: string;
  text: string | null;
  speaker: string | null;
  occurred_at: string | null;
  recorded_from: string;
  erased: boolean;
}

export function mentionViewOfRow(row: MentionRow): MentionView {
  const view: MentionView = {
    mentionId: row.mention_id,
    docId: row.doc_id,
    text: row.text,
    speaker: row.speaker,
    occurredAt: instantOrNullOfEpochMs(row.occurred_at),
    recordedFrom: instantOfEpochMs(row.recorded_from),
  };
  if (row.erased) view.erased = true;
  return view;
}

/** Null when the row holds neither: its literal was erased (or read after its key was destroyed). */
export function targetOfRow(entity: string | null, literal: Literal | null): EdgeTarget | null {
  if (entity !== null) return entity;
  if (literal === null) return null;
  return { literal: literal.literal, datatype: literal.datatype };
}
