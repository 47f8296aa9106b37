/**
 * How items are rendered as searchable text. Shared by the search projections (which
 * embed or index the text) and the search itself (which finds the vector by the text's hash),
 * so both must render identically.
 */
import { memoize } from './memoize';

export type EdgeTargetLike = string | { literal: unknown };

/** `works_at` -> `works at`, `bornIn` -> `born in`. A memory uses few relation names and renders them for every fact it shows: memoized. */
export const relationPhrase = memoize(phraseOf, 10_000);

function phraseOf(rel: string): string {
  const phrase = rel
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/[_\-.:/]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  return phrase === '' ? rel : phrase;
}

/** "Alice works at Acme": src and entity dst by name, a literal dst by its value. */
export function factText(fact: { src: string; rel: string; dst: EdgeTargetLike }, nameOf: (entityId: string) => string): string {
  const target = typeof fact.dst === 'string' ? nameOf(fact.dst) : String(fact.dst.literal);
  return `${nameOf(fact.src)} ${relationPhrase(fact.rel)} ${target}`;
}

export function mentionText(mention: { speaker: string | null; text: string }): string {
  return mention.speaker !== null && mention.speaker.trim() !== '' ? `${mention.speaker}: ${mention.text}` : mention.text;
}
