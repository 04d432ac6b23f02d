import fsp from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { makeCertificate } from './https-receiver.ts';

// A real SMTP server on 127.0.0.1 for the mail tests (the `smtp-server` package of the Nodemailer
// project): STARTTLS with a throwaway self-signed certificate, AUTH, recipients it refuses with a
// 550, every accepted message kept raw and parsed, and stop/start on the same port to play a relay
// that is down for a while.

/** One message the server accepted. */
export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  /** The message as sent (headers and body). */
  raw: string;
  parsed: ParsedMail;
  /** Whether the session was protected by TLS when the message came. */
  secure: boolean;
  /** Who authenticated, when someone did. */
  user: string | null;
}

export interface TestSmtpServer {
  port: number;
  /** The PEM certificate the server presents (STARTTLS), as a file for OUTBOUND_EXTRA_CA_FILE. */
  caFile: string;
  /** `smtp://user:pass@127.0.0.1:<port>` with the credentials the server accepts. */
  url: string;
  received: ReceivedMail[];
  /** Connections accepted so far. */
  readonly connections: number;
  /** Refuse RCPT TO for this address with `550 5.1.1 ... user unknown`. */
  refuse(address: string): void;
  /** Stop listening (the relay is down); open connections are dropped. */
  stop(): Promise<void>;
  /** Listen again on the same port. */
  start(): Promise<void>;
  /** Resolves with the first received mail to `to` (waits up to `timeoutMs`). */
  waitFor(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export const SMTP_USER = 'relay-user';
export const SMTP_PASS = 'relay p@ss/word';

/** Starts the server; STARTTLS is offered (and needed for AUTH) with a certificate for 127.0.0.1. */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'smtp-server-'));
  const { cert, key, certFile } = makeCertificate(dir, ['localhost']);
  const received: ReceivedMail[] = [];
  const refused = new Set<string>();
  let connections = 0;

  const options: SMTPServerOptions = {
    key,
    cert,
    logger: false,
    closeTimeout: 50,
    size: 10 * 1024 * 1024,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASS) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (!refused.has(address.address.toLowerCase())) return callback();
      return callback(
        Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected: user unknown`), {
          responseCode: 550,
        }),
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              raw,
              parsed,
              secure: session.secure,
              user: typeof session.user === 'string' ? session.user : null,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  };

  let server: SMTPServer | null = null;
  let port = 0;
  const start = async () => {
    const next = new SMTPServer(options);
    next.on('error', () => {});
    await new Promise<void>((resolve) => next.listen(port, '127.0.0.1', () => resolve()));
    port = (next.server.address() as AddressInfo).port;
    server = next;
  };
  const stop = async () => {
    const current = server;
    server = null;
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  await start();

  return {
    port,
    caFile: certFile,
    url: `smtp://${encodeURIComponent(SMTP_USER)}:${encodeURIComponent(SMTP_PASS)}@127.0.0.1:${port}`,
    received,
    get connections() {
      return connections;
    },
    refuse: (address) => void refused.add(address.toLowerCase()),
    stop,
    start,
    async waitFor(to, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find((m) => m.envelope.to.includes(to));
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(
            `no mail to ${to} within ${timeoutMs} ms (received: ${received.map((m) => m.envelope.to.join(',')).join('; ') || 'none'})`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      await stop();
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}
