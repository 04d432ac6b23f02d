import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Issue 10, item 4: who sees which document, kept as rows so a member's list is one index range.
 *
 * `document_visibility` holds one row per (user, document) the user reaches by ownership
 * (`documents.owner_id`) or by shares (to them, or to a workspace they belong to), with the
 * document's sort keys copied so every sort of GET /documents pages through an index:
 *
 *   owned   1 when the user is the document's owner_id (viewers do not get owned documents: they
 *           read only what is shared with them, so the list filters `shares > 0` for viewers)
 *   shares  how many shares reach the user: one per direct share, one per (workspace share,
 *           membership) pair. The row goes when owned = 0 and shares = 0.
 *
 * Permissions are not stored: `permissionOn` still reads the shares of the one document asked for.
 *
 * The administrators' unfiltered list has no visibility filter but a `total` over every document
 * of the tenant: `tenant_document_counts` (per tenant: documents and bytes, also the storage quota's
 * usage) is kept by triggers on `documents`, so that total is not a count of a million index
 * entries. Members' totals are counts over their index range (index-only); per-user counts were
 * tried and dropped: on PostgreSQL a transaction deleting many shared documents rewrote each
 * member's count row once per document, which is quadratic (every version of a row rewritten in
 * one transaction is kept until it ends).
 *
 * Kept by triggers on both dialects, so every write path (services, the sandbox reset, tenant
 * deletion, other modules) is covered in the writing transaction:
 *   documents         insert (owner row), delete, owner_id change, sort-key change
 *   document_shares   insert, delete, change of target
 *   workspace_members insert, delete, change
 *   users             delete
 *
 * A (share, membership) pair is counted once when the second of the two appears and uncounted once
 * when the first of the two goes (each trigger reads the other table as it then is). SQLite runs one
 * writer at a time. PostgreSQL's READ COMMITTED does not: a share to a workspace and a new member of
 * it committed concurrently would each miss the other, so both triggers take a transaction-level
 * advisory lock on the workspace first. Rows copied from `documents` are read `FOR SHARE`, so a
 * concurrent rename or deletion of the document is waited for (no stale sort key, no orphan row).
 */

/** Columns of document_visibility in insert order; the last five are copied from the document `d`. */
const COLUMNS =
  'tenant_id, user_id, document_id, owned, shares, folder_id, name_key, file_size, created_at, updated_at';
const FROM_DOCUMENT = 'd.folder_id, lower(d.filename), d.file_size, d.created_at, d.updated_at';
const ADD_SHARE = 'on conflict (tenant_id, document_id, user_id) do update set shares = document_visibility.shares + 1';

type Dialect = 'sqlite' | 'postgres';

/** `for share of d` on PostgreSQL (see above); SQLite has one writer and no row locks. */
const lockDocuments = (dialect: Dialect) => (dialect === 'postgres' ? ' for share of d' : '');

/**
 * PostgreSQL: lock the rows a statement will change in one order first. Adding goes in that order
 * too (the inserts' ORDER BY), so two transactions changing overlapping rows (a user in two
 * workspaces, a document shared with two) wait for each other instead of deadlocking.
 */
function lockRowsInOrder(dialect: Dialect, where: string, orderBy: string): string[] {
  return dialect === 'postgres'
    ? [`perform 1 from document_visibility where ${where} order by ${orderBy} for update`]
    : [];
}

/** Statements counting a new share in: the user's row, or every member's of the workspace. */
function shareAdded(row: 'new', dialect: Dialect): string[] {
  const select = (userExpr: string, from: string, where: string) =>
    `insert into document_visibility (${COLUMNS})
     select d.tenant_id, ${userExpr}, d.id, 0, 1, ${FROM_DOCUMENT} from ${from}
     where ${where} order by ${userExpr}${lockDocuments(dialect)}
     ${ADD_SHARE}`;
  return [
    select(
      `${row}.user_id`,
      'documents d',
      `d.tenant_id = ${row}.tenant_id and d.id = ${row}.document_id and ${row}.user_id is not null`,
    ),
    select(
      'm.user_id',
      'workspace_members m join documents d on d.tenant_id = m.tenant_id',
      `m.tenant_id = ${row}.tenant_id and m.workspace_id = ${row}.workspace_id and d.id = ${row}.document_id`,
    ),
  ];
}

