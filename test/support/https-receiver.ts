import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

// A real HTTPS server on 127.0.0.1 for outbound tests (webhook deliveries, http_request nodes):
// a throwaway certificate made with the openssl binary, every request recorded with its raw body,
// and per-path behaviour (status, delay, hang, redirect, large or endless bodies).

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the receiver does for a path. Unconfigured paths answer 200 `ok`. */
export interface RouteBehaviour {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Answer with this many bytes of `a` instead of `body`; Infinity streams until the client leaves. */
  bodyBytes?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the connection stays open until the client gives up, close(), or the path is routed anew). */
  hang?: boolean;
  /** Send the status, headers and a first piece of body, then nothing more. */
  stall?: boolean;
  /** Answer 302 (or `status`) with this Location. */
  redirectTo?: string;
}

export interface HttpsReceiver {
  /** `https://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The PEM certificate, to trust through `extraCa` or NODE_EXTRA_CA_CERTS. */
  caPem: string;
  /** Its private key, for another local server that should present the same certificate. */
  keyPem: string;
  /** The same certificate as a file (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** Every completed request, oldest first. */
  requests: ReceivedRequest[];
  /** TCP connections accepted so far (to prove a refused call never connected). */
  readonly connections: number;
  /** Sets a path's behaviour; requests still hanging on it get the new one at once. */
  route(path: string, behaviour: RouteBehaviour): void;
  close(): Promise<void>;
}

/** Null when the openssl binary is present, else the reason to skip. */
export function httpsReceiverUnavailable(): string | null {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'openssl binary not found: cannot make a certificate for the local HTTPS receiver';
  }
}

/** Starts the receiver; its certificate names 127.0.0.1, ::1, localhost and `hostnames`. */
export async function startHttpsReceiver(options: { hostnames?: string[] } = {}): Promise<HttpsReceiver> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'https-receiver-'));
  const { cert, key, certFile } = makeCertificate(dir, ['localhost', ...(options.hostnames ?? [])]);
  const routes = new Map<string, RouteBehaviour>();
  const requests: ReceivedRequest[] = [];
  /** Requests a `hang` route left unanswered, by path. */
  const hanging = new Map<string, { req: IncomingMessage; res: ServerResponse }[]>();
  let connections = 0;

  const server = https.createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://receiver');
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      const behaviour = routes.get(url.pathname) ?? {};
      if (behaviour.hang) {
        hanging.set(url.pathname, [...(hanging.get(url.pathname) ?? []), { req, res }]);
        return;
      }
      if (behaviour.delayMs) setTimeout(() => answer(req, res, behaviour), behaviour.delayMs).unref();
      else answer(req, res, behaviour);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caPem: cert,
    keyPem: key,
    caFile: certFile,
    requests,
    get connections() {
      return connections;
    },
    route: (routePath, behaviour) => {
      routes.set(routePath, behaviour);
      if (behaviour.hang) return;
      // A test done with a hanging endpoint lets its calls end now rather than at the client's
      // timeout (jobs still waiting on them would hold up a later jobsSettled).
      for (const { req, res } of hanging.get(routePath) ?? []) answer(req, res, behaviour);
      hanging.delete(routePath);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}

function answer(req: IncomingMessage, res: ServerResponse, behaviour: RouteBehaviour): void {
  if (res.destroyed) return;
  if (behaviour.redirectTo) {
    res.writeHead(behaviour.status ?? 302, { location: behaviour.redirectTo, ...behaviour.headers }).end();
    return;
  }
  const headers = { 'content-type': 'text/plain', ...behaviour.headers };
  if (behaviour.stall) {
    res.writeHead(behaviour.status ?? 200, headers).write('partial');
    return;
  }
  if (behaviour.bodyBytes === undefined) {
    res.writeHead(behaviour.status ?? 200, headers).end(behaviour.body ?? 'ok');
    return;
  }
  const total = behaviour.bodyBytes;
  res.writeHead(
    behaviour.status ?? 200,
    Number.isFinite(total) ? { ...headers, 'content-length': String(total) } : headers,
  );
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      const size = Math.min(chunk.length, total - sent);
      sent += size;
      if (!res.write(size === chunk.length ? chunk : chunk.subarray(0, size))) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  req.socket.on('close', () => res.destroy());
  pump();
}

/** A one-day self-signed P-256 certificate (CA:TRUE, so it can be its own trust anchor), also for the test SMTP server. */
export function makeCertificate(dir: string, names: string[]) {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  const san = ['IP:127.0.0.1', 'IP:::1', ...names.map((name) => `DNS:${name}`)].join(',');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=https-receiver',
      '-addext',
      `subjectAltName=${san}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
    { stdio: 'ignore' },
  );
  return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8'), certFile };
}
