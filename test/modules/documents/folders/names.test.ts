import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { up as migrateFolderNameKeys } from '../../../../src/db/migrations/20261127_1730_folder_name_keys.ts';
import { nameKey, nameProblem, normaliseName, sanitiseName } from '../../../../src/lib/names.ts';
import { multipart, type Part, uploadOk } from '../helpers.ts';
import { describeEachDialect } from '../../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../../support/fixtures.ts';

const RLO = 'invoice\u202Egpj.exe';
const ZWSP = 'Sec\u200Bret';
const CAFE_NFC = 'Caf\u00E9';
const CAFE_NFD = 'Cafe\u0301';

/** Names no folder or document may be given in a JSON body, with what the answer must name. */
const BAD_NAMES: [string, RegExp][] = [
  [RLO, /U\+202E RIGHT-TO-LEFT OVERRIDE at character 8/],
  [ZWSP, /U\+200B ZERO WIDTH SPACE at character 4/],
  ['left\u200Emark', /U\+200E LEFT-TO-RIGHT MARK/],
  ['isolate\u2067x\u2069', /U\+2067 RIGHT-TO-LEFT ISOLATE/],
  ['arabic\u061Cmark', /U\+061C ARABIC LETTER MARK/],
  ['word\u2060joiner', /U\+2060 WORD JOINER/],
  ['soft\u00ADhyphen', /U\+00AD SOFT HYPHEN/],
  ['in\u200Dlatin', /U\+200D ZERO WIDTH JOINER/],
  ['bell\u0007', /U\+0007 \(control\)/],
  ['two\u2028lines', /U\+2028 LINE SEPARATOR/],
  ['hangul\u3164filler', /U\+3164/],
  ['tag\u{E0041}', /U\+E0041/],
  ['.', /must not be "\."/],
  ['..', /must not be "\.\."/],
  [' .. ', /must not be "\.\."/],
];

describe('the name rule (src/lib/names.ts)', () => {
  it('keeps the invisible characters writing needs: emoji sequences, joiners in joining scripts, flag tags', () => {
    for (const name of [
      '👨\u200D👩\u200D👧',
      '👍🏽\u200D🔥',
      'می\u200Cخواهم',
      'क्\u200Dष',
      '🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}',
      'Ünïcödé ✓',
    ]) {
      assert.equal(nameProblem(normaliseName(name)), null, name);
      assert.equal(sanitiseName(name), name.normalize('NFC'), name);
    }
  });

  it('cleans names that come with files: refused characters dropped, NFC, nothing usable is empty', () => {
    assert.equal(sanitiseName(RLO), 'invoicegpj.exe');
    assert.equal(sanitiseName(ZWSP), 'Secret');
    assert.equal(sanitiseName(CAFE_NFD), CAFE_NFC);
    assert.equal(sanitiseName('\u200B..\u200B'), '');
    assert.equal(sanitiseName('x\uD800y'), 'x\uFFFDy');
  });

  it('compares names by their NFKC, case-folded key', () => {
    assert.equal(nameKey(CAFE_NFC), nameKey(normaliseName(CAFE_NFD)));
    assert.equal(nameKey('STRASSE'), nameKey('straße'));
    assert.equal(nameKey('ﬁle'), nameKey('FILE'));
    assert.notEqual(nameKey('Cafe'), nameKey(CAFE_NFC));
  });
});

