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
  const terms: string[] = [];
  for (const [word] of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    if (IDEOGRAPHIC.test(word)) {
      for (const part of word.split(IDEOGRAPHIC_SPLIT)) if (part !== '') push(terms, part);
    } else push(terms, word);
  }
  return terms;
}

function push(terms: string[], word: string): void {
  if (!STOPWORDS.has(word)) terms.push(stem(word));
}

/** Memoized: a vocabulary is small next to the words analysed, and Porter2 costs far more than a lookup. */
const stemEnglish = memoize(porter2, 100_000);

/**
 * Longest word stemmed. Porter2's suffix rules rescan the word and take time quadratic in its
 * length (a long run of letters in a 64 KiB query would stall the search path), and no English
 * word is near this long; longer runs of letters are kept as they are.
 */
export const MAX_STEMMED_LENGTH = 64;

/** Porter2 for plain ASCII words; anything else (accented, other scripts, digits, overlong runs) is kept as is. */
export function stem(word: string): string {
  return word.length <= MAX_STEMMED_LENGTH && /^[a-z]+$/.test(word) ? stemEnglish(word) : word;
}
