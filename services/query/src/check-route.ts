import { checkQuery, checkRequest, memoryParams } from '@memotrace/contracts';
import { type Claim, type Instant, type MemoryQueries, type ValidAt, checkClaim } from '@memotrace/domain';
import { HttpError, parseInput } from '@memotrace/http-kit';
import type { FastifyInstance } from 'fastify';
import type { ConsistencyGate } from './consistency';
import type { WithTiers } from './fact-tiers';

/** A claim as asked: with the valid time it is checked at when it names its own, else at the check's. */
export type TimedClaim = Omit<Claim, 'validAt'> & { validAt?: Instant };

/**
 * Reads the claims of a text (an agent's draft answer) as the memory's extractor reads a turn's statements:
 * names resolved against the memory's entities at `recordedAt` (through `queries`), relative times against `at`.
 */
export type ClaimReader = (input: {
  memoryId: string;
  text: string;
  speaker?: string;
  at: Instant;
  recordedAt: Instant;
  queries: MemoryQueries;
}) => Promise<TimedClaim[]>;

export interface CheckRouteDeps {
  gate: ConsistencyGate;
  now(): string;
  /** Without it, a check given `text` is 400: this service reads no claims from text. */
  readClaims?: ClaimReader | undefined;
  /** The facts' tiers (SPEC 5.4) on the versions a verdict rests on. */
  withTiers: WithTiers;
}

/**
 * `POST /v1/memories/{memoryId}/check` (SPEC 5.3): one verdict per claim at the cut, each resting on the fact
 * versions it names; the rule is the domain's `checkClaim`, over grounds either reader (read models, replay)
 * supplies alike. The cut defaults as a read's does (both bounds now).
 */
export function registerCheckRoute(app: FastifyInstance, { gate, now, readClaims, withTiers }: CheckRouteDeps): void {
  app.post('/v1/memories/:memoryId/check', async (request) => {
    const { memoryId } = parseInput(memoryParams, request.params, 'path');
    const query = parseInput(checkQuery, request.query, 'query');
    const body = parseInput(checkRequest, request.body, 'body');
    const at = now();
    const cut: { validAt: ValidAt; recordedAt: Instant } = { validAt: body.validAt ?? at, recordedAt: body.recordedAt ?? at };
    const source = body.consistency ?? query.consistency ?? 'projection';
    const queries = await gate.source(memoryId, source, body.minPosition ?? query.minPosition);
    let claims: TimedClaim[];
    if (body.claims !== undefined) claims = body.claims;
    else {
      if (readClaims === undefined)
        throw new HttpError('INVALID_REQUEST', 'this service reads no claims from text', [{ path: 'text', message: 'give claims' }]);
      const relativeTo = cut.validAt === '*' ? cut.recordedAt : cut.validAt;
      claims = await readClaims({ memoryId, text: body.text!, speaker: body.speaker, at: relativeTo, recordedAt: cut.recordedAt, queries });
    }
    const timed: Claim[] = claims.map((claim) => ({ ...claim, validAt: claim.validAt ?? cut.validAt }));
    const grounds = claims.length === 0 ? [] : await queries.claimGrounds(memoryId, cut.recordedAt, timed);
    const verdicts = await Promise.all(
      claims.map(async (claim, i) => {
        const { verdict, facts } = checkClaim(grounds[i]!, timed[i]!.validAt, cut.recordedAt);
        return { claim, verdict, facts: await withTiers(memoryId, facts) };
      }),
    );
    return { cut, source, ...(body.text === undefined ? {} : { claims }), verdicts };
  });
}