describeEachDialect('folder and document names (issue 26 item 7)', (ctx) => {
  let tenant: TestTenant;
  const req = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) =>
    ctx().app.inject({ method, url: `/api/v1${url}`, headers: tenant.headers, ...(payload ? { payload } : {}) });
  const folderCount = async () => (await req('GET', '/folders')).json().folders.length;

  it('refuses misleading folder names on create and rename with 400 naming the field, and changes nothing', async () => {
    tenant = await createTenant(ctx(), { tier: 'team' });
    const ok = await req('POST', '/folders', { name: 'Plain' });
    assert.equal(ok.statusCode, 201, ok.body);
    for (const [name, message] of BAD_NAMES) {
      const created = assertError(await req('POST', '/folders', { name }), 400, 'validation_error');
      assert.equal(created.details.errors[0].field, 'name', JSON.stringify(name));
      assert.match(created.message, message, JSON.stringify(name));
      const renamed = assertError(await req('PUT', `/folders/${ok.json().id}`, { name }), 400, 'validation_error');
      assert.equal(renamed.details.errors[0].field, 'name');
    }
    assert.equal(await folderCount(), 1);
    assert.equal((await req('GET', `/folders/${ok.json().id}`)).json().name, 'Plain');
  });

  it('stores names in NFC and refuses an NFD twin of a sibling (409), on create and on rename', async () => {
    tenant = await createTenant(ctx(), { tier: 'team' });
    const nfd = await req('POST', '/folders', { name: CAFE_NFD });
    assert.equal(nfd.statusCode, 201, nfd.body);
    assert.equal(nfd.json().name, CAFE_NFC);
    assertError(await req('POST', '/folders', { name: CAFE_NFC }), 409, 'conflict');
    assertError(await req('POST', '/folders', { name: 'CAFÉ' }), 409, 'conflict');
    const other = await req('POST', '/folders', { name: 'Cafe' });
    assert.equal(other.statusCode, 201, other.body);
    assertError(await req('PUT', `/folders/${other.json().id}`, { name: `  ${CAFE_NFD} ` }), 409, 'conflict');
    // Compatibility forms are one name too.
    assert.equal((await req('POST', '/folders', { name: 'ﬁles' })).statusCode, 201);
    assertError(await req('POST', '/folders', { name: 'FILES' }), 409, 'conflict');
    // Elsewhere in the tree the name is free.
    const sub = await req('POST', '/folders', { name: CAFE_NFC, parent_id: other.json().id });
    assert.equal(sub.statusCode, 201, sub.body);
  });

  it('refuses misleading document renames (400 on filename) and stores NFC', async () => {
    tenant = await createTenant(ctx(), { tier: 'team' });
    const id = await uploadOk(ctx(), tenant.headers, { filename: 'notes.txt' });
    for (const [name] of BAD_NAMES) {
      const body = assertError(
        await req('PUT', `/documents/${id}`, { filename: name.includes('.') ? name : `${name}.txt` }),
        400,
        'validation_error',
      );
      assert.equal(body.details.errors[0].field, 'filename');
    }
    assertError(await req('PUT', `/documents/${id}`, { filename: 'dir\\x.txt' }), 400, 'validation_error');
    const renamed = await req('PUT', `/documents/${id}`, { filename: `${CAFE_NFD}.txt` });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().filename, `${CAFE_NFC}.txt`);
  });

  it('cleans the names uploads bring (multipart file name and the filename field) instead of refusing the file', async () => {
    tenant = await createTenant(ctx(), { tier: 'team' });
    const read = async (id: string) => (await req('GET', `/documents/${id}`)).json();
    const rlo = await read(await uploadOk(ctx(), tenant.headers, { filename: 'invoice\u202Etxt.exe.txt' }));
    assert.equal(rlo.filename, 'invoicetxt.exe.txt');
    const zw = await read(
      await uploadOk(ctx(), tenant.headers, { filename: 'a.txt', fields: { filename: `${ZWSP}.txt` } }),
    );
    assert.equal(zw.filename, 'Secret.txt');
    const nfd = await read(await uploadOk(ctx(), tenant.headers, { filename: `${CAFE_NFD}.txt` }));
    assert.equal(nfd.filename, `${CAFE_NFC}.txt`);
    assert.equal(nfd.original_filename, `${CAFE_NFC}.txt`);
  });

  it('cleans the names of a batch upload, file by file', async () => {
    tenant = await createTenant(ctx(), { tier: 'team' });
    const file = (filename: string): Part => ({
      name: 'files[]',
      filename,
      content: Buffer.from(`content of ${filename}\n`),
    });
    const body = multipart([file('report\u202Efdp.txt'), file(`\u200B${CAFE_NFD}.txt`), file('\u200E..\u200F')]);
    const res = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/documents/upload-batch',
      payload: body.payload,
      headers: { ...tenant.headers, ...body.headers },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(
      res.json().documents.map((d: { filename: string }) => d.filename),
      ['reportfdp.txt', `${CAFE_NFC}.txt`],
    );
    // A name with nothing usable left is refused as a file without a name.
    assert.deepEqual(
      res.json().rejected.map((r: { code: string }) => r.code),
      ['VALIDATION_ERROR'],
    );
  });

  it('brings existing folders to the rule when migrating: cleaned names, NFKC keys, twins renamed', async () => {
    tenant = await createTenant(ctx(), { tier: 'team' });
    const db = ctx().container.database.db;
    const row = (id: string, name: string, key: string, at: number) => ({
      id,
      tenant_id: tenant.tenantId,
      parent_id: null,
      name,
      name_key: key,
      color: '#6B7280',
      icon: 'folder',
      created_by: null,
      document_count: 0,
      created_at: at,
      updated_at: at,
    });
    // As the old rule stored them: lower-cased keys, so these were all "different" names.
    const suffix = tenant.tenantId.slice(-6);
    await db
      .insertInto('folders')
      .values([
        row(`m1-${suffix}`, CAFE_NFC, CAFE_NFC.toLowerCase(), 1),
        row(`m2-${suffix}`, CAFE_NFD, CAFE_NFD.toLowerCase(), 2),
        row(`m3-${suffix}`, RLO, RLO.toLowerCase(), 3),
        row(`m4-${suffix}`, ZWSP, ZWSP.toLowerCase(), 4),
        row(`m5-${suffix}`, 'Secret', 'secret', 5),
        row(`m6-${suffix}`, '\u200B', '\u200B', 6),
      ])
      .execute();
    await migrateFolderNameKeys(db);
    const rows = await db
      .selectFrom('folders')
      .select(['id', 'name', 'name_key'])
      .where('tenant_id', '=', tenant.tenantId)
      .orderBy('created_at')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.name),
      [CAFE_NFC, `${CAFE_NFC} (2)`, 'invoicegpj.exe', 'Secret', 'Secret (2)', 'Untitled folder'],
    );
    assert.ok(rows.every((r) => r.name_key === nameKey(r.name)));
    // The unique index is back, on the new keys.
    assertError(await req('POST', '/folders', { name: CAFE_NFD }), 409, 'conflict');
    await assert.rejects(
      db
        .insertInto('folders')
        .values(row(`m7-${suffix}`, 'café', nameKey('café'), 7))
        .execute(),
    );
  });
});
