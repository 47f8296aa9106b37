import { hash } from 'node:crypto';
import type { EdgeTarget } from './commands';

/** Deterministic ids: the same memory and inputs always give the same id. (One-shot `hash`: cheaper than a Hash object per id.) */
function digest(prefix: string, parts: readonly string[]): string {
  return prefix + hash('sha256', parts.join('\u0000'), 'hex').slice(0, 24);
}

/**
 * Case-folded, whitespace-normalised name (SPEC §3, UPSERT_ENTITY). Upper then
 * lower case approximates full case folding: "Strauß" and "STRAUSS" agree.
 */
export function normaliseName(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/gu, ' ').toUpperCase().toLowerCase();
}

export function targetKey(target: EdgeTarget): string {
  return typeof target === 'string' ? `e:${target}` : `l:${target.datatype}:${JSON.stringify(target.literal)}`;
}

export function deriveEntityId(memoryId: string, name: string): string {
  return digest('ent_', [memoryId, normaliseName(name)]);
}

export function deriveFactId(memoryId: string, src: string, rel: string, dst: EdgeTarget): string {
  return digest('fact_', [memoryId, src, rel, targetKey(dst)]);
}

export function deriveEventId(memoryId: string, summary: string, from: string): string {
  return digest('evt_', [memoryId, summary, from]);
}

export function deriveEpisodeId(memoryId: string, title: string, from: string): string {
  return digest('epi_', [memoryId, title, from]);
}

export function deriveTopicId(memoryId: string, title: string, from: string): string {
  return digest('top_', [memoryId, title, from]);
}

/**
 * The speaker counts (when there is one): "ok" said by each side of a dialog is two mentions, not
 * one mention recorded twice with different speakers (a conflict). A speakerless id leaves the
 * speaker out of the digest altogether, so it stays the id of a mention recorded without one.
 */
export function deriveMentionId(memoryId: string, docId: string, text: string, occurredAt: string | null, speaker: string | null = null): string {
  return digest('men_', speaker === null ? [memoryId, docId, text, occurredAt ?? ''] : [memoryId, docId, text, occurredAt ?? '', speaker]);
}

/** Event ids for the log: a UUID-shaped digest of the command and the event's index in it. */
export function deriveLogRecordId(memoryId: string, commandId: string, index: number): string {
  const hex = hash('sha256', `${memoryId}\u0000${commandId}\u0000${index}`, 'hex');
  const variant = ((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The command id of a dialog turn's RECORD_MENTION (SPEC §5.1): the same turn sent again is a
 * duplicate; the same turn id with other content is a new command (and a MENTION_CONFLICT).
 */
export function deriveTurnCommandId(memoryId: string, mentionId: string, speaker: string, text: string, at: string): string {
  return digest('turn_', [memoryId, mentionId, speaker, text, at]);
}

/**
 * The command id of a command an extractor derived (SPEC §5.1): from its turns, the extractor, its
 * version and its place among the commands derived from the same turns, so deriving again from the
 * same turns with the same extractor writes nothing new, and another version writes its own.
 */
export function deriveExtractedCommandId(memoryId: string, turns: readonly string[], extractor: string, version: string, ordinal: number): string {
  return digest('x_', [memoryId, [...turns].sort().join(','), extractor, version, String(ordinal)]);
}
