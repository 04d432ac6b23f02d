import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestApp } from '../../support/app.ts';

/** A multipart part: a field, or a file with bytes. */
export type Part =
  | { name: string; value: string; contentType?: string }
  | { name: string; filename: string; content: Buffer; contentType?: string };

/** Builds a multipart/form-data body for app.inject. */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----test${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('filename' in part) {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
        ),
      );
      chunks.push(part.content);
    } else {
      const type = part.contentType ? `Content-Type: ${part.contentType}\r\n` : '';
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n${type}\r\n${part.value}`));
    }
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A small but valid one-page PDF showing `text`, with an optional document information dictionary. */
export function tinyPdf(text = 'Hello PDF', info?: { author?: string; title?: string }): Buffer {
  const stream = `BT /F1 24 Tf 40 100 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  if (info) {
    const entries = [info.author ? `/Author (${info.author})` : '', info.title ? `/Title (${info.title})` : ''].join(
      ' ',
    );
    objects.push(`<< ${entries} >>`);
  }
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  const infoRef = info ? ` /Info ${objects.length} 0 R` : '';
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${infoRef} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

export interface UploadOptions {
  filename?: string;
  content?: Buffer;
  fields?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  url?: string;
}

/** Uploads one file through the API. */
export async function upload(t: TestApp, headers: Record<string, string>, options: UploadOptions = {}) {
  const parts: Part[] = [];
  for (const [name, value] of Object.entries(options.fields ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) parts.push({ name, value: v });
  }
  parts.push({
    name: 'file',
    filename: options.filename ?? 'notes.txt',
    content: options.content ?? Buffer.from('hello world\n'),
  });
  const body = multipart(parts);
  return t.app.inject({
    method: 'POST',
    url: options.url ?? '/api/v1/documents/upload',
    payload: body.payload,
    headers: { ...headers, ...body.headers, ...options.headers },
  });
}

/** Uploads and returns the new document's id (asserting 201). */
export async function uploadOk(
  t: TestApp,
  headers: Record<string, string>,
  options: UploadOptions = {},
): Promise<string> {
  const res = await upload(t, headers, options);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** Every blob the local store holds (outside its temp folder), and the temp files. */
export function localBlobFiles(t: TestApp): { blobs: string[]; temp: string[] } {
  const root = path.join(t.store.dataDir, 'blobs');
  const blobs: string[] = [];
  const temp: string[] = [];
  const walk = (dir: string, rel: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), r);
      else if (r.startsWith('.tmp/')) temp.push(r);
      else blobs.push(r);
    }
  };
  walk(root, '');
  return { blobs, temp };
}

export async function documentCount(t: TestApp, tenantId: string): Promise<number> {
  const row = await t.container.database.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Waits until `check` holds (bounded). */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}
