import { Redis } from 'ioredis';

/** The Redis the tests use: `TEST_REDIS_URL`, or the local default. */
export const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** Whether that Redis answers a PING: suites that need it skip with a message when it does not. */
export async function redisAvailable(url = REDIS_URL): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
