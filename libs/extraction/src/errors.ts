/**
 * An extractor could not derive anything usable: it threw or timed out, or (the LLM extractor) its
 * endpoint failed or answered something other than the JSON object asked for. The turns are never lost over it: in `sync` mode
 * the service answers 502 `EXTRACTION_FAILED` and writes nothing; in `async` mode it retries.
 */
export class ExtractionFailedError extends Error {
  readonly code = 'EXTRACTION_FAILED';

  constructor(
    message: string,
    /** The endpoint's HTTP status, when it answered with an error. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ExtractionFailedError';
  }
}
