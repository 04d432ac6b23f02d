import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A front for the test S3 server that checks the access key of each signed request, as S3 does
 * (the test server checks no signatures): an unknown key gets S3's 403 `InvalidAccessKeyId`.
 */
export async function startS3AuthFront(
  target: string,
  accessKeyId: string,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const credential = /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
    if (credential !== accessKeyId) {
      req.resume();
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>',
      );
      return;
    }
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
