/** Most characters (Unicode code points) one `text` event may carry. */
export const MAX_TEXT_EVENT_CHARS = 5_000;

/**
 * Splits `text` into pieces of at most `maxChars` code points, cutting after the last
 * whitespace inside each window when there is one (so words stay whole), else at the
 * limit. Empty text gives no pieces. Joining the pieces gives `text` back.
 */
export function splitText(text: string, maxChars = MAX_TEXT_EVENT_CHARS): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  let start = 0;
  while (start < points.length) {
    let end = Math.min(points.length, start + maxChars);
    if (end < points.length) {
      let cut = end;
      while (cut > start && !/\s/.test(points[cut - 1] as string)) cut -= 1;
      if (cut > start) end = cut;
    }
    pieces.push(points.slice(start, end).join(''));
    start = end;
  }
  return pieces;
}
