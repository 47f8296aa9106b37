import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where the API reference lives: the page for browsers, the JSON document for everyone else. */
export const DOCS_PATH = '/docs';
/** The OpenAPI document as JSON whatever the client accepts (`/docs/json` is the UI's own URL for it). */
export const DOCS_JSON_PATHS = [`${DOCS_PATH}/openapi.json`, `${DOCS_PATH}/json`] as const;

/**
 * True when the client prefers an HTML page to JSON (a browser): `text/html` is accepted with a
 * higher quality than `application/json`. A client that sends no Accept, `*\/*`, or asks for JSON
 * gets JSON, as `GET /docs` always answered before the page existed.
 */
export function prefersHtml(accept: string | undefined): boolean {
  let html = 0;
  let json = 0;
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    else if (type === 'application/json') json = Math.max(json, q);
  }
  return html > json;
}

/**
 * `GET /docs`: the OpenAPI document as JSON (2-space indented) to a client that asks for JSON
 * (or does not say), a browsable Swagger UI page to a browser. The UI's scripts, styles and
 * images are served from this server (`/docs/static/...`, bundled with @fastify/swagger-ui), so the
 * page works offline; the validator badge (validator.swagger.io) is off. Docs are public: access
 * control only guards `/v1/...`.
 */
export function registerDocs(app: FastifyInstance, document: object): void {
  const text = `${JSON.stringify(document, null, 2)}\n`;
  const sendJson = (reply: FastifyReply) => reply.header('content-type', 'application/json; charset=utf-8').send(text);

  void app.register(fastifySwagger, { mode: 'static', specification: { document: document as never } });
  void app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    validatorUrl: false,
    uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, persistAuthorization: false },
    theme: { title: 'MemoTrace API reference' },
    uiHooks: {
      // The page and the UI's own JSON route answer with our pre-serialized document.
      preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
        const route = request.routeOptions.url;
        if (route === DOCS_PATH || route === `${DOCS_PATH}/`) {
          void reply.header('vary', 'accept');
          if (!prefersHtml(request.headers.accept)) return sendJson(reply);
        } else if (route === `${DOCS_PATH}/json`) {
          return sendJson(reply);
        }
        return undefined;
      },
    },
  });
  app.get(DOCS_JSON_PATHS[0], async (_request, reply) => sendJson(reply));
}
