import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

/** Anything a query can run on: the database itself or a transaction of the caller's. */
export type Executor = Kysely<DB> | Transaction<DB>;
