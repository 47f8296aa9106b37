import { rebuildRequest } from '@memotrace/contracts';
import { parseInput } from '@memotrace/http-kit';
import type { FastifyInstance } from 'fastify';
import type { RebuildJob } from './rebuild-job';

/**
 * POST /v1/admin/rebuild {to?}: starts a blue/green rebuild of the read models
 * (to the head: switched in; to T: a snapshot schema, see projections/read-models/src/rebuild.ts);
 * 202 with the status, or 200 with the running rebuild's status if one is already running.
 * GET /v1/admin/rebuild: state, progress (events done, rate, ETA), result or error.
 */
export function registerAdminRoutes(app: FastifyInstance, job: RebuildJob): void {
  app.post('/v1/admin/rebuild', async (request, reply) => {
    const body = parseInput(rebuildRequest, request.body ?? {}, 'body');
    const { started, status } = job.start(body.to);
    return reply.status(started ? 202 : 200).send(status);
  });
  app.get('/v1/admin/rebuild', async () => job.current());
}
