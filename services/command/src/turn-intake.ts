import type { DerivedCommandResult, TurnsRequest } from '@memotrace/contracts';
import { type Command, type CommandResult, DomainError, deriveMentionId, deriveTurnCommandId } from '@memotrace/domain';
import type { Extractor, Turn } from '@memotrace/extraction';
import type { CommandHandler } from './command-handler';
import { type TurnExtraction, turnExtraction } from './turn-extraction';

export interface TurnsOutcome {
  position: number;
  results: CommandResult[];
  derived: DerivedCommandResult[];
}

/** Where `async` turns wait to be derived from (the extraction processor). */
export interface AsyncExtractionQueue {
  /** Records a job for turns about to be appended; its id. */
  enqueue(job: { memoryId: string; sessionId: string; mentionIds: string[]; turnCommandIds: string[] }): Promise<number>;
  /** The job's turns will never be appended (their batch was refused): nothing to wait for. */
  cancel(jobId: number): Promise<void>;
  /** The turns of a job are appended: derive from them now rather than at the next poll. */
  wake(): void;
}

/** The intake as a process wires it: the configured extractor (an explicit one wins), gate and timeout, and the async jobs' queue. */
export function turnIntake(
  handler: CommandHandler,
  config: { extractionGate: number; extractionTimeoutMs: number },
  extractor: Extractor | undefined,
  queue?: AsyncExtractionQueue,
): TurnIntake {
  return new TurnIntake(handler, extractor && turnExtraction(extractor, config), queue);
}

/**
 * Conversation turns in (SPEC §5.1): each turn becomes a RECORD_MENTION of its session with a
 * command id derived from its content, so a resent turn is a duplicate. In `sync` mode the
 * extractor derives commands from the turns not recorded before, and they join the turns' batch:
 * one atomic append at one record time. In `async` mode a job for those turns is recorded before
 * they are appended, and the extraction processor derives from them later. Without an extractor
 * (or, for `async`, without a queue) turns are recorded only.
 */
export class TurnIntake {
  constructor(
    private readonly handler: CommandHandler,
    private readonly extraction?: TurnExtraction,
    private readonly queue?: AsyncExtractionQueue,
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
    const { extraction, queue } = this;
    if (extraction !== undefined && request.extraction === 'async' && queue !== undefined) {
      return this.recordForLater(memoryId, request.sessionId, turns, turnCommands, queue);
    }
    if (extraction === undefined || request.extraction !== 'sync') {
      const outcome = await this.handler.handle(memoryId, turnCommands);
      return { ...outcome, derived: [] };
    }
    const context = await this.handler.readState(memoryId, (state) =>
      // A turn sent before is a duplicate and derives nothing new.
      extraction.context(
        state,
        turns.filter((_, i) => !state.outcomes.has(turnCommands[i]!.commandId)),
        request.sessionId,
      ),
    );
    const planned = await extraction.derive(memoryId, context, envelope);
    return extraction.append(this.handler, memoryId, turnCommands, planned);
  }

  /**
   * `async`: the job first, then the turns, so no recorded turn lacks its job (a job whose turns never
   * got appended is dropped by the processor). A turn sent before derives nothing new: no job.
   */
  private async recordForLater(memoryId: string, sessionId: string, turns: Turn[], turnCommands: Command[], queue: AsyncExtractionQueue) {
    const fresh = await this.handler.readState(memoryId, (state) => turnCommands.flatMap((c, i) => (state.outcomes.has(c.commandId) ? [] : [i])));
    const jobId =
      fresh.length === 0
        ? undefined
        : await queue.enqueue({
            memoryId,
            sessionId,
            mentionIds: fresh.map((i) => turns[i]!.mentionId),
            turnCommandIds: fresh.map((i) => turnCommands[i]!.commandId),
          });
    let outcome;
    try {
      outcome = await this.handler.handle(memoryId, turnCommands);
    } catch (error) {
      // A refused batch wrote nothing: its job has nothing to wait for (left over, the processor drops it later).
      if (jobId !== undefined && error instanceof DomainError) await queue.cancel(jobId).catch(() => undefined);
      throw error;
    }
    if (jobId !== undefined) queue.wake();
    return { ...outcome, derived: [] };
  }
}
