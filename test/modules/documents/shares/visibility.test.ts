import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import * as visibilityMigration from '../../../../src/db/migrations/20261123_1600_document_visibility.ts';
import { describeEachDialect, type TestApp } from '../../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../../support/fixtures.ts';
import { uploadOk } from '../helpers.ts';

/*
 * The upkeep of `document_visibility` (migration 20261123_1600), driven through HTTP: every change
 * of shares, memberships, documents and users is followed by what members and viewers list, and by
 * a comparison of the whole table with what it should hold, computed here in JavaScript from the
 * base tables (owners, shares, memberships), independently of the triggers' SQL.
 */

type Headers = Record<string, string>;
type Caller = { headers: Headers };

interface VisibilityRow {
  tenant_id: string;
  user_id: string;
  document_id: string;
  owned: number;
  shares: number;
  folder_id: string | null;
  name_key: string;
  file_size: number;
  created_at: number;
  updated_at: number;
}

const key = (r: Pick<VisibilityRow, 'tenant_id' | 'user_id' | 'document_id'>) =>
  `${r.tenant_id}|${r.user_id}|${r.document_id}`;

/** What document_visibility must hold, from the base tables. */
async function expectedRows(t: TestApp): Promise<Map<string, VisibilityRow>> {
  const db = t.container.database.db;
  const docs = new Map((await db.selectFrom('documents').selectAll().execute()).map((d) => [d.id, d]));
  const users = new Set((await db.selectFrom('users').select('id').execute()).map((u) => u.id));
  const shares = await db.selectFrom('document_shares').selectAll().execute();
  const members = await db.selectFrom('workspace_members').selectAll().execute();
  const out = new Map<string, VisibilityRow>();
  const reach = (tenantId: string, userId: string, documentId: string, owned: boolean) => {
    const d = docs.get(documentId)!;
    if (!users.has(userId) || d.tenant_id !== tenantId) return;
    const k = key({ tenant_id: tenantId, user_id: userId, document_id: documentId });
    const row = out.get(k) ?? {
      tenant_id: tenantId,
      user_id: userId,
      document_id: documentId,
      owned: 0,
      shares: 0,
      folder_id: d.folder_id,
      name_key: d.filename.toLowerCase(),
      file_size: Number(d.file_size),
      created_at: Number(d.created_at),
      updated_at: Number(d.updated_at),
    };
    if (owned) row.owned = 1;
    else row.shares += 1;
    out.set(k, row);
  };
  for (const d of docs.values()) if (d.owner_id) reach(d.tenant_id, d.owner_id, d.id, true);
  for (const s of shares) {
    if (s.user_id) reach(s.tenant_id, s.user_id, s.document_id, false);
    for (const m of members)
      if (s.workspace_id && m.workspace_id === s.workspace_id && m.tenant_id === s.tenant_id)
        reach(s.tenant_id, m.user_id, s.document_id, false);
  }
  return out;
}

async function actualRows(t: TestApp): Promise<Map<string, VisibilityRow>> {
  const rows = await t.container.database.db.selectFrom('document_visibility').selectAll().execute();
  return new Map(
    rows.map((r) => [
      key(r),
      {
        ...r,
        owned: Number(r.owned),
        shares: Number(r.shares),
        file_size: Number(r.file_size),
        created_at: Number(r.created_at),
        updated_at: Number(r.updated_at),
      },
    ]),
  );
}

/** The table, and the per-tenant counts kept beside it, equal what the base tables say. */
async function assertTableConsistent(t: TestApp): Promise<void> {
  const db = t.container.database.db;
  const [expected, actual] = await Promise.all([expectedRows(t), actualRows(t)]);
  const sorted = (m: Map<string, VisibilityRow>) =>
    [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, r]) => r);
  assert.deepEqual(sorted(actual), sorted(expected));

  const perTenant = new Map<string, { documents: number; bytes: number }>();
  for (const d of await db.selectFrom('documents').select(['tenant_id', 'file_size']).execute()) {
    const c = perTenant.get(d.tenant_id) ?? { documents: 0, bytes: 0 };
    c.documents += 1;
    c.bytes += Number(d.file_size);
    perTenant.set(d.tenant_id, c);
  }
  const keptPerTenant = new Map(
    (await db.selectFrom('tenant_document_counts').selectAll().execute())
      .filter((r) => Number(r.documents) !== 0)
      .map((r) => [r.tenant_id, { documents: Number(r.documents), bytes: Number(r.bytes) }]),
  );
  assert.deepEqual(new Map([...keptPerTenant].sort()), new Map([...perTenant].sort()));
}

