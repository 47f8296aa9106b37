/**
 * What the MCP server tells a model: the server's instructions and what every tool field means, each
 * with an example (a model reads these, not the HTTP contract). tools.ts attaches them to the fields.
 */

/** How entity references resolve (resolve.ts), said once and quoted by every field that takes one. */
export const RESOLUTION_RULE =
  'Give an entity by name (e.g. "Alice") or by id (e.g. "alice"): a value that is an entity id is used as it is; ' +
  'otherwise it is looked up by name and alias, ignoring case and extra spaces. One match is that entity; ' +
  'several are an error listing their ids (then pass an id); none is an error, unless createMissing is true, ' +
  'which creates an entity with that name (its id derived from the name, so a retry does not duplicate it).';

/** The server's instructions (sent at initialize): the memory model in brief, and how to name entities. */
export const INSTRUCTIONS = [
  'MemoTrace is a bitemporal memory: a knowledge graph that keeps what it was told, when it was true, and when it learned it.',
  '',
  `- Entities are people, organisations, places, things. Refer to them by name ("Alice") or id; find them with find_entities. ${RESOLUTION_RULE}`,
  '- Facts are src -rel-> dst statements ("Alice" works_at "Acme"), true in the world from validFrom until validTo (valid time). ' +
    'dst is an entity or a value (a number, true/false, or text with dstLiteral: true). A relation declared "one" with ' +
    "define_relation (e.g. works_at) keeps one value at a time: a new fact ends the old one at its validFrom. Correct a fact's " +
    'dates with correct_fact, withdraw it with retract_fact: nothing is overwritten, history and audit keep every version.',
  '- Events (remember_event) are things that happened: a summary, a time span, participants, and the facts that evidence them.',
  '- Mentions are the surface evidence, e.g. one dialog turn: RECORD_MENTION commands in remember_batch (docId = the ' +
    "conversation, text, speaker, occurredAt); cite their ids as a fact's evidence.",
  '- Every read is a time cut: validAt asks what was true at that time, recordedAt what the memory believed at that time ' +
    '(both default to now). "Where did Alice work on Tuesday?" is read_facts {src: "Alice", rel: "works_at", validAt: <Tuesday>}; ' +
    '"what did we believe on Wednesday?" adds recordedAt: <Wednesday>.',
  '- Times are ISO-8601 with an offset, e.g. "2024-05-08T00:00:00Z". search_memory finds facts, events and mentions by meaning.',
].join('\n');

/** Fields every command tool takes (the DSL's envelope). */
export const ENVELOPE = {
  commandId:
    'Your idempotency key for this command, e.g. "hr-2024-05-09-1": sending a command with a commandId the memory already has ' +
    'writes nothing and returns the first result. Omit for a fresh one.',
  recordedAt:
    'When the memory learns this (record time), e.g. "2024-05-09T10:00:00Z". Omit for now; set it only to back-fill or import, ' +
    "never earlier than the memory's latest record time.",
  actor: 'Who states this, e.g. "hr-agent"; kept in the audit trail.',
  reason: 'Why, in a few words, e.g. "Alice said she moved"; kept in the audit trail.',
  derivedFrom: 'The mention ids of the dialog turns this command was derived from, e.g. ["turn-17"]; listed by the turns\' derived commands.',
};

export const MEMORY_ID = 'The memory (tenant) to use, e.g. "agent-42". Omit for the server\'s default memory.';

export const CREATE_MISSING =
  'true: an entity this call names that does not exist yet is created with that name, in the same atomic write ' +
  '(e.g. the first time you tell the memory about "Alice"); omitted or false: such a call fails and says so.';

/** Read-side fields. */
export const READ = {
  validAt: 'The world time to ask about, e.g. "2024-05-07T12:00:00Z" for "on Tuesday at noon"; "*" for any time. Omit for now.',
  recordedAt:
    'Ask what the memory believed at this record time, e.g. "2024-05-08T12:00:00Z" (before it learned later news). Omit for what it believes now.',
  consistency: '"projection" (default: the fast read models) or "replay" (recomputed from the log; the same answer), e.g. "replay".',
  minPosition: "A write's position, e.g. 12: wait (briefly) until the read reflects that write. Rarely needed.",
};

