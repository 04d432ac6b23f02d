import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * PostgreSQL: a priced search's credit charge in one statement (docs/search.md, "Where a request's
 * time goes"). `charge_ai_credits` locks the tenant row, sums the month's charges and inserts the
 * charge, as `CreditsService.charge` does in a transaction of six statements; PL/pgSQL reads each
 * statement with a fresh snapshot, so the sum after the lock sees every charge committed before it
 * (concurrent charges cannot overspend). It charges only while the month's total stays below
 * `p_below` (where no usage threshold is crossed) and otherwise answers false without writing: the
 * caller then charges in its transaction (402, notifications). SQLite has no functions and needs none
 * (its statements are calls within the process).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function charge_ai_credits(
      p_id text, p_tenant_id text, p_period text, p_millicredits bigint, p_reason text,
      p_reference text, p_created_at bigint, p_below bigint
    ) returns boolean language plpgsql as $$
    declare
      used bigint;
    begin
      perform 1 from tenants where id = p_tenant_id for update;
      select coalesce(sum(millicredits), 0) into used
        from ai_credit_charges where tenant_id = p_tenant_id and period = p_period;
      if p_below is not null and used + p_millicredits >= p_below then
        return false;
      end if;
      insert into ai_credit_charges (id, tenant_id, period, millicredits, reason, reference, created_at)
        values (p_id, p_tenant_id, p_period, p_millicredits, p_reason, p_reference, p_created_at);
      return true;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function if exists charge_ai_credits(text, text, text, bigint, text, text, bigint, bigint)`.execute(
    db,
  );
}
