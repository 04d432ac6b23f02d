import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A lean HTTPS webhook receiver for the webhook benchmark, run as its own process (its own core):
 * answers 200 at once, except `/hang`, which never answers. For every request it keeps the path,
 * the arrival time and the event time from the body, so the parent can compute delivery latency.
 * Talks to the parent over IPC: sends `{ready, port, caFile}`, answers `{stats: path}` with counts
 * and latencies, `{reset: true}` forgets everything.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-receiver-'));
const keyFile = path.join(dir, 'key.pem');
const certFile = path.join(dir, 'cert.pem');
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
    '/CN=bench-receiver',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
  ],
  { stdio: 'ignore' },
);

interface PathStats {
  count: number;
  latenciesMs: number[];
  eventIds: Map<string, number>;
  lastArrival: number;
}
let stats = new Map<string, PathStats>();

const server = https.createServer(
  { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile), keepAliveTimeout: 30_000 },
  (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrived = performance.timeOrigin + performance.now();
      const url = req.url ?? '/';
      let s = stats.get(url);
      if (!s) {
        s = { count: 0, latenciesMs: [], eventIds: new Map(), lastArrival: 0 };
        stats.set(url, s);
      }
      s.count++;
      s.lastArrival = arrived;
      if (url === '/hang') return;
      const eventId = req.headers['x-service-event-id'];
      if (typeof eventId === 'string') {
        s.eventIds.set(eventId, (s.eventIds.get(eventId) ?? 0) + 1);
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp?: string };
          if (body.timestamp) s.latenciesMs.push(arrived - Date.parse(body.timestamp));
        } catch {
          // not a delivery (the direct hammering sends the same shape, so this is rare)
        }
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  },
);
server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: (server.address() as AddressInfo).port, caFile: certFile });
});

process.on('message', (message: { stats?: string; reset?: boolean; exit?: boolean }) => {
  if (message.reset) {
    stats = new Map();
    process.send?.({ reset: true });
  } else if (message.stats !== undefined) {
    const s = stats.get(message.stats);
    const duplicates = s ? [...s.eventIds.values()].filter((n) => n > 1).length : 0;
    process.send?.({
      path: message.stats,
      count: s?.count ?? 0,
      distinctEvents: s?.eventIds.size ?? 0,
      duplicates,
      lastArrival: s?.lastArrival ?? 0,
      latenciesMs: s?.latenciesMs ?? [],
    });
  } else if (message.exit) {
    server.closeAllConnections();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }
});
