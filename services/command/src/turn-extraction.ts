import { type DerivedCommandResult, toDomainCommand, wireCommand } from '@memotrace/contracts';
import {
  type Command,
  type CommandResult,
  DomainError,
  type MemoryState,
  type UpsertEdge,
  deriveEntityId,
  deriveExtractedCommandId,
  deriveFactId,
  openVersion,
  relOfSubjectKey,
  relationPhrase,
} from '@memotrace/domain';
import {
  type Derived,
  ExtractionFailedError,
  type Extractor,
  type KnownEntity,
  type KnownRelation,
  type Turn,
  failureSummary,
  isCopy,
} from '@memotrace/extraction';
import type { CommandHandler } from './command-handler';

export interface TurnExtractionOptions {
  /** Derived commands below this confidence are not appended, unless the memory set its own gate. */
  gate: number;
  /** An extraction that takes longer fails. */
  timeoutMs: number;
  /** Earlier turns of the session given to the extractor as context. */
  windowTurns: number;
}

/** Earlier turns of a session an extractor sees as context. */
export const WINDOW_TURNS = 20;

/** The extraction as a process configures it: gate and timeout from the environment. */
export function turnExtraction(extractor: Extractor, config: { extractionGate: number; extractionTimeoutMs: number }): TurnExtraction {
  return new TurnExtraction(extractor, { gate: config.extractionGate, timeoutMs: config.extractionTimeoutMs, windowTurns: WINDOW_TURNS });
}

/** What an extraction reads of the memory before it starts. */
export interface ExtractionContext {
  /** The turns to derive from. */
  turns: Turn[];
  entities: KnownEntity[];
  window: Turn[];
  /** Relations the memory knows: declared, or used by a fact. */
  relations: KnownRelation[];
  /** Relations the memory declared already. */
  declared: Set<string>;
  /** The least confidence of a derived command appended: the memory's gate, else the process's. */
  gate: number;
  /** Open facts an earlier version of this extractor derived from the turns: this version re-derives or retires them. */
  earlier: { factId: string; turns: string[] }[];
}

export interface Planned {
  command: Command;
  turns: string[];
}

export interface AppendOutcome {
  position: number;
  /** One per leading command. */
  results: CommandResult[];
  derived: DerivedCommandResult[];
}

/**
 * Extraction as both modes run it (SPEC §5.1): the extractor with its timeout, then what is kept of
 * its output (the gate, a declared relation's cardinality, the DSL's checks), each derived command
 * with its envelope (actor `extractor:<name>@<version>`, its turns in `derivedFrom` and as a fact's
 * evidence, a command id from turns, extractor, version and ordinal), and the append that leaves out
 * a derived command the memory refuses. `sync` appends the derived commands behind the turns, in one
 * batch; `async` appends them alone, later.
 */
export class TurnExtraction {
  constructor(
    readonly extractor: Extractor,
    private readonly options: TurnExtractionOptions,
  ) {}

  /** `name@version`: what a job records as its extractor. */
  get label(): string {
    return `${this.extractor.name}@${this.extractor.version}`;
  }

  /** The memory as the extractor sees it when deriving from `turns` of session `sessionId`. */
  context(state: MemoryState, turns: Turn[], sessionId: string): ExtractionContext {
    return {
      turns,
      entities: knownEntities(state),
      window: sessionWindow(state, sessionId, turns, this.options.windowTurns),
      relations: knownRelations(state),
      declared: new Set(state.relations.keys()),
      gate: this.gateOf(state),
      earlier: earlierDerivations(state, turns, this.extractor),
    };
  }

  /** The memory's gate (SET_EXTRACTION_GATE), else the process's default. */
  gateOf(state: MemoryState): number {
    return state.extractionGate ?? this.options.gate;
  }

  /** The process's default gate (EXTRACTION_GATE). */
  get defaultGate(): number {
    return this.options.gate;
  }

