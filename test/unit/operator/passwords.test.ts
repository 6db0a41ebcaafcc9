import { describe, expect, it } from 'vitest';
import { readCookie } from '../../../src/operator/guard.ts';
import { DUMMY_HASH, hashPassword, verifyPassword } from '../../../src/operator/passwords.ts';

describe('operator passwords', () => {
  it('stores a salted scrypt hash with its parameters, and verifies only the same password', async () => {
    const first = await hashPassword('correct horse battery staple');
    const second = await hashPassword('correct horse battery staple');
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('horse');
    expect(await verifyPassword('correct horse battery staple', first)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', first)).toBe(false);
    expect(await verifyPassword('', first)).toBe(false);
  });

  it('treats composed and decomposed accents as the same password', async () => {
    const stored = await hashPassword('caf\u00e9 au lait du matin');
    expect(await verifyPassword('cafe\u0301 au lait du matin', stored)).toBe(true);
  });

  it('never matches a malformed hash or the dummy hash', async () => {
    for (const stored of [
      '',
      'scrypt$1$2$3',
      'bcrypt$x$y$z$a$b',
      'scrypt$0$8$1$AAAA$AAAA',
      'scrypt$3$8$1$AAAA$AAAA',
    ]) {
      expect(await verifyPassword('anything at all', stored)).toBe(false);
    }
    expect(await verifyPassword('', DUMMY_HASH)).toBe(false);
  });

  it('reads one cookie out of a Cookie header', () => {
    const header = 'theme=dark; awp_operator_session=abc-DEF_123; other=x';
    expect(readCookie(header, 'awp_operator_session')).toBe('abc-DEF_123');
    expect(readCookie(header, 'missing')).toBeUndefined();
    expect(readCookie(undefined, 'awp_operator_session')).toBeUndefined();
  });
});
