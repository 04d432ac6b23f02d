import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { catalogueCodes, templateProblems } from '../../scripts/template/rules.ts';

const CATALOGUE = [
  'export const errors = {',
  "  notFound: (what: string) => new AppError(404, 'not_found', what + ' not found'),",
  "  conflict: (message: string) => new AppError(\n    409,\n    'conflict',\n    message,\n  ),",
  '};',
].join('\n');
const codes = catalogueCodes(CATALOGUE);
const check = (file: string, ...lines: string[]) =>
  templateProblems([{ file, source: lines.join('\n') }], codes).map((p) => `${p.file}:${p.line}: ${p.message}`);

describe('the template check (scripts/check-template.ts)', () => {
  it('reads the codes the catalogue makes, over several lines too', () => {
    assert.deepEqual([...codes].sort(), ['conflict', 'not_found']);
  });

  it("accepts job kinds in the module's jobs file and events in its events file, and the layers' empty registries", () => {
    assert.deepEqual(
      check(
        'src/modules/chat/chat.jobs.ts',
        "declare module '../../jobs/job-types.ts' {",
        '  interface JobPayloads { "chat.index": { id: string } }',
        '}',
      ),
      [],
    );
    assert.deepEqual(
      check('src/modules/chat/chat.events.ts', '  interface EventDataMap { "chat.x": { id: string } }'),
      [],
    );
    assert.deepEqual(check('src/jobs/job-types.ts', 'export interface JobPayloads {}'), []);
    assert.deepEqual(check('src/events/event-catalogue.ts', 'export interface EventDataMap {}'), []);
  });

  it('catches job kinds or events declared in any other file of a module', () => {
    assert.deepEqual(
      check('src/modules/chat/chat.service.ts', 'const a = 1;', '  interface JobPayloads { "chat.index": {} }'),
      ['src/modules/chat/chat.service.ts:2: JobPayloads is declared in src/modules/chat/chat.jobs.ts only'],
    );
    assert.deepEqual(check('src/modules/chat/jobs/index.jobs.ts', 'interface JobPayloads {}'), [
      'src/modules/chat/jobs/index.jobs.ts:1: JobPayloads is declared in src/modules/chat/chat.jobs.ts only',
    ]);
    assert.deepEqual(check('src/modules/documents/documents.jobs.ts', '', '', 'interface EventDataMap {}'), [
      'src/modules/documents/documents.jobs.ts:3: EventDataMap is declared in src/modules/documents/documents.events.ts only',
    ]);
  });

  it('catches an error code the catalogue does not make, anywhere but the catalogue', () => {
    assert.deepEqual(check('src/modules/tags/tags.service.ts', "throw new AppError(409, 'conflict', 'taken');"), []);
    assert.deepEqual(check('src/http/x.ts', '', "throw new AppError(422, 'made_up_here', 'no');"), [
      "src/http/x.ts:2: error code 'made_up_here' is not made by src/lib/errors.ts: add a factory there",
    ]);
    assert.deepEqual(check('src/lib/errors.ts', "new AppError(418, 'teapot', 'x')"), []);
  });

  it('catches a finder that answers "not found" with undefined, not one that answers null', () => {
    assert.deepEqual(
      check('src/modules/a/a.repository.ts', 'async findById(db: Executor, id: string): Promise<Row | null> {'),
      [],
    );
    assert.deepEqual(
      check('src/modules/a/a.repository.ts', 'async findById(db: Executor, id: string): Promise<Row | undefined> {'),
      ['src/modules/a/a.repository.ts:1: finder findById answers "not found" with undefined; use null'],
    );
    assert.deepEqual(check('src/lib/x.ts', 'getLatest(): Promise<string | undefined>;'), [
      'src/lib/x.ts:1: finder getLatest answers "not found" with undefined; use null',
    ]);
  });

  it('catches a presenter outside a presenter file of a module', () => {
    assert.deepEqual(
      check('src/modules/identity/users/users.presenter.ts', 'export function presentUser(u: User) {'),
      [],
    );
    assert.deepEqual(
      check(
        'src/modules/identity/users/users.schemas.ts',
        'export const UserView = 1;',
        'export function presentUser(u: User) {',
      ),
      [
        'src/modules/identity/users/users.schemas.ts:2: presenter presentUser belongs in a *.presenter.ts file beside it',
      ],
    );
    assert.deepEqual(
      check('src/modules/identity/tenants/tenant-settings.routes.ts', 'function presentSettings(s: TenantSettings) {'),
      [
        'src/modules/identity/tenants/tenant-settings.routes.ts:1: presenter presentSettings belongs in a *.presenter.ts file beside it',
      ],
    );
    // Not a presenter: a word that only starts the same way, or a method call.
    assert.deepEqual(check('src/modules/a/a.service.ts', 'function presently() {}', 'const v = presentUser(u);'), []);
  });

  it('finds nothing in this repository; the script says so', () => {
    const sources = globSync('src/**/*.ts').map((file) => ({ file, source: readFileSync(file, 'utf8') }));
    assert.deepEqual(templateProblems(sources, catalogueCodes(readFileSync('src/lib/errors.ts', 'utf8'))), []);
    assert.match(
      execFileSync(process.execPath, ['scripts/check-template.ts'], { encoding: 'utf8' }),
      /^template: \d+ files/,
    );
  });
});
