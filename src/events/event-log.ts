import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { JobDefinition } from '../jobs/job-types.ts';
import type { Clock } from '../lib/clock.ts';
import type { EventName } from './event-catalogue.ts';
import { type NewEvent, type RecordedEvent, recordEventIf } from './record-event.ts';

/** The job that hands one recorded event to every subscriber (webhook fan-out, workflow triggers). */
export const PUBLISH_EVENT_JOB = 'events.publish';

/** Which recorded event a publish job hands out. */
export interface PublishEventPayload {
  eventId: string;
}

declare module '../jobs/job-types.ts' {
  interface JobPayloads {
    'events.publish': PublishEventPayload;
  }
}

/** Reacts to an event after its transaction committed. Runs at least once per event: it must be idempotent. */
export interface EventSubscriber {
  (event: RecordedEvent): Promise<void>;
  /** The event names it acts on; absent: every event. */
  readonly names?: ReadonlySet<EventName>;
  /**
   * For a subscriber that acts only when some stored state holds (the webhooks': the tenant has an
   * active webhook): that state as an SQL boolean on the event's tenant, read by the event's own
   * insert. An event no subscriber acts on gets no publish job (see EventLog.record).
   */
  readonly actsWhen?: (tenantId: string) => RawBuilder<unknown>;
}

/** A subscriber that declares what it acts on (the fields of EventSubscriber), so events it ignores cost no job. */
export function eventSubscriber(
  handle: (event: RecordedEvent) => Promise<void>,
  declared: { names?: readonly EventName[]; actsWhen?: (tenantId: string) => RawBuilder<unknown> },
): EventSubscriber {
  return Object.assign((event: RecordedEvent) => handle(event), {
    ...(declared.names ? { names: new Set(declared.names) } : {}),
    ...(declared.actsWhen ? { actsWhen: declared.actsWhen } : {}),
  });
}

function actsOnName(subscriber: EventSubscriber, name: EventName): boolean {
  return !subscriber.names || subscriber.names.has(name);
}

/**
 * The one way modules emit events. `record` writes the event row and, in the same transaction, a
 * job that publishes it to the subscribers: an event is announced exactly when its change
 * committed, and a crash between the two cannot lose or invent one (the job is retried).
 */
export class EventLog {
  readonly #jobs: JobQueue;
  readonly #clock: Clock;
  #subscribers: readonly EventSubscriber[] = [];

  constructor(deps: { jobs: JobQueue; clock: Clock }) {
    this.#jobs = deps.jobs;
    this.#clock = deps.clock;
  }

  /** Set once by the composition root, after every module declared its subscriber. */
  setSubscribers(subscribers: readonly EventSubscriber[]): void {
    this.#subscribers = subscribers;
  }

  /**
   * Records `name` with its declared data (`<module>.events.ts`); the compiler checks the pair.
   *
   * The publish job is written only when a subscriber may act on the event: one that takes its
   * name, and, when every such subscriber acts only under a stored condition (`actsWhen`), when
   * that condition holds as the event's insert reads it. Otherwise the job would read the event,
   * find nothing to do and complete: an insert, a claim, two reads and a completion per event
   * (a third of a workflow execution's round trips on PostgreSQL, for its two events). The read is
   * in the event's transaction, not after its commit: a webhook whose creation commits between the
   * two no longer gets this event (before, it got it if its commit came before the job's read).
   */
  async record<N extends EventName>(executor: Executor, event: NewEvent<N>): Promise<RecordedEvent<N>> {
    const at = event.at ?? this.#clock.now();
    const acting = this.#subscribers.filter((s) => actsOnName(s, event.name));
    const conditions = acting.every((s) => s.actsWhen) ? acting.map((s) => s.actsWhen!(event.tenantId)) : [];
    const { recorded, holds } = await recordEventIf<N>(
      executor,
      { ...event, at },
      conditions.length > 0 ? sql`(${sql.join(conditions, sql` or `)})` : null,
    );
    if (acting.length > 0 && holds) {
      await this.#jobs.enqueue(executor, PUBLISH_EVENT_JOB, { eventId: recorded.id }, { tenantId: recorded.tenantId });
    }
    return recorded;
  }

  /** Removes a tenant's recorded events (the sandbox reset), in the caller's transaction. */
  async forgetTenant(executor: Executor, tenantId: string): Promise<void> {
    await executor.deleteFrom('events').where('tenant_id', '=', tenantId).execute();
  }

  /** The worker side: loads the event and runs every subscriber (a failing one retries the job; subscribers are idempotent). */
  publishJob(database: Database): JobDefinition<PublishEventPayload> {
    return {
      kind: PUBLISH_EVENT_JOB,
      maxAttempts: 10,
      backoff: { baseMs: 1_000, maxMs: 600_000 },
      handler: async (job) => {
        const row = await database.db
          .selectFrom('events')
          .selectAll()
          .where('id', '=', job.payload.eventId)
          .executeTakeFirst();
        if (!row) return; // removed with its tenant's sandbox data
        // The row was written by `record`, from a declared name and its data.
        const event = {
          id: row.id,
          tenantId: row.tenant_id,
          name: row.name,
          data: JSON.parse(row.data),
          createdAt: Number(row.created_at),
        } as RecordedEvent;
        for (const subscriber of this.#subscribers) if (actsOnName(subscriber, event.name)) await subscriber(event);
      },
    };
  }
}
