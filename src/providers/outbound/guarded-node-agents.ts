import type http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { nodeHttp } from '../../lib/node-http.ts';
import { type GuardOptions, refusalForHost, socketLookup, trustedCa } from './guarded-connect.ts';

// node:http agents with the same guard as the undici dispatcher, for SDKs built on node:http
// rather than fetch: the AWS SDK v3 (`new NodeHttpHandler({ httpAgent, httpsAgent })`).

type Callback = (err: Error | null, stream: Duplex) => void;

/** Pre-checks the target host, then lets the normal connection path resolve through the guard. */
function guardedCreateConnection(
  guard: GuardOptions,
  create: (options: http.ClientRequestArgs, callback?: Callback) => Duplex | null | undefined,
) {
  const lookup = socketLookup(guard);
  return (options: http.ClientRequestArgs, callback?: Callback): Duplex | null | undefined => {
    const host = String(options.host ?? options.hostname ?? 'localhost');
    const refusal = refusalForHost(host, guard);
    if (refusal) {
      // The agent waits for this callback when nothing is returned.
      process.nextTick(() => callback?.(refusal, undefined as unknown as Duplex));
      return undefined;
    }
    return create({ ...options, ...(lookup ? { lookup } : {}) }, callback);
  };
}

class GuardedHttpAgent extends nodeHttp.Agent {
  readonly #connect;
  constructor(guard: GuardOptions, options: http.AgentOptions) {
    super(options);
    this.#connect = guardedCreateConnection(guard, (o, cb) => super.createConnection(o, cb));
  }
  override createConnection(options: http.ClientRequestArgs, callback?: Callback) {
    return this.#connect(options, callback);
  }
}

class GuardedHttpsAgent extends https.Agent {
  readonly #connect;
  constructor(guard: GuardOptions, options: https.AgentOptions) {
    super(options);
    this.#connect = guardedCreateConnection(guard, (o, cb) => super.createConnection(o, cb));
  }
  override createConnection(options: http.ClientRequestArgs, callback?: Callback) {
    return this.#connect(options, callback);
  }
}

/** Keep-alive node:http and node:https agents refusing the same targets as the dispatcher. */
export function createGuardedNodeAgents(
  guard: GuardOptions,
  maxSockets: number,
): { http: http.Agent; https: https.Agent } {
  const ca = trustedCa(guard.extraCa);
  return {
    http: new GuardedHttpAgent(guard, { keepAlive: true, maxSockets }),
    https: new GuardedHttpsAgent(guard, { keepAlive: true, maxSockets, ...(ca ? { ca } : {}) }),
  };
}
