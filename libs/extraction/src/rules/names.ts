import { normaliseName } from '@memotrace/domain';

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
    .replace(/[^\p{L}\p{N}'’.\- ]/gu, ' ')
    .replace(/[.\-'’]+$/u, '')
    .replace(/\s+/gu, ' ')
    .trim();
}