function shareRemoved(row: 'old', dialect: Dialect): string[] {
  const reached = `tenant_id = ${row}.tenant_id and document_id = ${row}.document_id
       and (user_id = ${row}.user_id
         or user_id in (select m.user_id from workspace_members m where m.tenant_id = ${row}.tenant_id and m.workspace_id = ${row}.workspace_id))`;
  return [
    ...lockRowsInOrder(dialect, reached, 'user_id'),
    `update document_visibility set shares = shares - 1 where ${reached}`,
    `delete from document_visibility where tenant_id = ${row}.tenant_id and document_id = ${row}.document_id and owned = 0 and shares <= 0`,
  ];
}

function memberAdded(row: 'new', dialect: Dialect): string[] {
  return [
    `insert into document_visibility (${COLUMNS})
     select d.tenant_id, ${row}.user_id, d.id, 0, 1, ${FROM_DOCUMENT}
     from document_shares s join documents d on d.id = s.document_id
     where s.tenant_id = ${row}.tenant_id and s.workspace_id = ${row}.workspace_id and d.tenant_id = ${row}.tenant_id
     order by d.id${lockDocuments(dialect)}
     ${ADD_SHARE}`,
  ];
}

function memberRemoved(row: 'old', dialect: Dialect): string[] {
  const ofWorkspace = `document_id in (select s.document_id from document_shares s where s.tenant_id = ${row}.tenant_id and s.workspace_id = ${row}.workspace_id)`;
  return [
    ...lockRowsInOrder(
      dialect,
      `tenant_id = ${row}.tenant_id and user_id = ${row}.user_id and ${ofWorkspace}`,
      'document_id',
    ),
    `update document_visibility set shares = shares - 1 where tenant_id = ${row}.tenant_id and user_id = ${row}.user_id and ${ofWorkspace}`,
    `delete from document_visibility where tenant_id = ${row}.tenant_id and user_id = ${row}.user_id and owned = 0 and shares <= 0 and ${ofWorkspace}`,
  ];
}

/** The owner row of document `row` (a no-op when it has no owner). */
function ownerAdded(row: 'new'): string {
  return `insert into document_visibility (${COLUMNS})
    select ${row}.tenant_id, ${row}.owner_id, ${row}.id, 1, 0, ${row}.folder_id, lower(${row}.filename), ${row}.file_size, ${row}.created_at, ${row}.updated_at
    where ${row}.owner_id is not null
    on conflict (tenant_id, document_id, user_id) do update set owned = 1`;
}

function ownerRemoved(row: 'old'): string[] {
  return [
    `update document_visibility set owned = 0 where tenant_id = ${row}.tenant_id and document_id = ${row}.id and user_id = ${row}.owner_id`,
    `delete from document_visibility where tenant_id = ${row}.tenant_id and document_id = ${row}.id and user_id = ${row}.owner_id and owned = 0 and shares <= 0`,
  ];
}

const SORT_KEYS_CHANGED = (distinct: string) =>
  ['folder_id', 'filename', 'file_size', 'created_at', 'updated_at']
    .map((c) => `old.${c} ${distinct} new.${c}`)
    .join(' or ');

const COPY_SORT_KEYS = `update document_visibility
  set folder_id = new.folder_id, name_key = lower(new.filename), file_size = new.file_size, created_at = new.created_at, updated_at = new.updated_at
  where tenant_id = new.tenant_id and document_id = new.id`;

const DOCUMENT_GONE = 'delete from document_visibility where tenant_id = old.tenant_id and document_id = old.id';
const USER_GONE = 'delete from document_visibility where tenant_id = old.tenant_id and user_id = old.id';

/** Every row the triggers would have made, from the current shares, memberships and owners (users that still exist). */
const BACKFILL = `insert into document_visibility (${COLUMNS})
  select d.tenant_id, g.user_id, d.id, g.owned, g.shares, ${FROM_DOCUMENT}
  from (
    select x.tenant_id, x.user_id, x.document_id, max(x.owned) as owned, sum(x.shares) as shares from (
      select tenant_id, owner_id as user_id, id as document_id, 1 as owned, 0 as shares from documents where owner_id is not null
      union all
      select tenant_id, user_id, document_id, 0, 1 from document_shares where user_id is not null
      union all
      select s.tenant_id, m.user_id, s.document_id, 0, 1
      from document_shares s join workspace_members m on m.tenant_id = s.tenant_id and m.workspace_id = s.workspace_id
    ) x group by x.tenant_id, x.user_id, x.document_id
  ) g
  join documents d on d.id = g.document_id and d.tenant_id = g.tenant_id
  join users u on u.id = g.user_id and u.tenant_id = g.tenant_id`;

