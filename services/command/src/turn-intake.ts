import { type DerivedCommandResult, type TurnsRequest, toDomainCommand, wireCommand } from '@memotrace/contracts';
import {
  type Command,
  type CommandResult,
  DomainError,
  type MemoryState,
  deriveExtractedCommandId,
  deriveMentionId,
  deriveTurnCommandId,
} from '@memotrace/domain';
import { type Derived, ExtractionFailedError, type Extractor, type KnownEntity, type Turn } from '@memotrace/extraction';
import type { CommandHandler } from './command-handler';

export interface TurnsOutcome {
  position: number;
  results: CommandResult[];
  derived: DerivedCommandResult[];
}

export interface TurnIntakeOptions {
  /** Derives commands from turns; without one, turns are recorded only. */
  extractor?: Extractor;
  /** Derived commands below this confidence are not appended. */
  gate: number;
  /** An extraction that takes longer fails (502 EXTRACTION_FAILED in sync mode). */
  timeoutMs: number;
  /** Earlier turns of the session given to the extractor as context. */
  windowTurns: number;
}

/** Earlier turns of a session an extractor sees as context. */
const WINDOW_TURNS = 20;

/** The intake as a process wires it: the configured extractor (an explicit one wins), gate and timeout. */
export function turnIntake(
  handler: CommandHandler,
  config: { extractionGate: number; extractionTimeoutMs: number },
  extractor: Extractor | undefined,
): TurnIntake {
  return new TurnIntake(handler, { extractor, gate: config.extractionGate, timeoutMs: config.extractionTimeoutMs, windowTurns: WINDOW_TURNS });
}

interface Planned {
  command: Command;
  turns: string[];
}

/**
 * Conversation turns in (SPEC §5.1): each turn becomes a RECORD_MENTION of its session with a
 * command id derived from its content, so a resent turn is a duplicate. In `sync` mode the
 * extractor derives commands from the turns not recorded before, and they join the turns' batch:
 * one atomic append at one record time. Derived commands are ordinary DSL, with actor
 * `extractor:<name>@<version>`, the turns they rest on in `derivedFrom`, and command ids derived
 * from turns, extractor and version.
 */
export class TurnIntake {
  constructor(
    private readonly handler: CommandHandler,
    private readonly options: TurnIntakeOptions,
  ) {}

  async record(memoryId: string, request: TurnsRequest, actor?: string): Promise<TurnsOutcome> {
    const turns = request.turns.map((t): Turn => ({
      mentionId: t.turnId ?? deriveMentionId(memoryId, request.sessionId, t.text, t.at, t.speaker),
      sessionId: request.sessionId,
      speaker: t.speaker,
      text: t.text,
      at: t.at,
    }));
    const envelope = { ...(request.recordedAt !== undefined ? { recordedAt: request.recordedAt } : {}), ...(actor !== undefined ? { actor } : {}) };
    const turnCommands = turns.map((turn): Command => ({
      op: 'RECORD_MENTION',
      commandId: deriveTurnCommandId(memoryId, turn.mentionId, turn.speaker, turn.text, turn.at),
      mentionId: turn.mentionId,
      docId: turn.sessionId,
      text: turn.text,
      speaker: turn.speaker,
      occurredAt: turn.at,
      ...envelope,
    }));
    const extractor = this.options.extractor;
    if (request.extraction !== 'sync' || extractor === undefined) {
      const outcome = await this.handler.handle(memoryId, turnCommands);
      return { ...outcome, derived: [] };
    }
    const context = await this.handler.readState(memoryId, (state) => ({
      // A turn sent before is a duplicate and derives nothing new.
      fresh: turns.filter((turn, i) => !state.outcomes.has(turnCommands[i]!.commandId)),
      entities: knownEntities(state),
      window: sessionWindow(state, request.sessionId, this.options.windowTurns),
      declared: new Set(state.relations.keys()),
    }));
    // A relation the memory declared already keeps its declaration: an extractor's guess never changes a cardinality.
    const derived = context.fresh.length === 0 ? [] : await this.extract(extractor, memoryId, context);
    const planned = this.plan(
      memoryId,
      extractor,
      derived.filter((d) => !(d.command.op === 'DEFINE_RELATION' && context.declared.has(d.command.rel))),
      envelope,
    );
    return this.append(memoryId, turnCommands, planned);
  }

  private async extract(
    extractor: Extractor,
    memoryId: string,
    context: { fresh: Turn[]; entities: KnownEntity[]; window: Turn[] },
  ): Promise<Derived[]> {
    const name = `extractor ${extractor.name}@${extractor.version}`;
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const timedOut = () => new ExtractionFailedError(`${name} timed out after ${this.options.timeoutMs} ms`);
    const timeout = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(timedOut())));
    try {
      const derived = await Promise.race([
        extractor.extract({ memoryId, turns: context.fresh, window: context.window, entities: context.entities }, signal),
        timeout,
      ]);
      // An extractor that answers once aborted (with what it had) is late all the same.
      if (signal.aborted) throw timedOut();
      return derived;
    } catch (error) {
      if (error instanceof ExtractionFailedError) throw error;
      throw new ExtractionFailedError(`${name} failed: ${error instanceof Error ? error.message : String(error)}`, undefined, { cause: error });
    }
  }

  /** The derived commands at or above the gate, with their envelope, checked as any client's command is. */
  private plan(memoryId: string, extractor: Extractor, derived: readonly Derived[], envelope: { recordedAt?: string }): Planned[] {
    const actor = `extractor:${extractor.name}@${extractor.version}`;
    const ordinals = new Map<string, number>();
    const planned: Planned[] = [];
    for (const item of derived) {
      if (!(item.confidence >= this.options.gate) || item.turns.length === 0) continue;
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

  /**
   * Turns and derived commands as one batch. A derived command the memory refuses (e.g. it names an
   * entity erased meanwhile) is left out and the batch decided again; an error of a turn is the request's.
   */
  private async append(memoryId: string, turnCommands: Command[], planned: Planned[]): Promise<TurnsOutcome> {
    let kept = planned;
    for (;;) {
      try {
        const outcome = await this.handler.handle(memoryId, [...turnCommands, ...kept.map((p) => p.command)]);
        return {
          position: outcome.position,
          results: outcome.results.slice(0, turnCommands.length),
          derived: outcome.results.slice(turnCommands.length).map((result, i) => ({
            commandId: result.commandId,
            op: kept[i]!.command.op,
            status: result.status,
            ids: result.ids,
            turns: kept[i]!.turns,
          })),
        };
      } catch (error) {
        const index = error instanceof DomainError ? error.commandIndex : undefined;
        if (index === undefined || index < turnCommands.length) throw error;
        kept = kept.filter((_, i) => i !== index - turnCommands.length);
      }
    }
  }
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

/** The session's last `size` recorded turns, oldest first (erased ones are not context). */
function sessionWindow(state: MemoryState, sessionId: string, size: number): Turn[] {
  const turns: Turn[] = [];
  for (const mention of state.mentions.values()) {
    if (mention.docId !== sessionId || mention.text === null || mention.occurredAt === null) continue;
    turns.push({ mentionId: mention.mentionId, sessionId, speaker: mention.speaker ?? '', text: mention.text, at: mention.occurredAt });
  }
  turns.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return turns.slice(-size);
}
