import type { MentionView } from '@memotrace/domain';

export interface DocumentPage {
  mentions: MentionView[];
  /** The last mention of this page when more follow: the next page starts after it. */
  next: string | null;
}

/**
 * One page of a document's mentions, given in document order: at most `limit` of them, from the
 * start or after the mention `after`. The cursor is a mention id, not an offset, so it names the
 * same place in every answer at one record time; null when `after` is not among the mentions.
 */
export function documentPage(mentions: readonly MentionView[], after: string | undefined, limit: number): DocumentPage | null {
  const start = after === undefined ? 0 : mentions.findIndex((m) => m.mentionId === after) + 1;
  if (start === 0 && after !== undefined) return null;
  const page = mentions.slice(start, start + limit);
  return { mentions: page, next: start + limit < mentions.length ? page[page.length - 1]!.mentionId : null };
}
