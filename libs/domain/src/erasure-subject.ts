/** What an ERASE names: an entity, a fact, a mention, or a document (all its mentions). Ids stay; content goes. */
export type ErasureSubjectKind = 'entity' | 'fact' | 'mention' | 'doc';

export interface ErasureSubject {
  kind: ErasureSubjectKind;
  id: string;
}

/**
 * The items whose content one erasure removes, by id, as they stood when it was accepted: content
 * written later (a later command may name the subject again) is new content and stays.
 */
export interface ErasedItems {
  entities: string[];
  facts: string[];
  events: string[];
  mentions: string[];
  /** Topics with a member among those items (SPEC 5.4): their title and summary go. Absent from erasures logged before topics. */
  topics?: string[];
}