/** A literal value as `dst`: `{literal, datatype?}`. */
export const LITERAL = {
  self: 'A value rather than an entity, e.g. {"literal": "climbing"} or {"literal": 42}.',
  literal: 'The value: text, a number or true/false, e.g. "climbing", 42 or true.',
  datatype:
    'Its type: "string", "number", "boolean" or "instant" (an ISO-8601 time), e.g. "instant" for {"literal": "2024-05-06T00:00:00Z"}. ' +
    'Omit to infer it from the value.',
};

/** An interval `{from, to?}`: an event's time span, an episode's window. */
export const INTERVAL = {
  from: 'Start, ISO-8601, e.g. "2024-05-08T00:00:00Z".',
  to: 'End (exclusive), e.g. "2024-05-09T00:00:00Z"; null or omitted: still going on.',
};

/** What each command field means, per op (the batch's commands, and the one-command tools). */
export const COMMAND_FIELDS = {
  UPSERT_ENTITY: {
    op: '"UPSERT_ENTITY": create an entity, or add aliases and types to it, e.g. {"op": "UPSERT_ENTITY", "name": "Alice", "types": ["person"]}.',
    entityId:
      'A stable id for the entity, e.g. "alice". Omit to go by name: the entity that already has this name or alias gets the ' +
      'aliases and types, else a new one is created (its id derived from the name).',
    name: 'Its name as people say it, e.g. "Alice Smith".',
    aliases: 'Other names of the same entity, e.g. ["Ally", "A. Smith"]; they find it by name too.',
    types: 'What kind of thing it is, e.g. ["person"] or ["organisation", "employer"].',
  },
  MERGE_ENTITY: {
    op: '"MERGE_ENTITY": two entities are the same one, e.g. {"op": "MERGE_ENTITY", "srcId": "Bob", "dstId": "Robert"}.',
    srcId: `The duplicate, e.g. "Bob"; from now on it resolves to dstId. ${RESOLUTION_RULE} (Never created here.)`,
    dstId: 'The entity it is the same as, by name or id, e.g. "Robert".',
  },
  DEFINE_RELATION: {
    op: '"DEFINE_RELATION": declare how many values a relation keeps, e.g. {"op": "DEFINE_RELATION", "rel": "works_at", "cardinality": "one"}.',
    rel: 'The relation, snake_case, e.g. "works_at".',
    cardinality:
      '"one": one value at a time, a new fact ends the old one from its validFrom (e.g. works_at, lives_in); ' +
      '"many": values add up (e.g. speaks, hobby). Undeclared relations are "many".',
    retention:
      'How long its facts keep their content, as an ISO-8601 duration, e.g. "P30D" or "PT12H": after it, their values and sources are ' +
      'erased (the facts stay, without content). Omit to keep the current retention; null removes it.',
  },
  UPSERT_EDGE: {
    op: '"UPSERT_EDGE": assert a fact src -rel-> dst, e.g. {"op": "UPSERT_EDGE", "src": "Alice", "rel": "works_at", "dst": "Acme"}.',
    factId:
      'An id for the fact, e.g. "alice-works-at-acme". Omit to derive it from src, rel and dst (asserting the same fact again then updates it).',
    src: `The subject entity, e.g. "Alice". ${RESOLUTION_RULE}`,
    rel: 'The relation, snake_case, e.g. "works_at", "lives_in", "hobby".',
    dst: 'The object: an entity by name or id (e.g. "Acme", resolved as src), or a value such as {"literal": "climbing"}.',
    validFrom: 'When it became true in the world, e.g. "2024-05-08T00:00:00Z". Omit for the record time (or to keep the fact\'s current one).',
    validTo: 'When it stopped being true (exclusive), e.g. "2024-06-01T00:00:00Z"; null or omitted: still true.',
    confidence: 'How sure the source is, from 0 to 1, e.g. 0.8.',
    evidence: 'Ids of the mentions (dialog turns) it rests on, e.g. ["chat-1-turn-3"].',
    source: 'Where it comes from, e.g. "HR export of May 2024".',
  },
  ARCHIVE_EDGE: {
    op: '"ARCHIVE_EDGE": stop believing a fact from now on (history and audit keep it), e.g. {"op": "ARCHIVE_EDGE", "factId": "alice-acme"}.',
    factId: 'The fact, e.g. "alice-works-at-acme" (read_facts shows ids).',
  },
  RETRO_CORRECT: {
    op:
      '"RETRO_CORRECT": correct when a fact was true; the old version stays in its history, ' +
      'e.g. {"op": "RETRO_CORRECT", "factId": "alice-acme", "validTo": "2024-05-08T00:00:00Z"}.',
    factId: 'The fact, e.g. "alice-works-at-acme" (read_facts shows ids).',
    validFrom: 'The corrected start, e.g. "2024-05-06T00:00:00Z"; omit to keep it.',
    validTo: 'The corrected end (exclusive), e.g. "2024-05-08T00:00:00Z"; null: still true; omit to keep it.',
  },
  UPSERT_EVENT: {
    op:
      '"UPSERT_EVENT": record something that happened, ' +
      'e.g. {"op": "UPSERT_EVENT", "summary": "Alice joined Beta", "timeSpan": {"from": "2024-05-08T00:00:00Z"}, "includesFacts": []}.',
    eventId: 'An id for the event, e.g. "alice-moves-to-beta". Omit to derive it from the summary and the start.',
    summary: 'What happened, in one sentence, e.g. "Alice moved from Acme to Beta".',
    participants: 'Who took part and how, e.g. [{"entityId": "Alice", "role": "employee"}].',
    includesFacts:
      'The facts that evidence it, by id, e.g. ["alice-beta"]: the event is shown only while the memory believes all of them. [] for none.',
    timeSpan: 'When it happened, e.g. {"from": "2024-05-08T00:00:00Z"}.',
  },
  LINK: {
    op: '"LINK": relate two events, e.g. {"op": "LINK", "kind": "causal", "from": "alice-gets-offer", "to": "alice-moves-to-beta"}.',
    kind: 'How they relate: "causal", "temporal", "subevent", "coref", "role" or "related_to", e.g. "causal".',
    from: 'The event the link starts at, by id, e.g. "alice-gets-offer".',
    to: 'The event it points to, by id, e.g. "alice-moves-to-beta".',
    qualifier: 'More detail, e.g. "before" or "led to".',
  },
  UPSERT_EPISODE: {
    op:
      '"UPSERT_EPISODE": group events for display and retrieval (never evidence), ' +
      'e.g. {"op": "UPSERT_EPISODE", "title": "Alice changes jobs", "window": {"from": "2024-05-06T00:00:00Z"}, "events": ["alice-moves-to-beta"]}.',
    episodeId: 'An id for the episode, e.g. "alice-job-change". Omit to derive it from the title and the start.',
    title: 'A title, e.g. "Alice changes jobs".',
    window: 'The time it covers, e.g. {"from": "2024-05-06T00:00:00Z", "to": "2024-05-10T00:00:00Z"}.',
    events: 'Its events, by id, e.g. ["alice-moves-to-beta"].',
  },
  RECORD_MENTION: {
    op:
      '"RECORD_MENTION": record surface evidence, such as one turn of a dialog, ' +
      'e.g. {"op": "RECORD_MENTION", "docId": "chat-1", "speaker": "Alice", "text": "I started at Beta today!"}.',
    mentionId: 'An id for it, e.g. "chat-1-turn-3". Omit to derive it from the document, time, speaker and text.',
    docId: 'The conversation or document it belongs to, e.g. "chat-1".',
    text: 'What was said or written, e.g. "I started at Beta today!".',
    speaker: 'Who said it, e.g. "Alice".',
    occurredAt: 'When it was said, e.g. "2024-05-08T09:15:00Z".',
  },
} as const;

/** A participant of an event: who, and in what role. */
export const PARTICIPANT = {
  entity: `The participant, e.g. "Alice". ${RESOLUTION_RULE}`,
  entityId: `The participant, by name or id, e.g. "Alice" (resolved as a fact's src).`,
  role: 'Its part in the event, e.g. "employee", "buyer", "host".',
};