  /** The commands derived from the context's turns and kept; throws ExtractionFailedError when the extractor fails. */
  async derive(memoryId: string, context: ExtractionContext, envelope: { recordedAt?: string }): Promise<Planned[]> {
    if (context.turns.length === 0) return [];
    const derived = await this.extract(memoryId, context);
    // A relation the memory declared already keeps its declaration: an extractor's guess never changes a cardinality.
    const declared = derived.filter((d) => !(d.command.op === 'DEFINE_RELATION' && context.declared.has(d.command.rel)));
    const kept = withoutCopies(memoryId, declared, context);
    const planned = this.plan(memoryId, kept, envelope, context.gate);
    return [...planned, ...this.retire(memoryId, context.earlier, planned, envelope)];
  }

  /**
   * What an earlier version of this extractor derived from the turns and this one does not derive again is no
   * longer believed: archived through the DSL, so the log keeps it (history, audit, replay) and no cut shows it as
   * current; an event that rested on it leaves every later cut with it.
   */
  private retire(memoryId: string, earlier: ExtractionContext['earlier'], planned: readonly Planned[], envelope: { recordedAt?: string }): Planned[] {
    const asserted = new Set(
      planned.flatMap(({ command: c }) => (c.op === 'UPSERT_EDGE' ? [c.factId ?? deriveFactId(memoryId, c.src, c.rel, c.dst)] : [])),
    );
    const actor = `extractor:${this.label}`;
    return earlier
      .filter((e) => !asserted.has(e.factId))
      .map((e, i) => {
        const commandId = deriveExtractedCommandId(memoryId, e.turns, this.extractor.name, `${this.extractor.version}+retired`, i);
        const command: Command = {
          op: 'ARCHIVE_EDGE',
          factId: e.factId,
          commandId,
          ...(envelope.recordedAt !== undefined ? { recordedAt: envelope.recordedAt } : {}),
          actor,
          reason: `derived by an earlier version of the extractor and not by ${this.label}`,
          derivedFrom: e.turns,
        };
        return { command, turns: e.turns };
      });
  }

  /**
   * `leading` commands and the planned ones as one batch. A derived command the memory refuses (e.g.
   * it names an entity erased meanwhile) is left out and the batch decided again; an error of a
   * leading command is the caller's.
   */
  async append(
    handler: Pick<CommandHandler, 'handle'>,
    memoryId: string,
    leading: Command[],
    planned: Planned[],
    requires?: (state: MemoryState) => boolean,
  ): Promise<AppendOutcome> {
    let kept = planned;
    for (;;) {
      try {
        const batch = kept.map((p) => p.command);
        const outcome = await handler.handle(memoryId, (state) => [...leading, ...restating(memoryId, state, batch)], requires);
        return {
          position: outcome.position,
          results: outcome.results.slice(0, leading.length),
          derived: outcome.results.slice(leading.length).map((result, i) => ({
            commandId: result.commandId,
            op: kept[i]!.command.op,
            status: result.status,
            ids: result.ids,
            turns: kept[i]!.turns,
          })),
        };
      } catch (error) {
        const index = error instanceof DomainError ? error.commandIndex : undefined;
        if (index === undefined || index < leading.length) throw error;
        kept = kept.filter((_, i) => i !== index - leading.length);
      }
    }
  }

