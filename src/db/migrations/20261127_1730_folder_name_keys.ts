import { type Kysely, sql } from 'kysely';
import { MAX_NAME_LENGTH, nameKey, sanitiseName, truncateName } from '../../lib/names.ts';

// Issue 26 item 7: folder names follow the name rule of src/lib/names.ts (NFC; no control,
// text-direction or invisible characters; not `.` or `..`) and siblings are unique by
// `nameKey` (NFKC, case-folded) instead of by lower case. Existing rows are brought to the rule:
// each name is cleaned as an imported one would be, its key recomputed, and where two siblings
// now share a key (`Café` precomposed and decomposed) every one but the oldest gets " (2)",
// " (3)"... The unique index is dropped meanwhile, so no row collides with one not yet rewritten.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index folders_sibling_name_idx`.execute(db);
  const tenants = await db.selectFrom('folders').select('tenant_id').distinct().execute();
  const now = Date.now();
  for (const { tenant_id: tenantId } of tenants) {
    const rows = await db
      .selectFrom('folders')
      .select(['id', 'parent_id', 'name', 'name_key'])
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const taken = new Set<string>();
    for (const row of rows) {
      const clean = sanitiseName(row.name) || 'Untitled folder';
      const siblings = (key: string) => `${row.parent_id ?? ''}\n${key}`;
      let name = clean;
      for (let n = 2; taken.has(siblings(nameKey(name))); n++) {
        const suffix = ` (${n})`;
        name = truncateName(clean, MAX_NAME_LENGTH - suffix.length) + suffix;
      }
      const key = nameKey(name);
      taken.add(siblings(key));
      if (name === row.name && key === row.name_key) continue;
      await db
        .updateTable('folders')
        .set({ name, name_key: key, ...(name === row.name ? {} : { updated_at: now }) })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', row.id)
        .execute();
    }
  }
  await sql`create unique index folders_sibling_name_idx on folders (tenant_id, coalesce(parent_id, ''), name_key)`.execute(
    db,
  );
}

// Keys go back to lower case; cleaned names stay cleaned (the old rule accepts them).
export async function down(db: Kysely<any>): Promise<void> {
  await sql`update folders set name_key = lower(name)`.execute(db);
}
