import http from 'node:http';
import { streamUpload } from './server.ts';

// A separate client process for the concurrent-upload benchmark, so generating and sending the
// upload bodies does not delay the latency measurements taken in the benchmark process.
//   node bench/documents/upload-clients.ts <base> <apiKey> <count> <bytes>

const [base, apiKey, count, bytes] = process.argv.slice(2);
if (!base || !apiKey || !count || !bytes) throw new Error('usage: upload-clients.ts <base> <apiKey> <count> <bytes>');
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(count) });
const results = await Promise.all(
  Array.from({ length: Number(count) }, (_, i) =>
    streamUpload({ base, apiKey }, Number(bytes), `concurrent-${i}.pdf`, agent).catch((error: Error) => ({
      status: 0,
      body: error.message,
      ms: 0,
    })),
  ),
);
agent.destroy();
const idOf = (body: string) => {
  try {
    return (JSON.parse(body) as { id?: string }).id ?? null;
  } catch {
    return null;
  }
};
process.stdout.write(
  JSON.stringify(results.map((r) => ({ status: r.status, ms: r.ms, id: r.status === 201 ? idOf(r.body) : null }))),
);
