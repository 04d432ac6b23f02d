/** Whether a database error is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (e.code === '23505') return true; // PostgreSQL unique_violation
  // node:sqlite: SQLITE_CONSTRAINT_UNIQUE (2067) and SQLITE_CONSTRAINT_PRIMARYKEY (1555)
  if (e.errcode === 2067 || e.errcode === 1555) return true;
  return typeof e.message === 'string' && e.message.includes('UNIQUE constraint failed');
}

/** Whether a database error is a foreign-key violation, on either dialect. */
export function isForeignKeyViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (e.code === '23503') return true; // PostgreSQL foreign_key_violation
  if (e.errcode === 787) return true; // node:sqlite: SQLITE_CONSTRAINT_FOREIGNKEY
  return typeof e.message === 'string' && e.message.includes('FOREIGN KEY constraint failed');
}
