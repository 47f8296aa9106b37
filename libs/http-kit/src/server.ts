import { DomainError } from '@memotrace/domain';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { type AccessControl, registerAccessControl, registerAccessRoute } from './auth';
import { registerBodyParsers } from './body-parsers';
import { registerDocs } from './docs';
import { type StorageFault, unavailableAnswer } from './database-unavailable';
import { HttpError, domainHttpError, invalidBody, payloadTooLarge } from './http-error';
import { discardUnreadBody, refuseOversizedExpectContinue } from './unread-body';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth';
import { ServiceMetrics } from './metrics';

export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Probes and scrapes (health, readiness, metrics) come every few seconds from orchestrators and
 * Prometheus: their requests are not logged at info level, only their warnings and errors.
 */
const PROBE = { logLevel: 'warn' } as const;

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export interface HttpServerOptions {
  /** A pino logger; none means silent. */
  logger?: FastifyBaseLogger;
  metrics?: ServiceMetrics;
  readiness?: ReadinessCheck[];
  openApi?: () => object;
  /** API-key access control on `/v1/...` routes; none or no keys means open. */
  access?: AccessControl;
  /** The service's stores' classifier: an error that says its database or search index is away, or full, answers 503/507, not 500. */
  storageFault?: (error: unknown) => StorageFault | null;
}

/**
 * A Fastify instance with MemoTrace's edge rules: the error envelope, 413 over
 * 8 MiB, 400 for JSON nested deeper than 32 levels, no 5xx for any malformed input, health/readiness/metrics/docs routes.
 */
export function createHttpServer(options: HttpServerOptions = {}): { app: FastifyInstance; metrics: ServiceMetrics } {
  const metrics = options.metrics ?? new ServiceMetrics();
  // The stores found away, each with the route that found it: said in the log when that changes, not once per
  // request. A store is back when that route answers again (the search index serves only the routes that search).
  const away = new Map<string, string>();
  const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched';
  const sendError = (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const fault = options.storageFault?.(error) ?? null;
    if (fault !== null) {
      const answer = unavailableAnswer(fault);
      const { code, status } = answer.error;
      if (!away.has(answer.store)) request.log.warn({ err: error }, `${answer.store} unavailable (${code}): answering ${status} until it is back`);
      away.set(answer.store, routeOf(request));
      metrics.errors.inc({ code });
      return void reply.status(status).header('retry-after', String(answer.retryAfterSeconds)).send(answer.error.body());
    }
    const { status, body } = toErrorResponse(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    metrics.errors.inc({ code: body.error.code });
    void reply.status(status).send(body);
  };
  const storesBack = (request: FastifyRequest) => {
    for (const [store, route] of away) {
      if (route !== routeOf(request)) continue;
      away.delete(store);
      request.log.warn(`${store} available again`);
    }
  };
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    genReqId: () => randomUUID(),
    bodyLimit: MAX_BODY_BYTES,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    routerOptions: { maxParamLength: 600, ignoreTrailingSlash: true },
    // Errors found before routing (a path with a malformed percent-encoding) get the envelope too.
    frameworkErrors: sendError,
    clientErrorHandler: answerMalformedHttp,
  });
  registerBodyParsers(app);

  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(new HttpError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`).body());
  });
  // The contract's shapes are shallow; a deeply nested body is refused before any schema walks it.
  app.addHook('preValidation', async (request) => {
    if (nestsDeeperThan(request.body, MAX_JSON_DEPTH)) throw invalidBody(`request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  });
  // On close, the server waits for every connection to end: an answer to a request that was in
  // flight when close began ends its connection, or a keep-alive client would hold the close up.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    // Server-side time of the request so far (routing, handler, serialization): benchmarks read it without network noise.
    void reply.header('server-timing', `app;dur=${reply.elapsedTime.toFixed(3)}`);
    if (closing) void reply.header('connection', 'close');
    // A refused request's unread body is drained before the answer; over the limit, it is 413
    // whatever else was wrong with it (a content type never read, no such route).
    if (reply.statusCode >= 400 && (await discardUnreadBody(request.raw)) > MAX_BODY_BYTES && reply.statusCode !== 413) {
      void reply.code(413);
      return JSON.stringify(payloadTooLarge().body());
    }
    return payload;
  });
  refuseOversizedExpectContinue(app.server, MAX_BODY_BYTES);
  app.addHook('onResponse', async (request, reply) => {
    const route = routeOf(request);
    if (reply.statusCode < 500 && away.size > 0) storesBack(request);
    metrics.httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  if (options.access) registerAccessControl(app, options.access);
  registerAccessRoute(app);

  app.get('/healthz', PROBE, async () => ({ status: 'ok' }));
  app.get('/readyz', PROBE, async (request, reply) => {
    const failures: string[] = [];
    for (const probe of options.readiness ?? []) {
      await probe.check().catch((error: Error) => {
        const fault = options.storageFault?.(error) ?? null;
        failures.push(`${probe.name}: ${fault === null ? error.message : `${unavailableAnswer(fault).error.code} (${error.message})`}`);
      });
    }
    if (failures.length > 0) {
      request.log.warn({ failures }, 'not ready');
      return reply.status(503).send({ status: 'not ready', failures });
    }
    return { status: 'ready' };
  });
  app.get('/metrics', PROBE, async (_request, reply) => {
    void reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  if (options.openApi) registerDocs(app, options.openApi());
  return { app, metrics };
}

/**
 * A request Node's HTTP parser refused (a bad header line, a wrong Content-Length): there is no
 * request to route, so the error envelope is written to the socket by hand, then it is closed.
 */
function answerMalformedHttp(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'the request was not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [400, 'Bad Request', 'request line or headers are too large'] // bad input is 400 (SPEC §4), not HTTP's 431
        : [400, 'Bad Request', 'malformed HTTP request'];
  const body = JSON.stringify(invalidBody(message).body());
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(error);
}

function toErrorResponse(error: FastifyError | Error): { status: number; body: ReturnType<HttpError['body']> } {
  if (error instanceof HttpError) return { status: error.status, body: error.body() };
  if (error instanceof DomainError) {
    const http = domainHttpError(error);
    return { status: http.status, body: http.body() };
  }
  const statusCode = (error as FastifyError).statusCode;
  if (statusCode === 413) return { status: 413, body: payloadTooLarge().body() };
  // Fastify's own 4xx (bad JSON, bad content type, poisoned keys...) are bad input.
  if (statusCode !== undefined && statusCode >= 400 && statusCode < 500) return { status: 400, body: invalidBody(error.message).body() };
  return { status: 500, body: new HttpError('INTERNAL', 'internal error').body() };
}
