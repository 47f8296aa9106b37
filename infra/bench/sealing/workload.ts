import type { Command } from '@memotrace/domain';

/**
 * What the sealing bench writes: per batch, GROUPS groups of 5 commands about one new person each
 * (an entity with aliases, a literal and an entity edge with a source, an event with participants,
 * a mention of about 200 characters), every command with a reason; one log record per command.
 */
export const GROUPS = 100;
export const COMMANDS_PER_BATCH = GROUPS * 5;

const FIRST = ['Ada', 'Bo', 'Chidi', 'Dana', 'Emil', 'Farah', 'Goran', 'Hana', 'Ivo', 'Jun'];
const LAST = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Novak', 'Haddad', 'Silva', 'Kowalski', 'Ibsen', 'Reyes'];
const CITIES = ['Lisbon', 'Tampere', 'Porto Alegre', 'Kraków', 'Osaka', 'Nairobi', 'Valparaíso', 'Ghent'];
const TOPICS = ['the move to a new flat', 'a knee injury from running', 'the allergy to penicillin', 'a job offer abroad', 'their sister’s wedding'];

const nameOf = (n: number) => `${FIRST[n % FIRST.length]} ${LAST[Math.floor(n / FIRST.length) % LAST.length]} ${n}`;

/** About 200 characters of conversation about person n: the kind of text mentions carry. */
function mentionText(n: number): string {
  const text =
    `I talked with ${nameOf(n)} yesterday about ${TOPICS[n % TOPICS.length]}; they said they have lived in ${CITIES[n % CITIES.length]} ` +
    `since spring and that ${nameOf(Math.max(0, n - 1))} helped them settle in, which they were grateful for.`;
  return text.padEnd(200, ' .').slice(0, 220);
}

/** Batch b of a memory: GROUPS groups of 5 commands, ids unique within the memory. */
export function batch(b: number): Command[] {
  const commands: Command[] = [];
  for (let k = 0; k < GROUPS; k++) {
    const n = b * GROUPS + k;
    const person = `p${n}`;
    const known = `p${Math.max(0, n - 1)}`;
    const day = new Date(Date.UTC(2023, 0, 1) + n * 3_600_000).toISOString();
    const later = new Date(Date.UTC(2023, 0, 1) + n * 3_600_000 + 1_800_000).toISOString();
    const source = `conversation ${Math.floor(n / 10)}, turn ${n % 10}`;
    const reason = `extracted from ${source} by the ingest agent`;
    commands.push(
      {
        op: 'UPSERT_ENTITY',
        commandId: `c${n}-entity`,
        entityId: person,
        name: nameOf(n),
        aliases: [FIRST[n % FIRST.length]!, `${LAST[Math.floor(n / FIRST.length) % LAST.length]} (${n})`],
        types: ['person'],
        reason,
      },
      {
        op: 'UPSERT_EDGE',
        commandId: `c${n}-lives`,
        factId: `f${n}-lives`,
        src: person,
        rel: 'lives_in',
        dst: { literal: `${CITIES[n % CITIES.length]}, ${10 + (n % 80)} Harbour Street`, datatype: 'string' },
        validFrom: day,
        source,
        reason,
      },
      { op: 'UPSERT_EDGE', commandId: `c${n}-knows`, factId: `f${n}-knows`, src: person, rel: 'knows', dst: known, validFrom: day, source, reason },
      {
        op: 'UPSERT_EVENT',
        commandId: `c${n}-event`,
        eventId: `ev${n}`,
        summary: `${nameOf(n)} met ${nameOf(Math.max(0, n - 1))} to talk about ${TOPICS[n % TOPICS.length]}`,
        participants: [
          { entityId: person, role: 'host' },
          { entityId: known, role: 'guest' },
        ],
        includesFacts: [`f${n}-knows`],
        timeSpan: { from: day, to: later },
        reason,
      },
      {
        op: 'RECORD_MENTION',
        commandId: `c${n}-mention`,
        mentionId: `m${n}`,
        docId: `doc${Math.floor(n / 10)}`,
        text: mentionText(n),
        speaker: nameOf(n),
        occurredAt: day,
        reason,
      },
    );
  }
  return commands;
}
