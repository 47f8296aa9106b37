import type { ExtractionInput, Turn } from '../port';

/**
 * The chat messages of one extraction call. The instructions are fixed (part of the extractor's
 * version: changing them changes what is derived); the user message carries the input as JSON
 * lines, so a turn's text can hold anything without being read as part of the prompt's layout.
 */

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export const SYSTEM_PROMPT = [
  'You extract long-term memory from a dialog, as commands of the MemoTrace DSL.',
  'Answer with one JSON object {"items": [...]}, as the response format describes; {"items": []} is a good answer when the',
  'turns state nothing worth keeping.',
  'Each item is {"command", "confidence", "turns", "why"}.',
  '',
  'Input: the known entities, the context (earlier turns, for understanding only: derive nothing from them) and the turns',
  'to derive from, each with its id, its "at" instant and weekday.',
  '- "turns": the ids of the turns the item rests on, from the turns to derive from only.',
  '- "confidence": in [0, 1], how surely the speaker states it (0.9 and above for a plain statement about themselves or',
  '  someone they know; lower for hedged, reported, hypothetical or joking talk).',
  '- "why": a few words, e.g. "says she moved to Lisbon".',
  '',
  'Commands (the only ones that exist for you):',
  '- UPSERT_ENTITY {name, aliases, types}: a person, pet, place, organisation or thing the turns talk about (speakers',
  '  included) that is not a known entity, or a new alias of a known one (its known name as name).',
  '- MERGE_ENTITY {srcId, dstId}: two entities are the same one (srcId joins dstId); only when the turns make it certain.',
  '- DEFINE_RELATION {rel, cardinality}: "one" when a subject holds one value at a time (lives_in, works_at, job_title,',
  '  married_to, studies_at), else "many" (likes, has_pet, has_child, friend_of, visited).',
  '- UPSERT_EDGE {src, rel, dst, validFrom, validTo}: a fact; rel in snake_case; dst an entity, or a literal {"literal",',
  '  "datatype"} for a value (a job title, an age, a date).',
  '- UPSERT_EVENT {summary, participants [{entityId, role}], timeSpan {from, to}, factItems}: something that happened or',
  '  will happen; factItems are the places (0-based) in items of the UPSERT_EDGE items it includes.',
  '',
  'Entities: name a known entity by its id. Name a new entity by the exact name of the UPSERT_ENTITY item that adds it in',
  'this answer. Never make up an id.',
  '',
  'Time: every instant is ISO-8601 with a UTC offset (e.g. 2024-05-07T00:00:00Z). Resolve relative time against the "at" of',
  'the turn that says it, never against today:',
  'said at 2024-05-08T15:00:00Z (a Wednesday),',
  '- "yesterday" is from 2024-05-07T00:00:00Z to 2024-05-08T00:00:00Z,',
  '- "last Saturday" is from 2024-05-04T00:00:00Z to 2024-05-05T00:00:00Z,',
  '- "next month" is from 2024-06-01T00:00:00Z to 2024-07-01T00:00:00Z,',
  '- "in 2022" is from 2022-01-01T00:00:00Z to 2023-01-01T00:00:00Z.',
  "An event's timeSpan is when it happens, not when it is told; to is null when its end is unknown. A fact's validFrom is",
  'when it starts to hold (the turn\'s "at" when the turns do not say); validTo is null unless the turns say it ended.',
  '',
  'Changes and contradictions are new facts, never deletions (nothing can be deleted or archived): when someone moves,',
  'changes jobs or splits up, state the new fact with validFrom when the change happened; for a "one" relation the memory',
  'ends the old fact itself. When the turns say a fact ended, state that fact again with its validTo.',
  'Every field of a command is present: [] for an empty list, null for an open end.',
].join('\n');

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function weekday(at: string): string {
  return WEEKDAYS[new Date(at).getUTCDay()] ?? 'unknown';
}

function turnLine(turn: Turn, withId: boolean): string {
  const line = { ...(withId ? { id: turn.mentionId } : {}), at: turn.at, weekday: weekday(turn.at), speaker: turn.speaker, text: turn.text };
  return JSON.stringify(line);
}

export function userMessage(input: ExtractionInput): string {
  const entities = input.entities.map((e) => JSON.stringify({ id: e.entityId, name: e.name, aliases: e.aliases, types: e.types }));
  return [
    'Known entities:',
    ...(entities.length > 0 ? entities : ['(none)']),
    '',
    'Context (earlier turns; derive nothing from them):',
    ...(input.window.length > 0 ? input.window.map((t) => turnLine(t, false)) : ['(none)']),
    '',
    'Turns to derive from:',
    ...input.turns.map((t) => turnLine(t, true)),
  ].join('\n');
}

export function buildMessages(input: ExtractionInput): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: userMessage(input) },
  ];
}
