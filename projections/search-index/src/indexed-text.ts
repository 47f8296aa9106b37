/** A searchable text of the log, as the search index stores it. */
export interface IndexedText {
  memoryId: string;
  kind: 'mention' | 'event' | 'episode' | 'fact';
  itemId: string;
  text: string;
  position: number;
}
