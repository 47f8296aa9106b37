import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidBody } from './http-error';

type Done = (error: Error | null, body?: unknown) => void;

/**
 * Request bodies are read as bytes and refused unless they are valid UTF-8: decoded as
 * strings, a bad byte would silently become U+FFFD and be stored (SPEC §4: text fields are
 * valid Unicode). JSON keeps Fastify's parser (prototype-poisoning keys refused); JSONL and
 * plain text (imports) are handed on as strings.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done: Done) => {
    if (!isUtf8(body)) return done(notUtf8());
    const text = body.toString('utf8');
    parseJson(request, text, (error: Error | null, json?: unknown) => done(error !== null && isPlainJson(text) ? forbiddenKey() : error, json));
  });
  app.addContentTypeParser(['application/x-ndjson', 'application/jsonl', 'text/plain'], { parseAs: 'buffer' }, parseText);
}

/** In `scope` (an encapsulated plugin), every body is text, whatever its content type says. */
export function registerTextBodyParser(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, parseText);
}

function parseText(_request: FastifyRequest, body: Buffer, done: Done): void {
  if (isUtf8(body)) done(null, body.toString('utf8'));
  else done(notUtf8());
}

/** Valid JSON that Fastify's parser still refused: it names `__proto__` or `constructor.prototype`. */
function isPlainJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const notUtf8 = () => invalidBody('request body is not valid UTF-8');
const forbiddenKey = () => invalidBody('request body uses a forbidden key (__proto__ or constructor.prototype)');
