/**
 * `text` in consecutive pieces of at most `size` UTF-16 code units, each cut after the last
 * white space of its second half when it has one, and never inside a surrogate pair.
 * `Intl.Segmenter` takes time that grows with the square of the text's length on long
 * strings (V8 in Node 20: 80,000 characters of symbols took 30 s), so segmenters only ever
 * see pieces of this kind.
 */
export function* textWindows(text: string, size: number): Generator<string> {
  let start = 0;
  while (text.length - start > size) {
    let end = start + size;
    const window = text.slice(start, end);
    const space = lastWhiteSpace(window);
    if (space >= size / 2) end = start + space + 1;
    else if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    yield text.slice(start, end);
    start = end;
  }
  if (start < text.length) yield text.slice(start);
}

function lastWhiteSpace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    if (/\s/.test(text.charAt(i))) return i;
  }
  return -1;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
