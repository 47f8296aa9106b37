import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** LoCoMo as the README in ../shared/data/locomo describes it (read in place, never copied). */
export const DEV = ['conv-26', 'conv-30', 'conv-41', 'conv-42', 'conv-43'];
export const HELD_OUT = ['conv-44', 'conv-47', 'conv-48', 'conv-49', 'conv-50'];
export const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

export interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
}

export interface Session {
  number: number;
  at: string;
  turns: Turn[];
}

export interface Question {
  question: string;
  category: number;
  evidence: string[];
}

export interface Conversation {
  sampleId: string;
  sessions: Session[];
  questions: Question[];
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: { question: string; category: number; evidence?: string[] }[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" -> ISO instant, read as UTC. */
export function parseSessionTime(text: string): string {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(text.trim());
  if (!m) throw new Error(`unparsable session time ${JSON.stringify(text)}`);
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) throw new Error(`unknown month in ${JSON.stringify(text)}`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

/** `D:11:26` -> `D11:26`, `D30:05` -> `D30:5`; several ids in one string are split; malformed pieces dropped. */
export function normaliseEvidence(raw: readonly string[]): string[] {
  const ids: string[] = [];
  for (const entry of raw) {
    for (const piece of entry.split(/[;,\s]+/)) {
      const m = /^D:?(\d+):0*(\d+)$/.exec(piece.trim());
      if (m) ids.push(`D${Number(m[1])}:${Number(m[2])}`);
    }
  }
  return [...new Set(ids)];
}

/** `LOCOMO_FILE`, else the data set beside the repository (`../shared/data/locomo/locomo10.json`). */
const LOCOMO_FILE = process.env['LOCOMO_FILE'] ?? resolve(__dirname, '../../../shared/data/locomo/locomo10.json');

export function loadLocomo(): Conversation[] {
  if (!existsSync(LOCOMO_FILE)) {
    throw new Error(
      `LoCoMo not found at ${LOCOMO_FILE}: the benchmark reads it in place from ../shared/data/locomo beside the repository; ` +
        'set LOCOMO_FILE to its locomo10.json',
    );
  }
  const samples = JSON.parse(readFileSync(LOCOMO_FILE, 'utf8')) as RawSample[];
  return samples.map((sample) => {
    const sessions: Session[] = [];
    for (let n = 1; ; n++) {
      const turns = sample.conversation[`session_${n}`] as Turn[] | undefined;
      if (turns === undefined) {
        if (sample.conversation[`session_${n}_date_time`] === undefined) break;
        continue; // a date without a session (conv-26 quirk)
      }
      sessions.push({ number: n, at: parseSessionTime(String(sample.conversation[`session_${n}_date_time`])), turns });
    }
    const turnIds = new Set(sessions.flatMap((s) => s.turns.map((t) => t.dia_id)));
    const questions = sample.qa
      .filter((qa) => qa.category !== 5)
      .map((qa) => ({ question: qa.question, category: qa.category, evidence: normaliseEvidence(qa.evidence ?? []).filter((id) => turnIds.has(id)) }))
      .filter((qa) => qa.evidence.length > 0);
    return { sampleId: sample.sample_id, sessions, questions };
  });
}

/** A gold observation: what LoCoMo's annotators say a speaker's turns state, and those turns. */
export interface Observation {
  speaker: string;
  text: string;
  evidence: string[];
}

/** Each conversation's gold observations whose evidence names one of its turns. */
export function loadObservations(): Map<string, Observation[]> {
  const samples = JSON.parse(readFileSync(LOCOMO_FILE, 'utf8')) as (RawSample & {
    observation?: Record<string, Record<string, [string, string | string[]][]>>;
  })[];
  const out = new Map<string, Observation[]>();
  for (const sample of samples) {
    const turnIds = new Set(
      Object.values(sample.conversation)
        .filter((v): v is Turn[] => Array.isArray(v))
        .flatMap((turns) => turns.map((t) => t.dia_id)),
    );
    const observations: Observation[] = [];
    for (const bySpeaker of Object.values(sample.observation ?? {})) {
      for (const [speaker, list] of Object.entries(bySpeaker)) {
        for (const [text, evidence] of list) {
          const ids = normaliseEvidence(Array.isArray(evidence) ? evidence : [evidence]).filter((id) => turnIds.has(id));
          if (ids.length > 0) observations.push({ speaker, text, evidence: ids });
        }
      }
    }
    out.set(sample.sample_id, observations);
  }
  return out;
}
