import { type Extractor, ExtractionFailedError } from '@memotrace/extraction';
import { HttpError } from '@memotrace/http-kit';
import type { ClaimReader, TimedClaim } from './check-route';

/** The turn a check's text is read as: one of its own, said at the check's valid time. */
const CHECK_TURN = { mentionId: 'check', sessionId: 'check' };
/** How long a reading may take (an LLM extractor's round trip) before the check answers 502. */
const READ_TIMEOUT_MS = 30_000;
/** Who says a text given without a speaker: someone the memory does not know, so what "I" claims is `unknown`. */
const NO_SPEAKER = 'the speaker';

/**
 * A check's claims read by the memory's extractor, as it reads a turn's statements (SPEC 5.3): the text is a turn
 * said by `speaker` (an entity's id stands for its name) at the check's valid time, against the memory's entities at
 * the check's record time; each fact it would derive is a claim. A claim whose text names its time ("since Monday",
 * "in May") is checked then; the others at the check's valid time. Names the memory does not know give claims about
 * entities it does not have: `unknown`. An extractor that fails answers 502 EXTRACTION_FAILED, as a sync turn's does.
 */
export function claimReader(extractor: Extractor): ClaimReader {
  return async ({ memoryId, text, speaker, at, recordedAt, queries }) => {
    const [entities, named] = await Promise.all([
      queries.entities(memoryId, recordedAt, {}),
      speaker === undefined ? null : queries.entity(memoryId, speaker, recordedAt),
    ]);
    const known = entities.flatMap((e) => (e.name === null ? [] : [{ entityId: e.entityId, name: e.name, aliases: e.aliases, types: e.types }]));
    const turn = { ...CHECK_TURN, speaker: named?.name ?? speaker ?? NO_SPEAKER, text, at };
    const derived = await extractor
      .extract({ memoryId, turns: [turn], window: [], entities: known }, AbortSignal.timeout(READ_TIMEOUT_MS))
      .catch((error: unknown) => {
        const why = error instanceof ExtractionFailedError ? error.message : `extractor ${extractor.name}@${extractor.version} failed`;
        throw new HttpError('EXTRACTION_FAILED', `the claims of the text could not be read: ${why}`);
      });
    return derived.flatMap(({ command: c }): TimedClaim[] =>
      c.op === 'UPSERT_EDGE'
        ? [{ src: c.src, rel: c.rel, dst: c.dst, ...(c.validFrom !== undefined && c.validFrom !== at ? { validAt: c.validFrom } : {}) }]
        : [],
    );
  };
}
