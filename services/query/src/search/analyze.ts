import porter2 from 'wink-porter2-stemmer';
import { memoize } from '@memotrace/domain';

/**
 * The search analyzer: text -> index terms, used for documents and queries alike.
 * Unicode-aware: NFKC, lower case, words of letters/marks/digits; Han, Hiragana and
 * Katakana, written without spaces, become one term per character. English words
 * are stemmed by Porter2 (Snowball English: researching, research -> research;
 * camped, camping -> camp), and a short list of English function words that carry
 * no retrieval signal is dropped ("where does Alice work?" searches for alice and work).
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const IDEOGRAPHIC_SPLIT = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/u;

export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by do does did for from had has have if in into is it its of on or ' +
    'such that the their then there these they this those to was were with what which who whom where when why how ' +
    's t i me my you your he him his she her we us our them'
  ).split(' '),
);

export function analyze(text: string): string[] {
  return analyzeAscii(text) ?? analyzeUnicode(text);
}

/** A text's distinct terms, memoized: ranking reads the same items' words search after search. Never mutated. */
export const termSet: (text: string) => ReadonlySet<string> = memoize((text) => new Set(analyze(text)), 50_000);

/**
 * `analyze` of a text of ASCII characters only, without the Unicode machinery (most texts
 * are): NFKC leaves ASCII as it is, and its letters and digits are A-Z, a-z and 0-9. Null for
 * any other text.
 */
function analyzeAscii(text: string): string[] | null {
  const terms: string[] = [];
  let lower: string | null = null;
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (c > 127) return null;
    const letter = (c | 32) >= 97 && (c | 32) <= 122;
    if (letter || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      push(terms, (lower ??= text.toLowerCase()).slice(start, i));
      start = -1;
    }
  }
  return terms;
}

/** The analyzer for any text (exported for the test that the ASCII one agrees with it). */
export function analyzeUnicode(text: string): string[] {
  const terms: string[] = [];
  for (const [word] of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    if (IDEOGRAPHIC.test(word)) {
      for (const part of word.split(IDEOGRAPHIC_SPLIT)) if (part !== '') push(terms, part);
    } else push(terms, word);
  }
  return terms;
}

function push(terms: string[], word: string): void {
  const term = word.length <= MAX_STEMMED_LENGTH ? termOfWord(word) : termOf(word);
  if (term !== null) terms.push(term);
}

/** A word's term: null for a function word, else its stem. */
function termOf(word: string): string | null {
  return STOPWORDS.has(word) ? null : stem(word);
}

/** Memoized for words that may be English ones: a vocabulary is small next to the words analysed, and Porter2 costs far more than a lookup. */
const termOfWord = memoize(termOf, 100_000);

/**
 * Longest word stemmed. Porter2's suffix rules rescan the word and take time quadratic in its
 * length (a long run of letters in a 64 KiB query would stall the search path), and no English
 * word is near this long; longer runs of letters are kept as they are.
 */
export const MAX_STEMMED_LENGTH = 64;

/** Porter2 for plain ASCII words; anything else (accented, other scripts, digits, overlong runs) is kept as is. */
export function stem(word: string): string {
  return word.length <= MAX_STEMMED_LENGTH && /^[a-z]+$/.test(word) ? porter2(word) : word;
}
