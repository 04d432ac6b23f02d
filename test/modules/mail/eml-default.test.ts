import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { simpleParser } from 'mailparser';
import { EmlFileTransport } from '../../../src/providers/mail/eml-file-transport.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { adminMailTo, passwordLink } from './helpers.ts';

// Without SMTP_URL every mail is written as an .eml file under DATA_DIR/mail/, its file link
// logged at info, and /health says mail is not configured.

describeEachDialect(
  'mail without SMTP_URL',
  (ctx) => {
    it('/health says mail is not configured and where it goes instead', async () => {
      const health = (await ctx().app.inject({ method: 'GET', url: '/health' })).json();
      assert.equal(health.capabilities.mail.configured, false);
      assert.equal(health.capabilities.mail.transport, 'file');
      assert.match(
        health.capabilities.mail.note,
        /SMTP_URL is not set: mail is written as \.eml files under DATA_DIR\/mail\//,
      );
    });

    it('an invitation is written as an .eml file under DATA_DIR/mail whose link lets the user sign in', async () => {
      const t = ctx();
      const tenant = await createTenant(t, { name: 'Fileside' });
      const invited = await t.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: tenant.headers,
        payload: { email: 'grace@example.com', name: 'Grace' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const sent = await adminMailTo(t, 'grace@example.com', (m) => m.status === 'sent');
      const file = path.join(t.store.dataDir, 'mail', `${sent.id}.eml`);
      assert.equal(sent.server_response, `written to file://${file}`);
      const parsed = await simpleParser(await fs.readFile(file));
      assert.equal(parsed.subject, 'You are invited to Fileside on DocuVault');
      assert.deepEqual(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((a) => a.address) : [], [
        'grace@example.com',
      ]);
      assert.equal(parsed.from?.value[0]?.name, 'Fileside');
      assert.ok(parsed.html, 'the HTML part is there too');

      const link = passwordLink((parsed.text ?? '').replace('http://127.0.0.1:8080', 'https://docs.example.test'));
      const set = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/password/reset',
        payload: { token: link.token, new_password: 'from a file 1' },
      });
      assert.equal(set.statusCode, 200, set.body);
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'x-tenant-subdomain': tenant.subdomain },
        payload: { email: 'grace@example.com', password: 'from a file 1' },
      });
      assert.equal(login.statusCode, 200, login.body);
    });
  },
  { worker: true },
);

it('the .eml transport logs the file link at info', async () => {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'eml-'));
  const lines: { level: string; obj: Record<string, unknown>; msg: string | undefined }[] = [];
  const record = (level: string) => (obj: unknown, msg?: string) =>
    void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  const transport = new EmlFileTransport({
    directory,
    logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
  });
  try {
    const sent = await transport.send({
      id: 'm1',
      from: { name: 'Acme', address: 'docs@acme.example' },
      to: 'a@example.com',
      subject: 'Hello',
      text: 'Hi',
      html: null,
    });
    assert.equal(sent.file, `file://${path.join(directory, 'm1.eml')}`);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 'info');
    assert.equal(lines[0]!.obj['file'], sent.file);
    assert.match(String(lines[0]!.msg), /SMTP_URL is not set/);
    assert.match(await fs.readFile(fileURLToPath(sent.file!), 'utf8'), /^Subject: Hello\r$/m);
    assert.deepEqual(await fs.readdir(directory), ['m1.eml'], 'no partial file is left');
  } finally {
    await fs.rm(directory, { recursive: true, force: true });
  }
});
