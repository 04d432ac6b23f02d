import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { documentCount, localBlobFiles, multipart, tinyPdf } from './helpers.ts';

/** A body encoded exactly as fetch (and browsers) encode FormData: a Blob part is named "blob". */
async function encode(form: FormData): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const response = new Response(form);
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { 'content-type': response.headers.get('content-type')! },
  };
}

describeEachDialect('Uploads from Blobs: a part without a usable name takes the filename field', (ctx) => {
  let tenant: TestTenant;
  const send = async (body: { payload: Buffer; headers: Record<string, string> }) =>
    ctx().app.inject({
      method: 'POST',
      url: '/api/v1/documents/upload',
      payload: body.payload,
      headers: { ...tenant.headers, ...body.headers },
    });

  it('stores a Blob sent before its filename field under that name', async () => {
    tenant = await createTenant(ctx());
    const form = new FormData();
    form.append('file', new Blob(['minutes of the board meeting\n'], { type: 'text/plain' }));
    form.append('filename', 'Board minutes.txt');
    const encoded = await encode(form);
    assert.match(encoded.payload.toString(), /filename="blob"/, 'the part is named "blob", as browsers name it');
    const res = await send(encoded);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().filename, 'Board minutes.txt');
    const id = res.json().id;
    const doc = (await ctx().app.inject({ url: `/api/v1/documents/${id}`, headers: tenant.headers })).json();
    assert.equal(doc.file_type, 'text/plain');
    assert.equal(doc.original_filename, 'Board minutes.txt');
    const download = await ctx().app.inject({ url: `/api/v1/documents/${id}/download`, headers: tenant.headers });
    assert.equal(download.body, 'minutes of the board meeting\n');
  });

  it('takes the filename field sent before the Blob, and a part with an empty name, too', async () => {
    const before = new FormData();
    before.append('filename', 'agenda.pdf');
    before.append('file', new Blob([new Uint8Array(tinyPdf('Agenda'))], { type: 'application/pdf' }));
    const res = await send(await encode(before));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().filename, 'agenda.pdf');

    const empty = await send(
      multipart([
        { name: 'file', filename: '', content: Buffer.from('no name at all\n') },
        { name: 'filename', value: 'unnamed.md' },
      ]),
    );
    assert.equal(empty.statusCode, 201, empty.body);
    assert.equal(empty.json().filename, 'unnamed.md');
  });

  it('refuses what the name does not fit, and keeps nothing of it', async () => {
    const count = await documentCount(ctx(), tenant.tenantId);
    const blobs = localBlobFiles(ctx()).blobs.length;

    const noName = new FormData();
    noName.append('file', new Blob(['text\n']));
    const refused = await send(await encode(noName));
    assertError(refused, 415, 'invalid_file_type');
    assert.match(refused.json().message, /filename/);

    const pngAsText = new FormData();
    pngAsText.append(
      'file',
      new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])]),
    );
    pngAsText.append('filename', 'looks-like.txt');
    assertError(await send(await encode(pngAsText)), 415, 'invalid_file_type');

    const unknownType = new FormData();
    unknownType.append('file', new Blob(['MZ\x90\x00']));
    unknownType.append('filename', 'tool.exe');
    assertError(await send(await encode(unknownType)), 415, 'invalid_file_type');

    const emptyBlob = new FormData();
    emptyBlob.append('file', new Blob([]));
    emptyBlob.append('filename', 'empty.txt');
    assertError(await send(await encode(emptyBlob)), 400, 'validation_error');

    const noPartName = await send(multipart([{ name: 'file', filename: '', content: Buffer.from('x') }]));
    assertError(noPartName, 400, 'validation_error');

    // A part that names its own type keeps deciding: the field may rename it only within that type.
    const named = await send(
      multipart([
        { name: 'file', filename: 'report.pdf', content: tinyPdf('Report') },
        { name: 'filename', value: 'report.txt' },
      ]),
    );
    assertError(named, 415, 'invalid_file_type');

    assert.equal(await documentCount(ctx(), tenant.tenantId), count);
    assert.equal(localBlobFiles(ctx()).blobs.length, blobs, 'no bytes left behind');
  });
});
