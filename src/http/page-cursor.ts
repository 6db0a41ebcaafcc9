import { z } from 'zod';

/** Where a page ends: the sort time and id of its last item. */
export interface PagePosition {
  /** The item's sort time, an ISO 8601 UTC timestamp with milliseconds, as stored. */
  at: string;
  id: string;
}

/** A lowercase UUID, as the service writes its ids. */
export const UUID_PATTERN = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

const TIME = '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z';

/**
 * A page cursor: `{time}~{id}` of the previous page's last item. It is a position, not a
 * reference: any cursor of this shape pages (to the items older than it), including one
 * whose item is gone since.
 */
export function pageCursorSchema(idPattern: string, items: string) {
  return z
    .string()
    .regex(new RegExp(`^${TIME}~${idPattern}$`))
    .describe(
      `The previous page's \`next_cursor\`: the ${items} older than its last, as \`{ISO 8601 time with milliseconds}~{id}\`.`,
    );
}

export function encodePageCursor(position: PagePosition): string {
  return `${position.at}~${position.id}`;
}

/** The position of a cursor that {@link pageCursorSchema} accepted. */
export function decodePageCursor(cursor: string): PagePosition {
  const split = cursor.indexOf('~');
  return { at: cursor.slice(0, split), id: cursor.slice(split + 1) };
}
