import type { CheckResponse, MemoTraceClient } from '@memotrace/client';

/** What a graph needs to know of a draft's check: every verdict, and the claims the answer must not state as they stand. */
export interface AnswerCheck {
  cut: CheckResponse['cut'];
  verdicts: CheckResponse['verdicts'];
  /** The claims the memory does not support at the cut (contradicted, outdated, not yet valid, retracted or unknown). */
  unsupported: CheckResponse['verdicts'];
}

export interface AnswerCheckOptions<S> {
  memoryId: string;
  /** The draft answer in the graph's state, e.g. `(s) => s.messages.at(-1).content`. */
  draft(state: S): string;
  /** Who "I" is in the draft (an entity id or a name); by default nobody the memory knows. */
  speaker?(state: S): string | undefined;
  /** The world time the answer is about; default now. */
  validAt?(state: S): string | undefined;
}

/**
 * A LangGraph node that checks an agent's draft answer against a MemoTrace memory before it is sent (SPEC 5.3): the
 * memory's extractor reads the draft's claims and each gets a verdict at the cut. The node returns `{ answerCheck }`,
 * so a conditional edge can send the draft back for revision while `answerCheck.unsupported` is not empty, e.g.
 * `graph.addNode('check', answerCheckNode(client, { memoryId, draft: (s) => s.draft }))`.
 */
export function answerCheckNode<S>(client: MemoTraceClient, options: AnswerCheckOptions<S>): (state: S) => Promise<{ answerCheck: AnswerCheck }> {
  const memory = client.memory(options.memoryId);
  return async (state) => {
    const speaker = options.speaker?.(state);
    const validAt = options.validAt?.(state);
    const { cut, verdicts } = await memory.check({
      text: options.draft(state),
      ...(speaker === undefined ? {} : { speaker }),
      ...(validAt === undefined ? {} : { validAt }),
    });
    return { answerCheck: { cut, verdicts, unsupported: verdicts.filter((v) => v.verdict !== 'supported') } };
  };
}
