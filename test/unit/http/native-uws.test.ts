import { describe, expect, it } from 'vitest';
import { nativeBindingLoaded, uws } from '../../../src/http/uws/native.ts';

describe('uWebSockets.js', () => {
  it('loads the native binary, not the pure-JS fallback', () => {
    expect(typeof uws.App).toBe('function');
    expect(nativeBindingLoaded()).toBe(true);
  });
});
