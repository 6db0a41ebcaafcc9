// Which addresses a webhook may be sent to when private networks are not allowed.

import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  type AddressClass,
  AddressNotAllowedError,
  assertPublicAddress,
  classifyAddress,
  literalAddress,
  publicOnlyLookup,
} from '../../../src/webhooks/address-guard.ts';

const TABLE: [string, AddressClass][] = [
  ['8.8.8.8', 'public'],
  ['93.184.215.14', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.1', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.1', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private network'],
  ['172.16.0.1', 'private network'],
  ['172.31.255.255', 'private network'],
  ['192.168.1.1', 'private network'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'shared address space'],
  ['100.127.255.255', 'shared address space'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['203.0.113.5', 'reserved'],
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:80b::200e', 'public'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'private network'],
  ['fd12:3456:789a::1', 'private network'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['100::1', 'reserved'],
  ['::127.0.0.1', 'reserved'],
  ['4000::1', 'reserved'],
  // IPv4-mapped IPv6, dotted and hexadecimal, judged by the IPv4 address.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:7F00:0001', 'loopback'],
  ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
  ['::ffff:10.1.2.3', 'private network'],
  ['::ffff:ac10:1', 'private network'],
  ['::ffff:192.168.0.1', 'private network'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:100.64.0.1', 'shared address space'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:224.0.0.1', 'multicast'],
  ['::ffff:240.0.0.1', 'reserved'],
  ['::ffff:8.8.8.8', 'public'],
  // NAT64 and 6to4 carry an IPv4 address too.
  ['64:ff9b::10.0.0.1', 'private network'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:7f00:1::1', 'loopback'],
  ['2002:808:808::1', 'public'],
  // Not an IP address at all.
  ['localhost', 'reserved'],
  ['1.2.3', 'reserved'],
];

describe('classifyAddress', () => {
  it.each(TABLE)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('assertPublicAddress', () => {
  it('passes a public address and names the reason for any other', () => {
    expect(() => assertPublicAddress('8.8.8.8')).not.toThrow();
    expect(() => assertPublicAddress('127.0.0.1')).toThrow(
      new AddressNotAllowedError('127.0.0.1', 'loopback'),
    );
    expect(() => assertPublicAddress('10.0.0.1')).toThrow(
      'address 10.0.0.1 is not allowed (private network)',
    );
    expect(() => assertPublicAddress('::ffff:169.254.169.254')).toThrow(
      'address ::ffff:169.254.169.254 is not allowed (link-local)',
    );
  });
});

describe('literalAddress', () => {
  it('finds the IP a URL names, in any spelling the URL parser accepts, and nothing for a name', () => {
    expect(literalAddress(new URL('http://127.0.0.1:8080/x'))).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://2130706433/'))).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://0x7f.1/'))).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://[::1]:9/'))).toBe('::1');
    expect(literalAddress(new URL('http://[::ffff:127.0.0.1]/'))).toBe('::ffff:7f00:1');
    expect(literalAddress(new URL('https://hooks.example.com/'))).toBeUndefined();
    expect(literalAddress(new URL('http://localhost:3000/'))).toBeUndefined();
  });
});

function lookup(
  hostname: string,
  all: boolean,
): Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve) =>
    publicOnlyLookup(hostname, { all }, (error, address, family) =>
      resolve({ error, address, family }),
    ),
  );
}

describe('publicOnlyLookup', () => {
  it('answers with the public addresses of a name, singly or all, as dns.lookup does', async () => {
    expect(await lookup('8.8.8.8', false)).toEqual({ error: null, address: '8.8.8.8', family: 4 });
    expect(await lookup('8.8.8.8', true)).toEqual({
      error: null,
      address: [{ address: '8.8.8.8', family: 4 }],
      family: undefined,
    });
  });

  it('fails a name that resolves to a loopback address', async () => {
    for (const all of [false, true]) {
      const { error } = await lookup('localhost', all);
      expect(error).toBeInstanceOf(AddressNotAllowedError);
      expect(error?.message).toMatch(/^address (127\.0\.0\.1|::1) is not allowed \(loopback\)$/);
    }
  });

  it('passes a resolution error through', async () => {
    const { error } = await lookup('no-such-host.invalid', false);
    expect(error).not.toBeInstanceOf(AddressNotAllowedError);
    expect((error as NodeJS.ErrnoException).code).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
  });
});
