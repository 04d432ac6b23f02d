import assert from 'node:assert/strict';
import { it } from 'node:test';
import sharp from 'sharp';
import { assertError, createTenant } from '../../support/fixtures.ts';
import { describeEachBlobStore } from './blob-stores.ts';
import { eventually, tinyPdf, uploadOk } from './helpers.ts';
import { interlacedPngBomb, pdfContentBomb } from '../../fixtures/extraction/bombs.ts';

describeEachBlobStore(
  'thumbnails',
  (ctx) => {
    const t = () => ctx().t;

    it('renders images resized, the first page of PDFs, and a type icon for other files', async () => {
      const tenant = await createTenant(t(), { tier: 'enterprise' });
      const png = await sharp({ create: { width: 1200, height: 600, channels: 3, background: '#3366CC' } })
        .png()
        .toBuffer();
      const image = await uploadOk(t(), tenant.headers, { filename: 'photo.png', content: png });
      const pdf = await uploadOk(t(), tenant.headers, { filename: 'doc.pdf', content: tinyPdf() });
      const text = await uploadOk(t(), tenant.headers, { filename: 'notes.txt' });
      const db = t().container.database.db;
      await eventually(async () => {
        const rows = await db
          .selectFrom('documents')
          .select('thumbnail_key')
          .where('id', 'in', [image, pdf, text])
          .execute();
        return rows.every((r) => r.thumbnail_key !== null);
      }, 'thumbnails rendered');

      const thumb = (id: string) =>
        t().app.inject({ url: `/api/v1/documents/${id}/thumbnail`, headers: tenant.headers });
      const img = await thumb(image);
      assert.equal(img.statusCode, 200);
      assert.equal(img.headers['content-type'], 'image/png');
      const meta = await sharp(img.rawPayload).metadata();
      assert.deepEqual([meta.width, meta.height], [256, 128]);
      const page = await thumb(pdf);
      assert.equal(page.headers['content-type'], 'image/png');
      const pageMeta = await sharp(page.rawPayload).metadata();
      assert.ok(pageMeta.width! <= 256 && pageMeta.height! <= 256);
      const icon = await thumb(text);
      assert.equal(icon.headers['content-type'], 'image/svg+xml');
      assert.match(icon.body, /<svg[\s\S]*TXT/);
      assert.ok(
        ctx()
          .storedKeys()
          .some((k) => k.endsWith(`thumbnails/${image}`)),
      );

      const detail = await t().app.inject({ url: `/api/v1/documents/${image}`, headers: tenant.headers });
      assert.equal(new URL(detail.json().thumbnail_url).pathname, `/api/v1/documents/${image}/thumbnail`);
      assertError(await thumb('01890000-0000-7000-8000-000000000000'), 404, 'not_found');

      // Deleting the document removes the thumbnail too.
      await t().app.inject({ method: 'DELETE', url: `/api/v1/documents/${image}`, headers: tenant.headers });
      await eventually(
        () =>
          !ctx()
            .storedKeys()
            .some((k) => k.includes(image)),
        'thumbnail removed',
      );
    });

    it('a decompression bomb gets the type icon: an interlaced PNG decoding to 275 MB, a PDF page inflating to 256 MB', async () => {
      const tenant = await createTenant(t(), { tier: 'enterprise' });
      const png = await uploadOk(t(), tenant.headers, { filename: 'bomb.png', content: interlacedPngBomb(6000, 6000) });
      const pdf = await uploadOk(t(), tenant.headers, {
        filename: 'bomb.pdf',
        content: pdfContentBomb(256 * 1024 * 1024),
      });
      const db = t().container.database.db;
      await eventually(async () => {
        const rows = await db.selectFrom('documents').select('thumbnail_key').where('id', 'in', [png, pdf]).execute();
        return rows.every((r) => r.thumbnail_key !== null);
      }, 'thumbnails made');
      for (const [id, label] of [
        [png, 'PNG'],
        [pdf, 'PDF'],
      ]) {
        const icon = await t().app.inject({ url: `/api/v1/documents/${id}/thumbnail`, headers: tenant.headers });
        assert.equal(icon.headers['content-type'], 'image/svg+xml');
        assert.match(icon.body, new RegExp(`<svg[\\s\\S]*${label}`));
      }
    });
  },
  { worker: true, env: { PUBLIC_BASE_URL: 'https://docs.example.com' } },
);
