/** True for a unique-index violation on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return (
    e?.code === '23505' ||
    (typeof e?.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT_UNIQUE')) ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** The constraint name and message of a database error, for telling which index it hit. */
export function violationText(error: unknown): string {
  const e = error as { constraint?: unknown; message?: unknown };
  return `${String(e.constraint ?? '')} ${String(e.message ?? '')}`;
}
