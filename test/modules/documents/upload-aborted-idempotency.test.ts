import assert from 'node:assert/strict';
import net from 'node:net';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { documentCount, multipart } from './helpers.ts';

describeEachDialect('an upload whose client goes away, retried with the same Idempotency-Key', (ctx) => {
  it('frees the key when the aborted request ends: the retry is stored once, not refused as in progress', async () => {
    const tenant = await createTenant(ctx(), { tier: 'enterprise' });
    const address = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    const body = multipart([{ name: 'file', filename: 'note.txt', content: Buffer.from('a note '.repeat(40)) }]);
    const headers: Record<string, string> = { ...tenant.headers, ...body.headers, 'idempotency-key': 'went-away-1' };

    // Half of the body, then the socket closes as a killed client's would.
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        const head = [
          `POST /api/v1/documents/upload HTTP/1.1`,
          ...Object.entries({
            ...headers,
            host: `127.0.0.1:${port}`,
            'content-length': String(body.payload.length),
          }).map(([k, v]) => `${k}: ${v}`),
          '',
          '',
        ].join('\r\n');
        socket.write(head);
        socket.write(body.payload.subarray(0, Math.floor(body.payload.length / 2)), () => {
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
      });
      socket.on('error', reject);
    });

    const started = Date.now();
    let answer: Response;
    for (;;) {
      answer = await fetch(`${address}/api/v1/documents/upload`, {
        method: 'POST',
        headers,
        body: new Uint8Array(body.payload),
      });
      if (answer.status !== 409 || Date.now() - started > 10_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(answer.status, 201, `${answer.status} after ${Date.now() - started} ms: ${await answer.text()}`);
    assert.equal(await documentCount(ctx(), tenant.tenantId), 1);
  });
});
