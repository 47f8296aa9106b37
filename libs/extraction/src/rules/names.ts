import { normaliseName } from '@memotrace/domain';
import { capitalised, has, type Token } from './tokens';

/** What a name may denote; a known entity without types is compatible with every kind. */
export type EntityKind = 'person' | 'place' | 'organization' | 'animal';

const HONORIFICS = /^(?:mr|mrs|ms|miss|dr|prof|sir|madam|aunt|uncle)\.?\s+/u;

/**
 * The key two spellings of one name share: the domain's case-folded form, without diacritics,
 * punctuation, a possessive or an honorific ("Dr. José O'Neil's" and "jose oneil" agree).
 */
export function nameKey(name: string): string {
  return normaliseName(name)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/['’]s$/u, '')
    .replace(/[^\p{L}\p{N}\s]/gu, '')
    .replace(HONORIFICS, '')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Levenshtein distance, stopping early once it exceeds `max` (only "at most one typo" matters here). */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/** Cleans a name as a tagger cut it out of a sentence: no trailing punctuation or possessive, no leading article. */
export function cleanName(raw: string): string {
  return raw
    .replace(/['’]s\b/gu, '')
    .replace(/^(?:(?:the|a|an|my|our)\s+)+/iu, '')
    .replace(/^(?:\p{Ll}[\p{L}'’-]*\s+)+(?=\p{Lu})/u, '')
    .replace(/[^\p{L}\p{N}'’.&\- ]/gu, ' ')
    .replace(/[.\-'’]+$/u, '')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** A name said in a clause: where it stands among the clause's tokens, and what it names. */
export interface NameRun {
  start: number;
  end: number;
  name: string;
  kind: EntityKind | 'thing';
}

const CONNECTORS = new Set(['of', 'de', 'del', 'la', 'van', 'von', '&']);
/** Capitalised words that name no one: a pronoun, a greeting, a weekday or month (a time, not a thing). */
const NOT_NAMES = new Set(
  (
    'i me we you he she they it mom dad mum god lol omg hey hi wow thanks yeah ok okay monday tuesday wednesday thursday friday saturday sunday ' +
    'january february march april june july august september october november december christmas easter'
  ).split(' '),
);

/**
 * The names a clause says: runs of words written with a capital that the tagger reads as proper nouns,
 * every word capitalised (connectors aside). Taggers read a capitalised modifier as a name ("Call
 * center", "the Remote Data entry job"): a run that a lower-case noun follows (it modifies that noun) is
 * no name.
 */
export function nameRuns(tokens: readonly Token[]): NameRun[] {
  const runs: NameRun[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!properName(tokens[i]!)) continue;
    let end = i + 1;
    while (end < tokens.length) {
      if (properName(tokens[end]!)) end++;
      else if (CONNECTORS.has(tokens[end]!.word) && tokens[end + 1] !== undefined && properName(tokens[end + 1]!)) end += 2;
      else break;
    }
    const run = tokens.slice(i, end);
    const next = tokens[end];
    const kind = kindOf(run);
    const modifier = next !== undefined && has(next, 'Noun') && !has(next, 'Pronoun') && !capitalised(next) && !/[,.;:!?]/u.test(run.at(-1)!.post);
    const name = cleanName(run.map((t, j) => t.text + (j < run.length - 1 ? ' ' : '')).join(''));
    if (!modifier && name.length >= 2 && !NOT_NAMES.has(name.toLowerCase())) runs.push({ start: i, end, name, kind });
    i = end - 1;
  }
  return runs;
}

function properName(t: Token): boolean {
  return (
    capitalised(t) && (has(t, 'ProperNoun') || has(t, 'Person') || has(t, 'Place') || has(t, 'Organization')) && !has(t, 'Pronoun') && !has(t, 'Date')
  );
}

function kindOf(run: readonly Token[]): EntityKind | 'thing' {
  if (run.some((t) => has(t, 'Person') || has(t, 'FirstName'))) return 'person';
  if (run.some((t) => has(t, 'Place'))) return 'place';
  if (run.some((t) => has(t, 'Organization'))) return 'organization';
  return 'thing';
}
