/**
 * An extractor could not derive anything usable: it threw or timed out, or (the LLM extractor) its
 * endpoint failed or answered something other than the JSON object asked for. The turns are never lost over it: in `sync` mode
 * the service answers 502 `EXTRACTION_FAILED` and writes nothing; in `async` mode it retries.
 */
export class ExtractionFailedError extends Error {
  readonly code = 'EXTRACTION_FAILED';
  /**
   * What failed, quoting nothing it was given or answered (no turn, body, refusal or answer): what the
   * service keeps of a failed async job, out of erasure's reach. The message may quote; it goes to the
   * caller of a sync request and to the log.
   */
  readonly summary: string;

  constructor(
    message: string,
    /** The endpoint's HTTP status, when it answered with an error. */
    readonly status?: number,
    options?: { cause?: unknown; summary?: string },
  ) {
    super(message, options);
    this.name = 'ExtractionFailedError';
    this.summary = options?.summary ?? message;
  }
}

/** An error's content-free summary: an ExtractionFailedError's own, else the error's class (its message may quote anything). */
export function failureSummary(error: unknown): string {
  if (error instanceof ExtractionFailedError) return error.summary;
  const code = (error as { code?: unknown } | null)?.code;
  const name = error instanceof Error ? error.name : typeof error;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,39}$/.test(code) ? `${name} ${code}` : name;
}
