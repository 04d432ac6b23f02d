import os from 'node:os';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ServiceInstancesTable } from './transfer.tables.ts';

/** How often a running process refreshes its row. */
export const HEARTBEAT_MS = 10_000;
/** A row older than this belongs to a process that stopped without saying so (kill -9, power loss). */
export const LEASE_MS = 3 * HEARTBEAT_MS;

export interface LiveInstance {
  host: string;
  pid: number;
  role: string;
  heartbeatAgoMs: number;
}

/**
 * Keeps this process's row in `service_instances` while it runs: inserted at once (retried each
 * second until the migrations that create the table have run), refreshed every HEARTBEAT_MS,
 * deleted on a clean stop. Timers are unref'd: the lease never keeps a process alive.
 */
export function keepInstanceLease(
  db: Kysely<DB>,
  clock: Clock,
  logger: Logger,
  role: string,
): { stop(): Promise<void> } {
  const id = newId(clock.now());
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let beating: Promise<void> = Promise.resolve();

  const beat = async (): Promise<boolean> => {
    const now = clock.now();
    try {
      await db
        .insertInto('service_instances')
        .values({ id, host: os.hostname(), pid: process.pid, role, started_at: now, heartbeat_at: now })
        .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: now }))
        .execute();
      return true;
    } catch (error) {
      // Before migrations (the table is not there yet) or while the database is unreachable.
      logger.debug({ err: error }, 'instance heartbeat failed');
      return false;
    }
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      beating = beat().then((ok) => schedule(ok ? HEARTBEAT_MS : 1_000));
    }, ms);
    timer.unref();
  };
  schedule(0);

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await beating;
      await db
        .deleteFrom('service_instances')
        .where('id', '=', id)
        .execute()
        .catch(() => {});
    },
  };
}

/** The processes whose lease is fresh: a service is using this database right now. */
export async function liveInstances(db: Kysely<DB>, now: number): Promise<LiveInstance[]> {
  const rows = await db
    .selectFrom('service_instances')
    .selectAll()
    .where('heartbeat_at', '>', now - LEASE_MS)
    .execute();
  return rows.map((r: ServiceInstancesTable) => ({
    host: r.host,
    pid: r.pid,
    role: r.role,
    heartbeatAgoMs: Math.max(0, now - r.heartbeat_at),
  }));
}
