import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { payloadTooLarge } from './http-error';

/** How much of a refused body is still read (and thrown away) so the client sees the answer. */
const DISCARD_LIMIT_BYTES = 128 * 1024 * 1024;
/** A client that stops sending for this long gets the answer anyway. */
const DISCARD_IDLE_MS = 1_000;

/**
 * A request refused before its body was read (over 8 MiB, an unsupported content type): the
 * client is still uploading, and answering then closing the socket (what Fastify does) makes
 * most HTTP clients (Node's fetch, for one) fail with EPIPE instead of reading the 413. So the
 * rest of the body is read and dropped first, within bounds. Resolves with the bytes dropped once
 * they are gone, or the bounds are hit (the connection is then closed without waiting further).
 */
export function discardUnreadBody(request: IncomingMessage): Promise<number> {
  if (request.complete || request.destroyed) return Promise.resolve(0);
  return new Promise((resolve) => {
    let seen = 0;
    let idle = setTimeout(finish, DISCARD_IDLE_MS);
    function onData(chunk: Buffer) {
      seen += chunk.length;
      clearTimeout(idle);
      if (seen > DISCARD_LIMIT_BYTES) return finish();
      idle = setTimeout(finish, DISCARD_IDLE_MS);
    }
    function finish() {
      clearTimeout(idle);
      request.off('data', onData).off('end', finish).off('close', finish);
      resolve(seen);
    }
    request.on('data', onData).once('end', finish).once('close', finish);
    request.resume();
  });
}

/**
 * `Expect: 100-continue` with a Content-Length over the limit: refuse with 413 before the client
 * sends the body (Node would otherwise answer 100 Continue and the body be refused after).
 */
export function refuseOversizedExpectContinue(server: Server, limitBytes: number): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (Number(request.headers['content-length']) > limitBytes) {
      const body = JSON.stringify(payloadTooLarge().body());
      response.writeHead(413, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
      response.end(body);
      return;
    }
    response.writeContinue();
    server.emit('request', request, response);
  });
}
