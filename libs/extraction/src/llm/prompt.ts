import type { ExtractionInput, Turn } from '../port';
import { CANONICAL } from '../relations';

/**
 * The chat messages of one extraction call. The instructions are fixed (part of the extractor's
 * version: changing them changes what is derived); the user message carries the input as JSON
 * lines, so a turn's text can hold anything without being read as part of the prompt's layout.
 */

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** The canonical relations with their cardinality, as the prompt lists them: the same vocabulary as the rules extractor's. */
const VOCABULARY = Object.entries(CANONICAL)
  .map(([rel, cardinality]) => `${rel} (${cardinality})`)
  .join(', ');

export const SYSTEM_PROMPT = [
  'You extract long-term memory from a dialog: the statements the turns make, as commands of the MemoTrace DSL.',
  'Answer with one JSON object {"items": [...]}, as the response format describes; {"items": []} is a good answer when the',
  'turns state nothing worth keeping.',
  'Each item is {"command", "confidence", "turns", "why"}.',
  '',
  'Input: the known entities, the relations the memory knows, the context (earlier turns, for understanding only: derive',
  'nothing from them) and the turns to derive from, each with its id, its "at" instant and weekday.',
  '- "turns": the ids of the turns the item rests on, from the turns to derive from only.',
  '- "confidence": in [0, 1], how surely the speaker states it (0.9 and above for a plain statement about themselves or',
  '  someone they know; lower for hedged, reported, hypothetical or joking talk).',
  '- "why": a few words, e.g. "says she moved to Lisbon".',
  '',
  'Statements. Each atomic thing a turn says about someone or something is one UPSERT_EDGE, a fact in third person:',
  '- src: whom it is about, resolved: the speaker for "I", "me", "my"; a person the turn names; a known entity.',
  '- rel: a snake_case relation. Use a relation the memory knows when it says the same; else a canonical one when it fits:',
  `  ${VOCABULARY}`,
  '  ("one": a subject holds one value at a time, so a later statement supersedes an earlier one; state "not working" as',
  '  works_as "not working", and a job got later as works_as that job). Else name it for the verb as said, in its tense:',
  '  "lost", "is_starting", "plans_to_open".',
  '- dst: a known or upserted entity, or a short literal {"literal": "school-age children", "datatype": "string"}: what',
  "  the verb says of the subject, compactly, never the turn's sentence or a long piece of it.",
  `- Keep negation in the relation, never drop or invert it: "I don't eat meat" is does_not_eat "meat".`,
  'Questions, greetings, thanks, wishes and chit-chat state nothing: derive nothing from them.',
  '',
  'Commands (the only ones that exist for you):',
  '- UPSERT_ENTITY {name, aliases, types}: a person, pet, place, organisation, work (a book, a film) or thing the turns',
  '  talk about by name (speakers included) that is not a known entity, or a new alias of a known one (its known name as',
  '  name). A capitalised phrase that is no name ("the Remote Data entry job", "Call center" at a sentence\'s start) is none.',
  '- MERGE_ENTITY {srcId, dstId}: two entities are the same one (srcId joins dstId); only when the turns make it certain.',
  '- DEFINE_RELATION {rel, cardinality}: for a relation that is not canonical; a canonical one keeps its cardinality.',
  '- UPSERT_EDGE {src, rel, dst, validFrom, validTo}: a statement, as above.',
  '- UPSERT_EVENT {summary, participants [{entityId, role}], timeSpan {from, to}, factItems}: only for something that',
  '  happened or will happen at a time the turns say or imply; the summary says in third person what happened and when',
  '  ("Dana got a remote data-entry job (1 March 2024)"), never the turn\'s words; factItems (at least one) are the places',
  '  (0-based) in items of the UPSERT_EDGE statements it rests on.',
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
  const relations = (input.relations ?? []).map((r) => JSON.stringify({ rel: r.rel, cardinality: r.cardinality }));
  return [
    'Known entities:',
    ...(entities.length > 0 ? entities : ['(none)']),
    '',
    'Relations the memory knows:',
    ...(relations.length > 0 ? relations : ['(none)']),
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
