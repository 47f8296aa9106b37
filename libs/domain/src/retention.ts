import { createHash } from 'node:crypto';
import type { Erase } from './commands';
import type { LogRecord } from './records';
import type { MemoryState } from './state';
import { type Instant, instantFromMillis } from './time';

/** Who erases a fact whose relation's retention has elapsed (the audit shows it). */
export const RETENTION_ACTOR = 'retention';

/** Weeks, or days and a time of hours, minutes and seconds: the lengths the edge accepts (it checks the syntax). */
const DURATION = /^P(?:(\d+)W|(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?)$/;

/** The length of a retention (an ISO-8601 duration of weeks, days, hours, minutes, seconds) in milliseconds. */
export function durationMillis(duration: string): number {
  const match = DURATION.exec(duration);
  if (!match) throw new Error(`not a retention duration: ${JSON.stringify(duration)}`);
  const [weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number];
  return ((((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000;
}

const MAX_MILLIS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The ERASE commands a relation's retention calls for at `now`: one per fact of a relation with a
 * retention whose oldest content not yet erased was recorded at least that long ago, so no fact
 * keeps content older than its relation's retention. A fact's content is erased as one subject
 * (all its versions), as an ERASE of the fact would. The command id is derived from the fact and
 * the content's first record time: two sweeps of the same content make one erasure (the second is
 * a duplicate, which writes nothing), and content written after an erasure gets its own.
 */
export function retentionErasures(state: MemoryState, now: Instant): Erase[] {
  if (state.retentions.size === 0) return [];
  const nowMillis = Date.parse(now);
  const erasures: Erase[] = [];
  for (const fact of state.facts.values()) {
    const retention = state.retentions.get(fact.rel);
    if (retention === undefined) continue;
    const oldest = fact.versions.find((version) => !version.erased);
    if (!oldest) continue;
    const due = Date.parse(oldest.recordedFrom) + durationMillis(retention);
    if (due > nowMillis || due > MAX_MILLIS) continue;
    erasures.push({
      op: 'ERASE',
      commandId: `retention-${createHash('sha256').update(`${fact.factId}\u0000${oldest.recordedFrom}`).digest('hex').slice(0, 32)}`,
      actor: RETENTION_ACTOR,
      reason: `retention ${retention} of relation ${fact.rel} elapsed at ${instantFromMillis(due)}`,
      subject: { factId: fact.factId },
    });
  }
  return erasures;
}

/** A relation declaration that sets or removes a retention: what a retention sweep looks for in the log. */
export function declaresRetention(record: LogRecord): boolean {
  return record.type === 'RelationDefined' && record.data.retention !== undefined;
}
