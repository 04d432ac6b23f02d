import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { DocuVault } from '@docuvault/sdk';
import { apiKeyOf, clientFor, configPath, readConfig, removeConfig, writeConfig } from '../config.ts';
import { EXIT, type Io, output, UsageError } from '../io.ts';

// The password comes from stdin or DOCUVAULT_PASSWORD, never from the command line (shell history, ps).
async function passwordFrom(io: Io, fromStdin: boolean): Promise<string> {
  if (fromStdin) return (await text(process.stdin)).replace(/\r?\n$/, '');
  if (io.env.DOCUVAULT_PASSWORD) return io.env.DOCUVAULT_PASSWORD;
  throw new UsageError('give the password with --password-stdin or DOCUVAULT_PASSWORD');
}

async function login(args: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      'api-key': { type: 'string' },
      tenant: { type: 'string' },
      email: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      sandbox: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const baseUrl = values.url ?? io.env.DOCUVAULT_URL;
  if (!baseUrl) throw new UsageError('login needs --url');
  const sandbox = values.sandbox ?? false;
  if (values['api-key']) {
    const client = new DocuVault({ baseUrl, apiKey: values['api-key'], sandbox });
    await client.call('listTags', { query: { page_size: 1 } });
    await writeConfig(io.env, { baseUrl, apiKey: values['api-key'], sandbox });
    output(
      io,
      values.json ?? false,
      { base_url: baseUrl, mode: 'api_key', config: configPath(io.env) },
      () => `logged in to ${baseUrl} with an API key`,
    );
    return EXIT.ok;
  }
  if (!values.tenant || !values.email) throw new UsageError('login needs --api-key, or --tenant and --email');
  const password = await passwordFrom(io, values['password-stdin'] ?? false);
  const client = await DocuVault.login({ baseUrl, sandbox, tenant: values.tenant, email: values.email, password });
  const tokens = client.tokens;
  if (tokens) await writeConfig(io.env, { baseUrl, tokens, sandbox });
  const me = await client.call('getAuthMe');
  output(
    io,
    values.json ?? false,
    { base_url: baseUrl, mode: 'user', user: me },
    () => `logged in to ${baseUrl} as ${values.email}`,
  );
  return EXIT.ok;
}

async function logout(args: string[], io: Io): Promise<number> {
  parseArgs({ args, options: { json: { type: 'boolean' } } });
  const client = await clientFor(io).catch(() => null);
  if (client?.tokens) await client.logout().catch(() => undefined);
  await removeConfig(io.env);
  io.stdout.write('logged out\n');
  return EXIT.ok;
}

async function whoami(args: string[], io: Io): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
  const client = await clientFor(io);
  const me = await client.call('getAuthMe');
  const tenant = `${me.tenant.name} (${me.tenant.subdomain}, ${me.tenant.tier})`;
  if (!client.tokens) {
    // The service does not name the key back; its prefix identifies it without printing the secret.
    const key = keyPrefix(apiKeyOf(io.env, await readConfig(io.env)) ?? '');
    output(io, values.json ?? false, { base_url: client.baseUrl, mode: 'api_key', api_key: key, ...me }, () =>
      [
        `API key ${key}`,
        `role: ${me.auth.role}${me.auth.sandbox ? ' (sandbox)' : ''}`,
        `tenant: ${tenant}`,
        `url: ${client.baseUrl}`,
      ].join('\n'),
    );
    return EXIT.ok;
  }
  output(io, values.json ?? false, { base_url: client.baseUrl, mode: 'user', ...me }, () =>
    [
      `user: ${me.user?.email ?? 'unknown'}`,
      `role: ${me.auth.role}${me.auth.sandbox ? ' (sandbox)' : ''}`,
      `tenant: ${tenant}`,
      `url: ${client.baseUrl}`,
    ].join('\n'),
  );
  return EXIT.ok;
}

/** `ak_live_AbCdEfGh…`: the public prefix the key list shows, never the secret part. */
function keyPrefix(key: string): string {
  return `${key.slice(0, 16)}…`;
}

export const loginCommands = { login, logout, whoami };
