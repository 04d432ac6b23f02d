import { buildConnector } from 'undici';
import {
  addressCheck,
  blocked,
  type GuardOptions,
  refusalForHost,
  socketLookup,
  trustedCa,
} from './guarded-connect.ts';

// Apart from guarded-connect.ts so that undici loads only with the first outbound call.

/** An undici connector applying the guard: literal hosts before dialling, names at resolution. */
export function guardedConnector(options: GuardOptions): buildConnector.connector {
  const lookup = socketLookup(options);
  const ca = trustedCa(options.extraCa);
  const isBlocked = addressCheck(options);
  const base = buildConnector({ ...(lookup ? { lookup } : {}), ...(ca ? { ca } : {}) });
  return (target, callback) => {
    const refusal = refusalForHost(target.hostname, options);
    if (refusal) {
      queueMicrotask(() => callback(refusal, null));
      return;
    }
    base(target, (err, socket) => {
      if (err) return callback(err, null);
      // Belt and braces: whatever path produced the socket, the peer must be allowed.
      const peer = socket.remoteAddress;
      if (isBlocked && (peer === undefined || isBlocked(peer))) {
        socket.destroy();
        return callback(blocked(peer ?? 'an unknown peer'), null);
      }
      callback(null, socket);
    });
  };
}