const BACKFILL_TENANT_COUNTS = `insert into tenant_document_counts (tenant_id, documents, bytes)
  select tenant_id, count(*), coalesce(sum(file_size), 0) from documents group by tenant_id`;

const LIST_INDEXES: [string, string][] = [
  ['created', 'created_at'],
  ['name', 'name_key'],
  ['updated', 'updated_at'],
  ['size', 'file_size'],
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('document_visibility')
    // No foreign keys: rows go with their document and user (triggers), and a key check per copied
    // row would double the cost of adding a member to a workspace with many shares.
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('owned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('shares', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('folder_id', 'text')
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('document_visibility_pk', ['tenant_id', 'document_id', 'user_id'])
    .execute();
  // Per sort of GET /documents, two indexes as on `documents`: a range per (tenant, user), and per
  // (tenant, user, folder), in sort order, ending in the document id (the tie-break). The folder
  // ones also serve members' per-folder counts.
  // The default sort's two also carry `shares`, so a viewer's count (rows with a share) reads the index only.
  for (const [suffix, column] of LIST_INDEXES) {
    const extra = suffix === 'created' ? ['shares'] : [];
    await db.schema
      .createIndex(`document_visibility_${suffix}_idx`)
      .on('document_visibility')
      .columns(['tenant_id', 'user_id', column, 'document_id', ...extra])
      .execute();
    await db.schema
      .createIndex(`document_visibility_folder_${suffix}_idx`)
      .on('document_visibility')
      .columns(['tenant_id', 'user_id', 'folder_id', column, 'document_id', ...extra])
      .execute();
  }
  await db.schema
    .createTable('tenant_document_counts')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('documents', 'bigint', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .execute();
  await sql.raw(BACKFILL).execute(db);
  await sql.raw(BACKFILL_TENANT_COUNTS).execute(db);

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await postgresTriggers(db);
    return;
  }
  await sqliteTriggers(db);
}

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const trigger = (name: string, on: string, statements: string[]) =>
    sql.raw(`create trigger ${name} ${on} begin ${statements.map((s) => `${s};`).join('\n')} end`).execute(db);
  await trigger('document_visibility_document_insert', 'after insert on documents when new.owner_id is not null', [
    ownerAdded('new'),
  ]);
  await trigger('document_visibility_document_delete', 'after delete on documents', [DOCUMENT_GONE]);
  await trigger(
    'document_visibility_document_owner',
    'after update of owner_id on documents when old.owner_id is not new.owner_id',
    [...ownerRemoved('old'), ownerAdded('new')],
  );
  await trigger(
    'document_visibility_document_keys',
    `after update of folder_id, filename, file_size, created_at, updated_at on documents when ${SORT_KEYS_CHANGED('is not')}`,
    [COPY_SORT_KEYS],
  );
  await trigger('document_visibility_share_insert', 'after insert on document_shares', shareAdded('new', 'sqlite'));
  await trigger('document_visibility_share_delete', 'after delete on document_shares', shareRemoved('old', 'sqlite'));
  await trigger(
    'document_visibility_share_update',
    'after update of tenant_id, document_id, user_id, workspace_id on document_shares',
    [...shareRemoved('old', 'sqlite'), ...shareAdded('new', 'sqlite')],
  );
  await trigger('document_visibility_member_insert', 'after insert on workspace_members', memberAdded('new', 'sqlite'));
  await trigger(
    'document_visibility_member_delete',
    'after delete on workspace_members',
    memberRemoved('old', 'sqlite'),
  );
  await trigger(
    'document_visibility_member_update',
    'after update of tenant_id, workspace_id, user_id on workspace_members',
    [...memberRemoved('old', 'sqlite'), ...memberAdded('new', 'sqlite')],
  );
  await trigger('document_visibility_user_delete', 'after delete on users', [USER_GONE]);

  await trigger('tenant_document_counts_insert', 'after insert on documents', [
    `insert into tenant_document_counts (tenant_id, documents, bytes) values (new.tenant_id, 1, new.file_size)
     on conflict (tenant_id) do update set documents = tenant_document_counts.documents + 1, bytes = tenant_document_counts.bytes + excluded.bytes`,
  ]);
  await trigger('tenant_document_counts_delete', 'after delete on documents', [
    'update tenant_document_counts set documents = documents - 1, bytes = bytes - old.file_size where tenant_id = old.tenant_id',
  ]);
  await trigger(
    'tenant_document_counts_size',
    'after update of file_size on documents when old.file_size <> new.file_size',
    ['update tenant_document_counts set bytes = bytes + new.file_size - old.file_size where tenant_id = new.tenant_id'],
  );
}

