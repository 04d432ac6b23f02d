import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * The millisecond written into the last id made in this process, its 12-bit sequence (`rand_a`),
 * and the time the caller gave for it (the written millisecond runs ahead of it when more than a
 * millisecond's sequence of ids is made within one millisecond).
 */
let lastMs = -1;
let sequence = 0;
let lastGiven = -1;

/**
 * Random bytes for ids, drawn from the CSPRNG 256 ids at a time: one `randomBytes` call per id
 * was ~2 µs alone and far more on a loaded process (a synchronous crossing into OpenSSL per id;
 * measured as the largest share of the audit trail's cost per read, docs/benchmarks.md).
 */
const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let poolAt = pool.length;

function randomId16(): Buffer {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  // A view, not a copy: each 16 bytes serve one id, written over and read once before the refill.
  const bytes = pool.subarray(poolAt, poolAt + 16);
  poolAt += 16;
  return bytes;
}

/**
 * A UUIDv7 (RFC 9562): time-ordered, so new rows land at the end of primary-key indexes
 * on both SQLite and PostgreSQL instead of scattering across them. Ids made in the same millisecond
 * by one process also sort in the order they were made, at least 2,048 of them (RFC 9562 §6.2
 * method 1: `rand_a` is a counter, started at a random value below half its range each
 * millisecond, the millisecond itself advanced when a burst outruns the counter), so lists ordered by
 * (created_at, id) keep creation order. Across processes a millisecond's ids are in random order.
 */
export function newId(now: number = Date.now()): string {
  const bytes = randomId16();
  if (now === lastGiven || (now > lastGiven && now <= lastMs)) {
    // The same millisecond (or one the ids already ran ahead into): the next in sequence; past the
    // sequence's end, the next millisecond (RFC 9562 §6.2: the timestamp may be incremented).
    if (sequence < 0xfff) sequence++;
    else {
      lastMs++;
      sequence = bytes.readUInt16BE(6) & 0x7ff;
    }
  } else {
    lastMs = now;
    sequence = bytes.readUInt16BE(6) & 0x7ff;
  }
  lastGiven = now;
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes.writeUInt16BE(0x7000 | sequence, 6);
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A prefixed random identifier such as `evt_…`, for ids the spec shows with a prefix. */
export function prefixedId(prefix: string, bytes = 16): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id has the shape of our ids (anything else cannot exist, so it is a 404). */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
