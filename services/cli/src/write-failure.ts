/** A `memotrace write` that did not (entirely) happen; its message says what was written and what was not. */
export class WriteFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'WriteFailure';
  }
}

/** Nothing of the file was written. */
export const NOTHING_WRITTEN_EXIT = 1;
/** Some lines were written, or may have been, before the failure: the message says which. */
export const PARTLY_WRITTEN_EXIT = 3;

/** `line 7` or `lines 1-1000`. */
export function lineRange(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}
