import { percentile } from '../stats';
import { Rng } from '../scale/rng';
import { request } from './http';
import { NOTE_OBJECTS, NOTE_VERBS, STATUSES } from './names';
import type { WorkloadSample } from './workload';

export interface SearchTiming {
  clientMs: number;
  serverMs: number;
  items: number;
  /**
   * Items the service says it ranked without a vector, when its answer says so
   * (a field `unembedded`); undefined when the answer has no such field.
   */
  unembedded: number | undefined;
  /** The error code of a search the service refused (503: a memory larger than its search cache), else null; its times are NaN. */
  refused: string | null;
}

/** One `POST /v1/memories/{id}/search` (k = 10), timed on the client. */
export async function searchOnce(url: string, memoryId: string, query: string): Promise<SearchTiming> {
  const { body, clientMs, serverMs, status } = await request<{ items: unknown[]; unembedded?: unknown; error?: { code: string } }>(
    `${url}/v1/memories/${encodeURIComponent(memoryId)}/search`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, k: 10 }) },
    [200, 503],
  );
  if (status === 503) return { clientMs: Number.NaN, serverMs: Number.NaN, items: 0, unembedded: undefined, refused: body.error?.code ?? 'HTTP 503' };
  return { clientMs, serverMs, items: body.items.length, unembedded: unembeddedOf(body.unembedded), refused: null };
}

/** A count, or the sum of a per-kind object of counts, whatever shape the field takes. */
function unembeddedOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (value !== null && typeof value === 'object') {
    const counts = Object.values(value).filter((v): v is number => typeof v === 'number');
    return counts.length > 0 ? counts.reduce((a, b) => a + b, 0) : undefined;
  }
  return undefined;
}

/** The question asked first, after ingest and again after the restart: the same one, so the two compare. */
export function firstQuestion(sample: WorkloadSample): string {
  const person = sample.entities.find((e) => e.type === 'person')!;
  return `where does ${person.name} work?`;
}

/** Random questions of an agent: names with relation words, and the literal texts' words. */
export function questions(sample: WorkloadSample, count: number, seed: number): string[] {
  const rng = new Rng(seed);
  const people = sample.entities.filter((e) => e.type === 'person');
  const places = sample.entities.filter((e) => e.type === 'place');
  const organisations = sample.entities.filter((e) => e.type === 'organisation');
  const templates: Array<() => string> = [
    () => `where does ${rng.pick(people).name} work?`,
    () => `where does ${rng.pick(people).name} live`,
    () => `who does ${rng.pick(people).name} know`,
    () => `what is ${rng.pick(people).name} doing these days?`,
    () => `who visited ${rng.pick(places).name}`,
    () => `members of ${rng.pick(organisations).name}`,
    () => `who ${rng.pick(NOTE_VERBS)} ${rng.pick(NOTE_OBJECTS)}?`,
    () => `${rng.pick(people).name} ${rng.pick(STATUSES)}`,
  ];
  return Array.from({ length: count }, () => rng.pick(templates)());
}

/** A search's client time, or the code it was refused with. */
export function clientTimeOf(search: SearchTiming): string {
  return search.refused !== null ? `refused (${search.refused})` : `${search.clientMs.toFixed(1)} ms`;
}

/** The `q`-th percentile of the client times of the searches answered, and how many were refused. */
export function answeredPercentile(searches: readonly SearchTiming[], q: number): string {
  const answered = searches.filter((s) => s.refused === null).map((s) => s.clientMs);
  if (answered.length === 0) return `all ${searches.length} refused (${searches[0]?.refused})`;
  const refused = searches.length - answered.length;
  return `${percentile(answered, q).toFixed(1)} ms${refused > 0 ? ` (${refused} refused)` : ''}`;
}
