import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { multipartSourceOf } from '../../../src/modules/documents/multipart-source.ts';

/**
 * A client that leaves while the upload awaits the database, before the body is parsed (the
 * idempotency claim is a round trip, slow on PostgreSQL): reading the parts must fail at once, not
 * wait for a body that never comes (which kept the request's Idempotency-Key in progress).
 */
describe('multipart source of a request whose client already left', () => {
  let app: FastifyInstance;
  let settled: Promise<string>;
  let settle: (outcome: string) => void;
  let entered: () => void;
  const handlerEntered = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let leave: () => void;
  const clientGone = new Promise<void>((resolve) => {
    leave = resolve;
  });

  before(async () => {
    settled = new Promise((resolve) => {
      settle = resolve;
    });
    app = Fastify();
    await app.register(multipart);
    app.post('/upload', async (request) => {
      entered();
      await clientGone;
      try {
        for await (const part of multipartSourceOf(request, 1).parts()) void part;
        settle('read to the end');
      } catch (error) {
        settle(`failed: ${(error as Error).message}`);
      }
      return {};
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());

  it('fails instead of waiting', async () => {
    const { port } = app.server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const boundary = 'b0undary';
    socket.write(
      [
        'POST /upload HTTP/1.1',
        'Host: x',
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        'Content-Length: 10000',
        '',
        `--${boundary}`,
        'Content-Disposition: form-data; name="file"; filename="a.txt"',
        '',
        'half a file',
      ].join('\r\n'),
    );
    await handlerEntered;
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    leave();
    const outcome = await Promise.race([
      settled,
      new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000)),
    ]);
    assert.match(outcome, /^failed: .*closed before its body/);
  });
});
