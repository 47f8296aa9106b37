import { MAX_BATCH, type TurnsRequestInput, id, turn, zodIssuesToDetails } from '@memotrace/contracts';
import { z } from 'zod';
import { NOTHING_WRITTEN_EXIT, WriteFailure } from './write-failure';

/**
 * A JSONL file of dialog turns for `memotrace turns`: one turn per line, `{"sessionId", "turnId"?,
 * "speaker", "text", "at"}`. Every line is checked before anything is sent; consecutive turns of a
 * session go in one request, at most a batch's worth each.
 */
const turnLine = turn.extend({ sessionId: id });

export interface TurnRequests {
  requests: Omit<TurnsRequestInput, 'extraction' | 'recordedAt'>[];
  turns: number;
}

export function parseTurnsFile(text: string): TurnRequests {
  const requests: TurnRequests['requests'] = [];
  const problems: string[] = [];
  let turns = 0;
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split('\n');
  lines.forEach((raw, index) => {
    const source = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (source.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(source);
    } catch {
      problems.push(`line ${index + 1}: not valid JSON`);
      return;
    }
    const parsed = turnLine.safeParse(json);
    if (!parsed.success) {
      const details = zodIssuesToDetails(parsed.error).map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
      problems.push(`line ${index + 1}: ${details.join(', ')}`);
      return;
    }
    // What the file says is what is sent: the service validates it again.
    const { sessionId, ...rest } = json as z.input<typeof turnLine>;
    const last = requests.at(-1);
    if (last && last.sessionId === sessionId && last.turns.length < MAX_BATCH) last.turns.push(rest);
    else requests.push({ sessionId, turns: [rest] });
    turns++;
  });
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more bad line${problems.length === 2 ? '' : 's'})` : '';
    throw new WriteFailure(`${problems[0]}${more}; nothing written`, NOTHING_WRITTEN_EXIT);
  }
  return { requests, turns };
}