/** Per (tenant, document, user): how many shares of `rel` (a transition table of document_shares) reach the user, directly or through a workspace. */
const sharePairs = (rel: string) => `select t.tenant_id, t.document_id, t.user_id, count(*) as n from (
    select a.tenant_id, a.document_id, a.user_id from ${rel} a where a.user_id is not null
    union all
    select a.tenant_id, a.document_id, m.user_id from ${rel} a join workspace_members m on m.tenant_id = a.tenant_id and m.workspace_id = a.workspace_id
  ) t group by t.tenant_id, t.document_id, t.user_id`;

/*
 * PostgreSQL keeps most of it per statement, from transition tables: a statement that inserts or
 * deletes many documents or shares (a folder deleted with its documents, an import) changes each
 * visibility row once per statement, and the tenant's count once, instead of once per row.
 * Updates of documents (few rows each) and membership changes (one user; their rows in one
 * statement already) stay per row.
 *
 * Locks, so concurrent writers wait rather than miss each other or deadlock: an advisory lock per
 * workspace (share ↔ membership), the documents copied from `FOR SHARE`, and the visibility rows a
 * statement changes taken in one order, (document, user).
 */
async function postgresTriggers(db: Kysely<any>): Promise<void> {
  const body = (statements: string[]) => statements.map((s) => `${s};`).join('\n');
  const lockWorkspace = (row: 'new' | 'old') =>
    `if ${row}.workspace_id is not null then perform pg_advisory_xact_lock(hashtextextended('document_visibility:' || ${row}.workspace_id, 0)); end if`;
  const lockWorkspaces = (rel: string) =>
    `perform pg_advisory_xact_lock(hashtextextended('document_visibility:' || w.workspace_id, 0))
       from (select distinct workspace_id from ${rel} where workspace_id is not null order by workspace_id) w;`;
  const fn = (name: string, plpgsql: string) =>
    sql
      .raw(`create function ${name}() returns trigger language plpgsql as $$
      begin
        ${plpgsql}
        return null;
      end $$`)
      .execute(db);

  await fn(
    'document_visibility_documents_added',
    `insert into document_visibility (${COLUMNS})
       select a.tenant_id, a.owner_id, a.id, 1, 0, a.folder_id, lower(a.filename), a.file_size, a.created_at, a.updated_at
       from added a where a.owner_id is not null order by a.id
       on conflict (tenant_id, document_id, user_id) do update set owned = 1;
     insert into tenant_document_counts (tenant_id, documents, bytes)
       select tenant_id, count(*), coalesce(sum(file_size), 0) from added group by tenant_id order by tenant_id
       on conflict (tenant_id) do update
       set documents = tenant_document_counts.documents + excluded.documents, bytes = tenant_document_counts.bytes + excluded.bytes;`,
  );
  await fn(
    'document_visibility_documents_removed',
    `delete from document_visibility v using removed r where v.tenant_id = r.tenant_id and v.document_id = r.id;
     update tenant_document_counts c set documents = c.documents - r.documents, bytes = c.bytes - r.bytes
       from (select tenant_id, count(*) as documents, coalesce(sum(file_size), 0) as bytes from removed group by tenant_id) r
       where c.tenant_id = r.tenant_id;`,
  );
  await fn(
    'document_visibility_documents',
    `if old.owner_id is distinct from new.owner_id then
       ${body(ownerRemoved('old'))}
       ${ownerAdded('new')};
     end if;
     if ${SORT_KEYS_CHANGED('is distinct from')} then
       ${COPY_SORT_KEYS};
     end if;
     if old.file_size is distinct from new.file_size then
       update tenant_document_counts set bytes = bytes + new.file_size - old.file_size where tenant_id = new.tenant_id;
     end if;`,
  );
  await fn(
    'document_visibility_shares_added',
    `${lockWorkspaces('added')}
     perform 1 from documents d join (select distinct tenant_id, document_id from added) a on d.id = a.document_id and d.tenant_id = a.tenant_id
       order by d.id for share of d;
     insert into document_visibility (${COLUMNS})
       select d.tenant_id, p.user_id, d.id, 0, p.n, ${FROM_DOCUMENT}
       from (${sharePairs('added')}) p join documents d on d.id = p.document_id and d.tenant_id = p.tenant_id
       order by d.id, p.user_id
       on conflict (tenant_id, document_id, user_id) do update set shares = document_visibility.shares + excluded.shares;`,
  );
  await fn(
    'document_visibility_shares_removed',
    `${lockWorkspaces('removed')}
     perform 1 from document_visibility v join (${sharePairs('removed')}) p
       on v.tenant_id = p.tenant_id and v.document_id = p.document_id and v.user_id = p.user_id
       order by v.document_id, v.user_id for update of v;
     update document_visibility v set shares = v.shares - p.n from (${sharePairs('removed')}) p
       where v.tenant_id = p.tenant_id and v.document_id = p.document_id and v.user_id = p.user_id;
     delete from document_visibility v using (select distinct tenant_id, document_id from removed) r
       where v.tenant_id = r.tenant_id and v.document_id = r.document_id and v.owned = 0 and v.shares <= 0;`,
  );
  // A share changing target (no API does; kept exact anyway), per row.
  await fn(
    'document_visibility_shares',
    `${lockWorkspace('old')};
     ${body(shareRemoved('old', 'postgres'))}
     ${lockWorkspace('new')};
     ${body(shareAdded('new', 'postgres'))}`,
  );
  await fn(
    'document_visibility_members',
    `if tg_op in ('DELETE', 'UPDATE') then
       ${lockWorkspace('old')};
       ${body(memberRemoved('old', 'postgres'))}
     end if;
     if tg_op in ('INSERT', 'UPDATE') then
       ${lockWorkspace('new')};
       ${body(memberAdded('new', 'postgres'))}
     end if;`,
  );
  await fn('document_visibility_users', `${USER_GONE};`);

  const triggers = [
    `create trigger document_visibility_documents_insert after insert on documents referencing new table as added
       for each statement execute function document_visibility_documents_added()`,
    `create trigger document_visibility_documents_delete after delete on documents referencing old table as removed
       for each statement execute function document_visibility_documents_removed()`,
    `create trigger document_visibility_document_update after update of owner_id, folder_id, filename, file_size, created_at, updated_at on documents
       for each row execute function document_visibility_documents()`,
    `create trigger document_visibility_shares_insert after insert on document_shares referencing new table as added
       for each statement execute function document_visibility_shares_added()`,
    `create trigger document_visibility_shares_delete after delete on document_shares referencing old table as removed
       for each statement execute function document_visibility_shares_removed()`,
    `create trigger document_visibility_share_update after update of tenant_id, document_id, user_id, workspace_id on document_shares
       for each row when (old.document_id is distinct from new.document_id or old.user_id is distinct from new.user_id
         or old.workspace_id is distinct from new.workspace_id or old.tenant_id is distinct from new.tenant_id)
       execute function document_visibility_shares()`,
    'create trigger document_visibility_members after insert or delete on workspace_members for each row execute function document_visibility_members()',
    `create trigger document_visibility_member_update after update of tenant_id, workspace_id, user_id on workspace_members
       for each row when (old.workspace_id is distinct from new.workspace_id or old.user_id is distinct from new.user_id or old.tenant_id is distinct from new.tenant_id)
       execute function document_visibility_members()`,
    'create trigger document_visibility_users after delete on users for each row execute function document_visibility_users()',
  ];
  for (const t of triggers) await sql.raw(t).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const [trigger, table] of [
      ['document_visibility_documents_insert', 'documents'],
      ['document_visibility_documents_delete', 'documents'],
      ['document_visibility_document_update', 'documents'],
      ['document_visibility_shares_insert', 'document_shares'],
      ['document_visibility_shares_delete', 'document_shares'],
      ['document_visibility_share_update', 'document_shares'],
      ['document_visibility_members', 'workspace_members'],
      ['document_visibility_member_update', 'workspace_members'],
      ['document_visibility_users', 'users'],
    ]) {
      await sql.raw(`drop trigger if exists ${trigger} on ${table}`).execute(db);
    }
    for (const fn of [
      'documents_added',
      'documents_removed',
      'documents',
      'shares_added',
      'shares_removed',
      'shares',
      'members',
      'users',
    ]) {
      await sql.raw(`drop function if exists document_visibility_${fn}()`).execute(db);
    }
  } else {
    for (const name of [
      'document_insert',
      'document_delete',
      'document_owner',
      'document_keys',
      'share_insert',
      'share_delete',
      'share_update',
      'member_insert',
      'member_delete',
      'member_update',
      'user_delete',
    ]) {
      await sql.raw(`drop trigger if exists document_visibility_${name}`).execute(db);
    }
    for (const name of ['insert', 'delete', 'size'])
      await sql.raw(`drop trigger if exists tenant_document_counts_${name}`).execute(db);
  }
  for (const table of ['tenant_document_counts', 'document_visibility'])
    await db.schema.dropTable(table).ifExists().execute();
}
