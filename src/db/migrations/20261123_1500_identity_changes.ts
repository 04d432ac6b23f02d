import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Issue 10 item 3: API processes cache who a credential is (src/modules/identity/auth/credential-cache.ts),
 * so every change that can end or alter a credential must reach every process within a second.
 * Triggers announce each such change from inside its transaction, whichever code (or operator)
 * makes it, as one tag per row: `k:<api key id>`, `u:<user id>`, `s:<session id>`, `t:<tenant id>`.
 *
 * - PostgreSQL: `pg_notify('identity_changes', tag)`, delivered to every listener on commit only.
 * - SQLite: a row in `identity_changes`, read every 250 ms by each process (no cross-process
 *   notification exists); the newest 10,000 rows are kept.
 *
 * What counts as a change: API keys — secret, rotation fields, revocation; users — role, custom
 * roles, status; sessions — revocation, expiry, owner; tenants — name, subdomain, tier, status, CORS
 * origins; and deleting any of them. `last_used_at` writes (coalesced, once a minute) do not count.
 */
const WATCHED: { table: string; tag: string; columns: string[] }[] = [
  {
    table: 'api_keys',
    tag: 'k',
    columns: [
      'tenant_id',
      'prefix',
      'key_hash',
      'revoked_at',
      'previous_prefix',
      'previous_key_hash',
      'previous_expires_at',
    ],
  },
  { table: 'users', tag: 'u', columns: ['tenant_id', 'role', 'roles', 'status'] },
  { table: 'auth_sessions', tag: 's', columns: ['tenant_id', 'user_id', 'expires_at', 'revoked_at'] },
  { table: 'tenants', tag: 't', columns: ['name', 'subdomain', 'tier', 'status', 'cors_origins', 'sandbox_of'] },
];
const KEEP_ROWS = 10_000;

export async function up(db: Kysely<any>): Promise<void> {
  // Both dialects get the table (one schema); only SQLite writes to it.
  await db.schema
    .createTable('identity_changes')
    .addColumn('seq', 'integer', (c) =>
      db.getExecutor().adapter instanceof PostgresAdapter
        ? c.primaryKey().generatedAlwaysAsIdentity()
        : c.primaryKey().autoIncrement(),
    )
    .addColumn('tag', 'text', (c) => c.notNull())
    .execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create function identity_changes_notify() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          perform pg_notify('identity_changes', tg_argv[0] || ':' || old.id);
        else
          perform pg_notify('identity_changes', tg_argv[0] || ':' || new.id);
        end if;
        return null;
      end $$`.execute(db);
    for (const { table, tag, columns } of WATCHED) {
      const cols = columns.join(', ');
      const olds = columns.map((c) => `old.${c}`).join(', ');
      const news = columns.map((c) => `new.${c}`).join(', ');
      await sql
        .raw(
          `create trigger ${table}_identity_change after update of ${cols} on ${table} for each row
           when ((${olds}) is distinct from (${news})) execute function identity_changes_notify('${tag}')`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger ${table}_identity_delete after delete on ${table} for each row execute function identity_changes_notify('${tag}')`,
        )
        .execute(db);
    }
    return;
  }

  for (const { table, tag, columns } of WATCHED) {
    const changed = columns.map((c) => `old.${c} is not new.${c}`).join(' or ');
    await sql
      .raw(
        `create trigger ${table}_identity_change after update of ${columns.join(', ')} on ${table} when ${changed}
         begin insert into identity_changes (tag) values ('${tag}:' || new.id); end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${table}_identity_delete after delete on ${table} begin insert into identity_changes (tag) values ('${tag}:' || old.id); end`,
      )
      .execute(db);
  }
  await sql
    .raw(
      `create trigger identity_changes_prune after insert on identity_changes begin delete from identity_changes where seq <= new.seq - ${KEEP_ROWS}; end`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const { table } of WATCHED) {
    for (const suffix of ['change', 'delete']) {
      const name = `${table}_identity_${suffix}`;
      await sql
        .raw(
          db.getExecutor().adapter instanceof PostgresAdapter
            ? `drop trigger if exists ${name} on ${table}`
            : `drop trigger if exists ${name}`,
        )
        .execute(db);
    }
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter)
    await sql`drop function if exists identity_changes_notify()`.execute(db);
  else await sql`drop trigger if exists identity_changes_prune`.execute(db);
  await db.schema.dropTable('identity_changes').execute();
}
