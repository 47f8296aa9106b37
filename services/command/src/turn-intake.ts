import type { DerivedCommandResult, ExtractionSettings, TurnsRequest } from '@memotrace/contracts';
import { type Command, type CommandResult, DomainError, type MemoryState, deriveMentionId, deriveTurnCommandId } from '@memotrace/domain';
import type { Extractor, Turn } from '@memotrace/extraction';
import type { CommandHandler } from './command-handler';
import { type TurnExtraction, turnExtraction } from './turn-extraction';

/** Turns a re-extraction job names at most: one extraction's worth, as a request of async turns might hold. */
export const REEXTRACT_TURNS_PER_JOB = 50;

/** What `reextract` queued: jobs, the turns they name, and the extractor they run. */
export interface ReextractOutcome {
  jobs: number;
  turns: number;
  extractor: string;
}

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

  /**
   * Derives again from the memory's recorded turns (every mention with text and a time, whether sent
   * through /turns or as a plain RECORD_MENTION), all sessions' or `sessionId`'s only: async jobs for the
   * current extractor, one session's turns in dialog order per job. The same extractor version gives the
   * same command ids (duplicates); a new version's commands are new and supersede through the DSL.
   * `undefined` when the memory has no log; throws when this process has no extractor or queue.
   */
  async reextract(memoryId: string, sessionId?: string): Promise<ReextractOutcome | undefined> {
    const { extraction, queue } = this;
    if (extraction === undefined || queue === undefined) throw new Error('this process has no extractor: nothing to re-extract with');
    const sessions = await this.handler.readState(memoryId, (state) => (state.eventCount === 0 ? undefined : turnsBySession(state, sessionId)));
    if (sessions === undefined) return undefined;
    let jobs = 0;
    let turns = 0;
    for (const [session, mentionIds] of sessions) {
      for (let i = 0; i < mentionIds.length; i += REEXTRACT_TURNS_PER_JOB) {
        const chunk = mentionIds.slice(i, i + REEXTRACT_TURNS_PER_JOB);
        // No turn commands to wait for: the turns are in the memory already, and the job checks they still are.
        await queue.enqueue({ memoryId, sessionId: session, mentionIds: chunk, turnCommandIds: [] });
        jobs++;
        turns += chunk.length;
      }
    }
    if (jobs > 0) queue.wake();
    return { jobs, turns, extractor: extraction.label };
  }

  /** The memory's extraction settings; `undefined` when the memory has no log; throws when this process has no extractor. */
  settings(memoryId: string): Promise<Omit<ExtractionSettings, 'memoryId'> | undefined> {
    const { extraction } = this;
    if (extraction === undefined) throw new Error('this process has no extractor');
    return this.handler.readState(memoryId, (state) =>
      state.eventCount === 0
        ? undefined
        : { extractor: extraction.label, gate: extraction.gateOf(state), memoryGate: state.extractionGate, defaultGate: extraction.defaultGate },
    );
  }

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

/**
 * The memory's turns that can be derived from (not erased: text and time known), by session, each in
 * dialog order (time, then mention id); sessions by their first turn, so older dialog is derived first.
 */
function turnsBySession(state: MemoryState, sessionId: string | undefined): Map<string, string[]> {
  const bySession = new Map<string, { at: string; mentionId: string }[]>();
  for (const mention of state.mentions.values()) {
    if (mention.text === null || mention.occurredAt === null) continue;
    if (sessionId !== undefined && mention.docId !== sessionId) continue;
    const turns = bySession.get(mention.docId) ?? [];
    turns.push({ at: mention.occurredAt, mentionId: mention.mentionId });
    bySession.set(mention.docId, turns);
  }
  const byTime = (a: { at: string; mentionId: string }, b: { at: string; mentionId: string }) =>
    a.at < b.at ? -1 : a.at > b.at ? 1 : a.mentionId < b.mentionId ? -1 : a.mentionId > b.mentionId ? 1 : 0;
  const sessions = [...bySession.entries()].map(([session, turns]) => ({ session, turns: turns.sort(byTime) }));
  sessions.sort((a, b) => byTime(a.turns[0]!, b.turns[0]!) || (a.session < b.session ? -1 : a.session > b.session ? 1 : 0));
  return new Map(sessions.map(({ session, turns }) => [session, turns.map((t) => t.mentionId)]));
}