  private async extract(memoryId: string, context: ExtractionContext): Promise<Derived[]> {
    const { extractor } = this;
    const name = `extractor ${this.label}`;
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const timedOut = () => new ExtractionFailedError(`${name} timed out after ${this.options.timeoutMs} ms`);
    const timeout = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(timedOut())));
    try {
      const derived = await Promise.race([
        extractor.extract(
          { memoryId, turns: context.turns, window: context.window, entities: context.entities, relations: context.relations },
          signal,
        ),
        timeout,
      ]);
      // An extractor that answers once aborted (with what it had) is late all the same.
      if (signal.aborted) throw timedOut();
      return derived;
    } catch (error) {
      if (error instanceof ExtractionFailedError) throw error;
      throw new ExtractionFailedError(`${name} failed: ${error instanceof Error ? error.message : String(error)}`, undefined, {
        cause: error,
        summary: `${name} failed (${failureSummary(error)})`,
      });
    }
  }

  /** The derived commands at or above `gate`, with their envelope, checked as any client's command is. */
  private plan(memoryId: string, derived: readonly Derived[], envelope: { recordedAt?: string }, gate: number): Planned[] {
    const { extractor } = this;
    const actor = `extractor:${this.label}`;
    const ordinals = new Map<string, number>();
    const planned: Planned[] = [];
    for (const item of derived) {
      if (!(item.confidence >= gate) || item.turns.length === 0) continue;
      const turnsKey = [...item.turns].sort().join(',');
      const ordinal = ordinals.get(turnsKey) ?? 0;
      ordinals.set(turnsKey, ordinal + 1);
      const body = item.command.op === 'UPSERT_EDGE' ? withFactEvidence(item.command, item) : item.command;
      const wire = {
        ...body,
        commandId: deriveExtractedCommandId(memoryId, item.turns, extractor.name, extractor.version, ordinal),
        ...(envelope.recordedAt !== undefined ? { recordedAt: envelope.recordedAt } : {}),
        actor,
        reason: `${item.why ?? 'derived'} (confidence ${item.confidence.toFixed(2)})`,
        derivedFrom: item.turns,
      };
      const parsed = wireCommand.safeParse(wire);
      // A derived command the DSL refuses is the extractor's mistake: left out, never a reason to lose the turns.
      if (!parsed.success) continue;
      planned.push({ command: toDomainCommand(parsed.data, () => wire.commandId), turns: item.turns });
    }
    return planned;
  }
}

/**
 * A derived fact the memory holds already (or that an earlier command of the batch derived) is
 * restated, not replaced: its turns join the fact's evidence, with the higher confidence, and a fact
 * that holds from then on (no `validTo`) holds from the earlier of the two `validFrom`s. So a fact
 * said in several sessions cites every turn that says it.
 */
function restating(memoryId: string, state: MemoryState, commands: readonly Command[]): Command[] {
  const batch = new Map<string, Held>();
  return commands.map((command) => {
    if (command.op !== 'UPSERT_EDGE') return command;
    const factId = command.factId ?? deriveFactId(memoryId, command.src, command.rel, command.dst);
    const held: Held | undefined = batch.get(factId) ?? openVersion(state.facts.get(factId)?.versions ?? []);
    const restated = held === undefined ? command : { ...command, ...restatement(held, command) };
    batch.set(factId, { evidence: restated.evidence ?? [], validFrom: restated.validFrom, confidence: restated.confidence });
    return restated;
  });
}

/** What a fact holds already: its open version, or what an earlier command of the batch made it. */
type Held = { evidence: readonly string[]; validFrom?: string | undefined; confidence?: number | null | undefined };

function restatement(held: Held, command: UpsertEdge) {
  const confidences = [held.confidence, command.confidence].filter((c): c is number => typeof c === 'number');
  const open = command.validTo === undefined || command.validTo === null;
  const validFrom =
    open && held.validFrom !== undefined && (command.validFrom === undefined || held.validFrom < command.validFrom)
      ? held.validFrom
      : command.validFrom;
  return {
    evidence: [...new Set([...held.evidence, ...(command.evidence ?? [])])],
    ...(validFrom !== undefined ? { validFrom } : {}),
    ...(confidences.length > 0 ? { confidence: Math.max(...confidences) } : {}),
  };
}

/** A derived fact cites its turns as evidence (SPEC §5.1), whatever else the extractor cited. */
function withFactEvidence(command: Extract<Derived['command'], { op: 'UPSERT_EDGE' }>, item: Derived) {
  const evidence = [...new Set([...(command.evidence ?? []), ...item.turns])];
  return { ...command, evidence, confidence: command.confidence ?? item.confidence };
}

/** The entities the memory knows by name now: canonical ones with content. */
function knownEntities(state: MemoryState): KnownEntity[] {
  const known: KnownEntity[] = [];
  for (const entity of state.entities.values()) {
    if (entity.name === null || state.classes.canonical(entity.entityId) !== entity.entityId) continue;
    known.push({
      entityId: entity.entityId,
      name: entity.name,
      aliases: entity.aliases.map((a) => a.value),
      types: entity.types.map((t) => t.value),
    });
  }
  return known;
}

/**
 * The derived items that say what their turns say, not the turns again: a fact as the memory reads it ("<subject> <rel>
 * <object>") or an event's summary that repeats a turn's words is left out, whichever extractor derived it (the turn is
 * the memory's mention already), and so is an event that rested on such a fact.
 */
