import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.ts';
import { DriveError, parseRetryAfter } from '../../../src/modules/imports/drive-errors.ts';
import { DEFAULT_EXPORT_FORMATS } from '../../../src/modules/imports/export-formats.ts';
import { DEFAULT_FILTERS } from '../../../src/modules/imports/project-config.ts';
import { estimateCompletion } from '../../../src/modules/imports/progress.ts';
import { nextAttempt } from '../../../src/modules/imports/retry-policy.ts';
import { ScanFilter } from '../../../src/modules/imports/scan-filters.ts';

// The importer's rules as plain functions, without a database or a Drive server.

describe('import rules', () => {
  it('reads the imports settings with their defaults and refuses nonsense', () => {
    const d = loadConfig({}).imports;
    assert.deepEqual(d.retryDelaysMs, [5_000, 30_000, 120_000]);
    assert.equal(d.driveApiUrl, 'https://www.googleapis.com/');
    assert.equal(d.oauthTokenUrl, 'https://oauth2.googleapis.com/token');
    assert.equal(d.concurrency, 4);
    assert.equal(
      loadConfig({ GOOGLE_DRIVE_API_URL: 'http://127.0.0.1:9/x' }).imports.driveApiUrl,
      'http://127.0.0.1:9/x/',
    );
    assert.throws(() => loadConfig({ IMPORT_RETRY_DELAYS: '5,,1' }), /IMPORT_RETRY_DELAYS/);
    assert.throws(() => loadConfig({ GOOGLE_OAUTH_TOKEN_URL: 'ftp://x' }), /GOOGLE_OAUTH_TOKEN_URL/);
  });

  it('retries three times on the schedule, honours Retry-After, and never retries what cannot succeed', () => {
    const delays = [5_000, 30_000, 120_000];
    const outage = new DriveError('x', { status: 500, reason: null, retryAfterMs: null });
    assert.equal(nextAttempt({ error: outage, attempts: 1, now: 0, delaysMs: delays }), 5_000);
    assert.equal(nextAttempt({ error: outage, attempts: 3, now: 0, delaysMs: delays }), 120_000);
    assert.equal(nextAttempt({ error: outage, attempts: 4, now: 0, delaysMs: delays }), null);
    const limited = new DriveError('x', { status: 429, reason: null, retryAfterMs: 60_000 });
    assert.equal(nextAttempt({ error: limited, attempts: 1, now: 0, delaysMs: delays }), 60_000);
    const gone = new DriveError('x', { status: 404, reason: 'notFound', retryAfterMs: null });
    assert.equal(nextAttempt({ error: gone, attempts: 1, now: 0, delaysMs: delays }), null);
    const exportLimit = new DriveError('x', { status: 403, reason: 'exportSizeLimitExceeded', retryAfterMs: null });
    assert.equal(nextAttempt({ error: exportLimit, attempts: 1, now: 0, delaysMs: delays }), null);
    assert.equal(
      new DriveError('x', { status: 403, reason: 'userRateLimitExceeded', retryAfterMs: null }).rateLimited,
      true,
    );
    assert.equal(parseRetryAfter('7'), 7_000);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 0), 10_000);
  });

  it('filters by type (extension, media type, wildcard), size, pattern and ownership', () => {
    const file = (
      name: string,
      extra: Partial<{ mimeType: string; size: number | null; ownedByMe: boolean; path: string }> = {},
    ) => ({
      name,
      path: extra.path ?? `Root/${name}`,
      mimeType: extra.mimeType ?? 'application/pdf',
      size: extra.size ?? 10,
      ownedByMe: extra.ownedByMe ?? true,
    });
    const only = new ScanFilter({ ...DEFAULT_FILTERS, include_types: ['pdf', 'image/*'] }, DEFAULT_EXPORT_FORMATS);
    assert.equal(only.skipReason(file('a.pdf')), null);
    assert.equal(only.skipReason(file('a.png', { mimeType: 'image/png' })), null);
    assert.equal(only.skipReason(file('a.txt', { mimeType: 'text/plain' })), 'type_not_included');
    // A Google Doc exported as PDF (the default) counts as a PDF.
    assert.equal(only.skipReason(file('Plan', { mimeType: 'application/vnd.google-apps.document', size: null })), null);
    const excl = new ScanFilter(
      {
        ...DEFAULT_FILTERS,
        exclude_types: ['application/pdf'],
        exclude_patterns: ['**/drafts/**'],
        max_file_size_bytes: 100,
      },
      DEFAULT_EXPORT_FORMATS,
    );
    assert.equal(excl.skipReason(file('a.pdf')), 'type_excluded');
    assert.equal(excl.skipReason(file('a.txt', { mimeType: 'text/plain', size: 101 })), 'too_large');
    assert.equal(
      excl.skipReason(file('a.txt', { mimeType: 'text/plain', path: 'Root/drafts/x/a.txt' })),
      'excluded_pattern',
    );
    assert.equal(excl.skipReason(file('a.txt', { mimeType: 'text/plain', ownedByMe: false })), 'shared');
    assert.equal(excl.skipReason(file('a.exe', { mimeType: 'application/x-msdownload' })), 'unsupported_type');
    const odt = new ScanFilter(DEFAULT_FILTERS, { ...DEFAULT_EXPORT_FORMATS, document: 'odt' });
    assert.equal(
      odt.skipReason(file('Plan', { mimeType: 'application/vnd.google-apps.document', size: null })),
      'unsupported_type',
    );
  });

  it('estimates completion from the pace since the start', () => {
    assert.equal(estimateCompletion({ now: 10_000, startedAt: 0, finishedSinceStart: 10, pending: 5 }), 15_000);
    assert.equal(estimateCompletion({ now: 10_000, startedAt: 0, finishedSinceStart: 0, pending: 5 }), null);
    assert.equal(estimateCompletion({ now: 10_000, startedAt: null, finishedSinceStart: 3, pending: 5 }), null);
  });
});
