import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

// The SDK and the CLI as a user gets them from a registry: packed by scripts/pack-packages.ts,
// installed (offline, from the tarballs) into a project of its own, where Node runs JavaScript only.
describe('sdk and cli packages, installed from their tarballs', () => {
  let dir: string;
  let project: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dv-packages-'));
    const { stdout } = await run(process.execPath, [
      join(ROOT, 'scripts/pack-packages.ts'),
      '--out',
      join(dir, 'packs'),
    ]);
    const tarballs = stdout.trim().split('\n');
    assert.equal(tarballs.length, 2);
    project = join(dir, 'project');
    await run('mkdir', ['-p', project]);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], {
      cwd: project,
    });
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('hold compiled JavaScript and declarations, not TypeScript sources', async () => {
    const sdk = JSON.parse(await readFile(join(project, 'node_modules/@docuvault/sdk/package.json'), 'utf8'));
    assert.deepEqual(sdk.exports['.'], { types: './dist/src/index.d.ts', default: './dist/src/index.js' });
    assert.equal(sdk.private, undefined);
    const cli = JSON.parse(await readFile(join(project, 'node_modules/@docuvault/cli/package.json'), 'utf8'));
    assert.equal(cli.bin.docuvault, './dist/bin/docuvault.js');
    const { stdout } = await run('find', [
      join(project, 'node_modules/@docuvault'),
      '-name',
      '*.ts',
      '-not',
      '-name',
      '*.d.ts',
    ]);
    assert.equal(stdout.trim(), '');
  });

  it('import and run from node_modules', async () => {
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { DocuVault, verifyWebhookSignature } from '@docuvault/sdk'; console.log(typeof DocuVault, typeof verifyWebhookSignature)",
      ],
      { cwd: project },
    );
    assert.equal(imported.stdout.trim(), 'function function');
    const help = await run(process.execPath, [join(project, 'node_modules/.bin/docuvault'), '--help'], {
      cwd: project,
    });
    assert.match(help.stdout, /usage: docuvault <command>/);
  });

  it("give a TypeScript user the operations' types", async () => {
    await writeFile(
      join(project, 'use.ts'),
      `import { DocuVault } from '@docuvault/sdk';
const dv = new DocuVault({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'ak_live_x' });
export async function names(): Promise<string[]> {
  const listed = await dv.call('listFolders');
  // @ts-expect-error: a folder needs a name
  await dv.call('createFolder', { body: { color: '#fff' } });
  return listed.folders.map((f) => f.name);
}
`,
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2024',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
        },
        files: ['use.ts'],
      }),
    );
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(project, 'tsconfig.json')], {
      cwd: project,
    });
  });
});