function withoutCopies(memoryId: string, derived: readonly Derived[], context: ExtractionContext): Derived[] {
  const names = new Map(context.entities.map((e) => [e.entityId, e.name]));
  for (const d of derived)
    if (d.command.op === 'UPSERT_ENTITY') names.set(d.command.entityId ?? deriveEntityId(memoryId, d.command.name), d.command.name);
  const said = new Map(context.turns.map((t) => [t.mentionId, t.text]));
  const copies = new Set<string>();
  const copied = (text: string, turns: readonly string[]) => turns.some((t) => isCopy(text, said.get(t) ?? ''));
  const kept = derived.filter((d) => {
    const c = d.command;
    if (c.op !== 'UPSERT_EDGE' || typeof c.dst === 'string') return true;
    const literal = String(c.dst.literal);
    if (!copied(`${names.get(c.src) ?? c.src} ${relationPhrase(c.rel)} ${literal}`, d.turns) && !copied(literal, d.turns)) return true;
    copies.add(c.factId ?? deriveFactId(memoryId, c.src, c.rel, c.dst));
    return false;
  });
  // A summary is a copy as it stands, or after a speaker's name that leads it ("Dana: I have been looking ...").
  const summaryCopied = (summary: string, turns: readonly string[]) =>
    copied(summary, turns) || copied(summary.replace(/^[^:]{1,64}:\s*/u, ''), turns);
  return kept.filter(
    (d) => d.command.op !== 'UPSERT_EVENT' || !(summaryCopied(d.command.summary, d.turns) || d.command.includesFacts.some((f) => copies.has(f))),
  );
}

/** The relations the memory knows: each declared one with its cardinality, and each a fact uses (`many` unless declared). */
function knownRelations(state: MemoryState): KnownRelation[] {
  const known = new Map<string, KnownRelation>();
  for (const [rel, cardinality] of state.relations) known.set(rel, { rel, cardinality });
  for (const key of state.factsBySubject.keys()) {
    const rel = relOfSubjectKey(key);
    if (!known.has(rel)) known.set(rel, { rel, cardinality: 'many' });
  }
  return [...known.values()];
}

/** Open facts derived from `turns` by another version of `extractor` (its actor names another version), with the turns citing them. */
function earlierDerivations(state: MemoryState, turns: readonly Turn[], extractor: Extractor): ExtractionContext['earlier'] {
  const ours = `extractor:${extractor.name}@`;
  const current = `${ours}${extractor.version}`;
  const found = new Map<string, string[]>();
  for (const turn of turns) {
    for (const commandId of state.derivations.get(turn.mentionId) ?? []) {
      const outcome = state.outcomes.get(commandId);
      const factId = outcome?.ids['factId'];
      if (outcome === undefined || typeof factId !== 'string' || !outcome.actor?.startsWith(ours) || outcome.actor === current) continue;
      if (openVersion(state.facts.get(factId)?.versions ?? []) === undefined) continue;
      found.set(factId, [...new Set([...(found.get(factId) ?? []), turn.mentionId])]);
    }
  }
  return [...found].map(([factId, cited]) => ({ factId, turns: cited }));
}

/**
 * The session's last `size` recorded turns said no later than the latest of `turns`, oldest first,
 * `turns` themselves not included (an async job's turns are recorded before they are derived from).
 * Erased turns are not context.
 */
function sessionWindow(state: MemoryState, sessionId: string, turns: readonly Turn[], size: number): Turn[] {
  const own = new Set(turns.map((t) => t.mentionId));
  const latest = turns.reduce<string | null>((max, t) => (max === null || t.at > max ? t.at : max), null);
  const window: Turn[] = [];
  for (const mention of state.mentions.values()) {
    if (mention.docId !== sessionId || mention.text === null || mention.occurredAt === null || own.has(mention.mentionId)) continue;
    if (latest !== null && mention.occurredAt > latest) continue;
    window.push({ mentionId: mention.mentionId, sessionId, speaker: mention.speaker ?? '', text: mention.text, at: mention.occurredAt });
  }
  window.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return window.slice(-size);
}