describeEachDialect('document visibility upkeep', (ctx) => {
  let tenant: TestTenant;
  let other: TestTenant;
  let m1: LoggedInUser;
  let m2: LoggedInUser;
  let viewer: LoggedInUser;
  let stranger: LoggedInUser;
  const docs: Record<string, string> = {};
  let workspace = '';
  let folder = '';

  const call = (u: Caller, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    ctx().app.inject({ method, url: `/api/v1${url}`, headers: u.headers, ...(payload ? { payload } : {}) });
  const list = async (u: Caller, query = '') => {
    const res = await call(u, 'GET', `/documents?limit=100${query}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { data: { id: string }[]; total: number };
    return { ids: body.data.map((d) => d.id), total: body.total };
  };
  const sees = async (u: Caller, expected: string[], query = '') => {
    const { ids, total } = await list(u, query);
    assert.deepEqual([...ids].sort(), [...expected].sort());
    assert.equal(total, expected.length);
  };
  const share = async (documentId: string, target: object, permission = 'view') => {
    const res = await call(tenant, 'POST', `/documents/${documentId}/share`, { ...target, permission });
    assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
    return res.json().share_id as string;
  };
  const unshare = async (documentId: string, shareId: string) => {
    const res = await call(tenant, 'DELETE', `/documents/${documentId}/shares/${shareId}`);
    assert.equal(res.statusCode, 200, res.body);
  };
  const addMember = async (ws: string, userId: string) => {
    const res = await call(tenant, 'POST', `/workspaces/${ws}/members`, { user_id: userId });
    assert.equal(res.statusCode, 201, res.body);
  };
  const removeMember = async (ws: string, userId: string) => {
    const res = await call(tenant, 'DELETE', `/workspaces/${ws}/members/${userId}`);
    assert.equal(res.statusCode, 200, res.body);
  };

  it('a member lists what they own and what is shared with them, in every sort, and nothing else', async () => {
    tenant = await createTenant(ctx(), { tier: 'enterprise' });
    m1 = await loginAs(ctx(), tenant, 'member');
    m2 = await loginAs(ctx(), tenant, 'member', { email: 'm2@example.com' });
    viewer = await loginAs(ctx(), tenant, 'viewer');
    const upload = (h: Headers, filename: string, size: number) =>
      uploadOk(ctx(), h, { filename, content: Buffer.from('x'.repeat(size)) });
    docs['a'] = await upload(tenant.headers, 'Charlie.txt', 30);
    docs['b'] = await upload(tenant.headers, 'alpha.txt', 10);
    docs['c'] = await upload(tenant.headers, 'bravo.txt', 50);
    docs['d'] = await upload(tenant.headers, 'delta.txt', 20);
    docs['own'] = await upload(m1.headers, 'echo.txt', 40);
    await sees(m1, [docs['own']!]);
    await sees(m2, []);
    await sees(viewer, []);

    await share(docs['a']!, { user_id: m1.userId });
    await share(docs['b']!, { user_id: m1.userId }, 'edit');
    await share(docs['c']!, { user_id: m1.userId });
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['c']!]);
    await sees(m2, []);
    // Every sort, both orders, and paging, agree with the administrator's order restricted to what m1 sees.
    const visible = new Set([docs['own'], docs['a'], docs['b'], docs['c']]);
    for (const sort of ['created_at', 'name', 'updated_at', 'size']) {
      for (const order of ['asc', 'desc']) {
        const all = (await list(tenant, `&sort=${sort}&order=${order}`)).ids.filter((id) => visible.has(id));
        assert.deepEqual((await list(m1, `&sort=${sort}&order=${order}`)).ids, all, `${sort} ${order}`);
        const page2 = await call(m1, 'GET', `/documents?limit=3&page=2&sort=${sort}&order=${order}`);
        assert.deepEqual(
          page2.json().data.map((d: { id: string }) => d.id),
          all.slice(3),
        );
        assert.equal(page2.json().total, 4);
      }
    }
    assert.deepEqual((await list(m1, '&sort=name&order=asc')).ids, [docs['b'], docs['c'], docs['a'], docs['own']]);
    await sees(m1, [docs['a']!, docs['c']!], '&search=r');
    // The tag filter on a member's list: only what they see and what carries the tag.
    for (const id of [docs['a']!, docs['d']!])
      assert.equal((await call(tenant, 'PUT', `/documents/${id}`, { tags: ['legal'] })).statusCode, 200);
    const legal = (await call(tenant, 'GET', '/tags')).json().data.find((t: { name: string }) => t.name === 'legal').id;
    await sees(m1, [docs['a']!], `&tag_id=${legal}`);
    await sees(m2, [], `&tag_id=${legal}`);
    await assertTableConsistent(ctx());
  });

  it('unsharing with a user removes the document from their list; sharing again brings it back', async () => {
    const shares = (await call(tenant, 'GET', `/documents/${docs['c']}/shares`)).json().shares as {
      share_id: string;
    }[];
    await unshare(docs['c']!, shares[0]!.share_id);
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!]);
    assertError(await call(m1, 'GET', `/documents/${docs['c']}`), 404, 'not_found');
    await share(docs['c']!, { user_id: m1.userId }, 'admin');
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['c']!]);
    // Changing a share's permission changes no visibility.
    await share(docs['c']!, { user_id: m1.userId }, 'view');
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['c']!]);
    await assertTableConsistent(ctx());
  });

  it('workspace shares follow membership: members added later see them, removed members stop', async () => {
    workspace = (await call(tenant, 'POST', '/workspaces', { name: 'Team' })).json().id;
    await share(docs['d']!, { workspace_id: workspace }, 'edit');
    await sees(m2, []);
    await addMember(workspace, m2.userId);
    await sees(m2, [docs['d']!]);
    assert.equal((await call(m2, 'PUT', `/documents/${docs['d']}`, { tags: ['team'] })).statusCode, 200);
    await addMember(workspace, m1.userId);
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['c']!, docs['d']!]);
    await removeMember(workspace, m1.userId);
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['c']!]);
    assertError(await call(m1, 'GET', `/documents/${docs['d']}`), 404, 'not_found');
    await sees(m2, [docs['d']!]);
    await assertTableConsistent(ctx());
  });

  it('a document reached twice (directly and through a workspace) stays until both are gone', async () => {
    const direct = await share(docs['a']!, { user_id: m2.userId });
    const viaWorkspace = await share(docs['a']!, { workspace_id: workspace });
    await sees(m2, [docs['a']!, docs['d']!]);
    await unshare(docs['a']!, direct);
    await sees(m2, [docs['a']!, docs['d']!]);
    await assertTableConsistent(ctx());
    await unshare(docs['a']!, viaWorkspace);
    await sees(m2, [docs['d']!]);
    // Their own upload shared with a workspace they are in: still one row, still listed once.
    await addMember(workspace, m1.userId);
    const ownViaWorkspace = await share(docs['own']!, { workspace_id: workspace });
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['c']!, docs['d']!]);
    await sees(m2, [docs['d']!, docs['own']!]);
    await unshare(docs['own']!, ownViaWorkspace);
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['c']!, docs['d']!]);
    await assertTableConsistent(ctx());
  });

  it('deleting a workspace takes its shares away from its members', async () => {
    const ws = (await call(tenant, 'POST', '/workspaces', { name: 'Short-lived' })).json().id;
    await addMember(ws, m2.userId);
    await share(docs['b']!, { workspace_id: ws });
    await sees(m2, [docs['b']!, docs['d']!]);
    assert.equal((await call(tenant, 'DELETE', `/workspaces/${ws}`)).statusCode, 200);
    await sees(m2, [docs['d']!]);
    await assertTableConsistent(ctx());
  });

  it("renames, moves and updates re-sort members' lists; folder filters and folder counts follow", async () => {
    folder = (await call(tenant, 'POST', '/folders', { name: 'Shared stuff' })).json().id;
    assert.equal(
      (await call(tenant, 'PUT', `/documents/${docs['c']}`, { filename: 'aardvark.txt', folder_id: folder }))
        .statusCode,
      200,
    );
    assert.deepEqual((await list(m1, '&sort=name&order=asc')).ids[0], docs['c']);
    // The latest update sorts first by updated_at.
    assert.deepEqual((await list(m1, '&sort=updated_at&order=desc')).ids[0], docs['c']);
    await sees(m1, [docs['c']!], `&folder_id=${folder}`);
    await sees(m2, [], `&folder_id=${folder}`);
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['d']!], '&folder_id=root');
    const counts = async (u: Caller) =>
      Object.fromEntries(
        (await call(u, 'GET', '/folders'))
          .json()
          .folders.map((f: { id: string; document_count: number }) => [f.id, f.document_count]),
      );
    assert.equal((await counts(m1))[folder], 1);
    assert.equal((await counts(m2))[folder], 0);
    assert.equal((await call(m1, 'GET', `/folders/${folder}`)).json().document_count, 1);
    // A member with edit moves a shared document back: the owner's and the member's views agree.
    assert.equal((await call(tenant, 'PUT', `/documents/${docs['b']}`, { folder_id: folder })).statusCode, 200);
    await sees(m1, [docs['b']!, docs['c']!], `&folder_id=${folder}`);
    await assertTableConsistent(ctx());
  });

  it('a share never gives a viewer more than view, and viewers never list what they own', async () => {
    await share(docs['a']!, { user_id: viewer.userId }, 'admin');
    await sees(viewer, [docs['a']!]);
    const v = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, body?: object) =>
      call(viewer, method, url, body);
    assert.equal((await v('GET', `/documents/${docs['a']}`)).statusCode, 200);
    assertError(await v('PUT', `/documents/${docs['a']}`, { filename: 'v.txt' }), 403, 'forbidden');
    assertError(
      await v('POST', `/documents/${docs['a']}/share`, { user_id: m2.userId, permission: 'view' }),
      403,
      'forbidden',
    );
    assertError(await v('GET', `/documents/${docs['a']}/shares`), 403, 'forbidden');
    assertError(await v('DELETE', `/documents/${docs['a']}`), 403, 'forbidden');

    // m1 owns `own` and is shared a, b (edit), c and d (through the workspace); as a viewer only the shares count.
    const demote = await call(tenant, 'PATCH', `/users/${m1.userId}`, { role: 'viewer' });
    assert.equal(demote.statusCode, 200, demote.body);
    const asViewer = await loginAs(ctx(), tenant, 'viewer', { email: m1.email });
    await sees(asViewer, [docs['a']!, docs['b']!, docs['c']!, docs['d']!]);
    assertError(await call(asViewer, 'GET', `/documents/${docs['own']}`), 404, 'not_found');
    assertError(await call(asViewer, 'PUT', `/documents/${docs['b']}`, { filename: 'b.txt' }), 403, 'forbidden');
    assert.equal(
      (await call(asViewer, 'GET', '/folders')).json().folders.find((f: { id: string }) => f.id === folder)
        .document_count,
      2,
    );
    assert.equal((await call(tenant, 'PATCH', `/users/${m1.userId}`, { role: 'member' })).statusCode, 200);
    m1 = await loginAs(ctx(), tenant, 'member', { email: m1.email });
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['c']!, docs['d']!]);
    await assertTableConsistent(ctx());
  });

  it('another tenant never appears, even with the same shapes of shares', async () => {
    other = await createTenant(ctx(), { tier: 'enterprise' });
    stranger = await loginAs(ctx(), other, 'member');
    const theirs = await uploadOk(ctx(), other.headers, { filename: 'alpha.txt', content: Buffer.from('theirs') });
    const theirOwn = await uploadOk(ctx(), stranger.headers, { filename: 'mine.txt', content: Buffer.from('mine') });
    const res = await ctx().app.inject({
      method: 'POST',
      url: `/api/v1/documents/${theirs}/share`,
      headers: other.headers,
      payload: { user_id: stranger.userId, permission: 'admin' },
    });
    assert.equal(res.statusCode, 201, res.body);
    // Sharing across tenants is refused, in both directions.
    assertError(
      await call(tenant, 'POST', `/documents/${docs['a']}/share`, { user_id: stranger.userId, permission: 'view' }),
      404,
      'not_found',
    );
    assertError(
      await call(other, 'POST', `/documents/${theirs}/share`, { user_id: m1.userId, permission: 'view' }),
      404,
      'not_found',
    );
    await sees(stranger, [theirs, theirOwn]);
    await sees(m1, [docs['own']!, docs['a']!, docs['b']!, docs['c']!, docs['d']!]);
    await sees(m1, [], '&search=mine');
    assertError(await call(m1, 'GET', `/documents/${theirs}`), 404, 'not_found');
    assertError(await call(stranger, 'GET', `/documents/${docs['a']}`), 404, 'not_found');
    // No row of one tenant names a user or a document of the other.
    const rows = await ctx().container.database.db.selectFrom('document_visibility').selectAll().execute();
    const strangerRows = rows.filter((r) => r.user_id === stranger.userId);
    assert.deepEqual(
      strangerRows.map((r) => r.tenant_id),
      [other.tenantId, other.tenantId],
    );
    assert.ok(
      rows
        .filter((r) => r.tenant_id === tenant.tenantId)
        .every((r) => r.document_id !== theirs && r.document_id !== theirOwn),
    );
    await assertTableConsistent(ctx());
  });

  it('an owner change (no API; as an import or a migration would write it) moves the owned row', async () => {
    const db = ctx().container.database.db;
    await db.updateTable('documents').set({ owner_id: m2.userId }).where('id', '=', docs['own']!).execute();
    await sees(m1, [docs['a']!, docs['b']!, docs['c']!, docs['d']!]);
    await sees(m2, [docs['own']!, docs['d']!]);
    assertError(await call(m1, 'GET', `/documents/${docs['own']}`), 404, 'not_found');
    // The new owner has full rights on it (listing shares needs admin); the old one none.
    assert.equal((await call(m2, 'GET', `/documents/${docs['own']}/shares`)).statusCode, 200);
    await assertTableConsistent(ctx());
  });

  it('deleting a document removes it from every list; deleting a user removes their rows', async () => {
    await call(tenant, 'DELETE', `/documents/${docs['a']}`);
    await sees(viewer, []);
    await sees(m1, [docs['b']!, docs['c']!, docs['d']!]);
    const db = ctx().container.database.db;
    assert.equal(
      (await db.selectFrom('document_visibility').select('user_id').where('document_id', '=', docs['a']!).execute())
        .length,
      0,
    );
    assert.equal((await call(tenant, 'DELETE', `/users/${m2.userId}`)).statusCode, 200);
    assert.equal(
      (await db.selectFrom('document_visibility').select('document_id').where('user_id', '=', m2.userId).execute())
        .length,
      0,
    );
    await assertTableConsistent(ctx());
  });

  it('concurrent shares, unshares and membership changes leave the table exact (PostgreSQL runs them in parallel)', async () => {
    const ws = (await call(tenant, 'POST', '/workspaces', { name: 'Busy' })).json().id;
    const users = [
      m1,
      viewer,
      await loginAs(ctx(), tenant, 'member', { email: 'm3@example.com' }),
      await loginAs(ctx(), tenant, 'member', { email: 'm4@example.com' }),
    ];
    const extra = [];
    for (let i = 0; i < 6; i++)
      extra.push(await uploadOk(ctx(), tenant.headers, { filename: `busy-${i}.txt`, content: Buffer.from(`b${i}`) }));
    const shareIds = await Promise.all([
      ...extra.map((d) => share(d, { workspace_id: ws })),
      ...users.map((u) => addMember(ws, u.userId).then(() => '')),
    ]);
    await assertTableConsistent(ctx());
    await sees(users[2]!, extra);
    await Promise.all([
      ...extra.slice(0, 3).map((d, i) => unshare(d, shareIds[i]!)),
      ...users.slice(0, 2).map((u) => removeMember(ws, u.userId)),
      ...extra.slice(3).map((d) => share(d, { user_id: users[3]!.userId })),
    ]);
    await assertTableConsistent(ctx());
    await sees(users[2]!, extra.slice(3));
    await sees(users[3]!, extra.slice(3));
  });

  it('the migration backfills the same rows the triggers keep', async () => {
    const db = ctx().container.database.db;
    const before = await actualRows(ctx());
    await visibilityMigration.down(db);
    await visibilityMigration.up(db);
    assert.deepEqual([...(await actualRows(ctx())).keys()].sort(), [...before.keys()].sort());
    await assertTableConsistent(ctx());
    // The triggers are back.
    await sql`update documents set filename = 'zz-top.txt' where id = ${docs['b']!}`.execute(db);
    assert.deepEqual((await list(m1, '&sort=name&order=desc')).ids[0], docs['b']);
  });
});
