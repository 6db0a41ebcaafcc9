import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Why an address is not public; `public` when a webhook may be sent to it. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private network'
  | 'link-local'
  | 'shared address space'
  | 'unspecified'
  | 'multicast'
  | 'reserved';

type Rule = [network: string, prefix: number];

/** IANA special-purpose ranges, by what a refusal calls them. */
const IPV4_RULES: [Exclude<AddressClass, 'public'>, Rule[]][] = [
  ['unspecified', [['0.0.0.0', 8]]],
  ['loopback', [['127.0.0.0', 8]]],
  [
    'private network',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ],
  ],
  // 169.254.169.254 is the metadata service of most clouds.
  ['link-local', [['169.254.0.0', 16]]],
  ['shared address space', [['100.64.0.0', 10]]],
  ['multicast', [['224.0.0.0', 4]]],
  [
    'reserved',
    [
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.88.99.0', 24],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['240.0.0.0', 4],
    ],
  ],
];

const IPV6_RULES: [Exclude<AddressClass, 'public'>, Rule[]][] = [
  ['unspecified', [['::', 128]]],
  ['loopback', [['::1', 128]]],
  [
    'private network',
    [
      ['fc00::', 7],
      ['fec0::', 10],
    ],
  ],
  ['link-local', [['fe80::', 10]]],
  ['multicast', [['ff00::', 8]]],
  [
    'reserved',
    [
      ['::', 96],
      ['64:ff9b:1::', 48],
      ['100::', 64],
      ['2001::', 23],
      ['2001:db8::', 32],
      ['3fff::', 20],
    ],
  ],
];

const IPV4_LISTS = IPV4_RULES.map(([label, rules]) => [label, blockList(rules, 'ipv4')] as const);
const IPV6_LISTS = IPV6_RULES.map(([label, rules]) => [label, blockList(rules, 'ipv6')] as const);
/** Global unicast: every public IPv6 address lies in 2000::/3. */
const GLOBAL_UNICAST = blockList([['2000::', 3]], 'ipv6');

function blockList(rules: Rule[], family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of rules) list.addSubnet(network, prefix, family);
  return list;
}

/**
 * Classifies an IP address. An IPv6 address that carries an IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged by that IPv4 address,
 * since that is where a connection ends up. Anything that is not an IP address is `reserved`.
 *
 * @example
 * classifyAddress('10.1.2.3'); // 'private network'
 * classifyAddress('::ffff:127.0.0.1'); // 'loopback'
 * classifyAddress('93.184.215.14'); // 'public'
 */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 4) return classifyIpv4(address);
  if (family !== 6) return 'reserved';
  const hextets = ipv6Hextets(address);
  if (!hextets) return 'reserved';
  const embedded = embeddedIpv4(hextets);
  if (embedded) return classifyIpv4(embedded);
  for (const [label, list] of IPV6_LISTS) if (list.check(address, 'ipv6')) return label;
  return GLOBAL_UNICAST.check(address, 'ipv6') ? 'public' : 'reserved';
}

function classifyIpv4(address: string): AddressClass {
  for (const [label, list] of IPV4_LISTS) if (list.check(address, 'ipv4')) return label;
  return 'public';
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad included). */
function ipv6Hextets(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0] ?? '';
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (quad) {
    const [a = 0, b = 0, c = 0, d = 0] = quad.split('.').map(Number);
    text = `${text.slice(0, -quad.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  const groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  return groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff) ? undefined : groups;
}

function embeddedIpv4(h: number[]): string | undefined {
  const dotted = (high: number, low: number) =>
    `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => h.slice(from, to).every((g) => g === 0);
  // ::ffff:a.b.c.d
  if (zeros(0, 5) && h[5] === 0xffff) return dotted(h[6] ?? 0, h[7] ?? 0);
  // 64:ff9b::a.b.c.d
  if (h[0] === 0x64 && h[1] === 0xff9b && zeros(2, 6)) return dotted(h[6] ?? 0, h[7] ?? 0);
  // 2002:aabb:ccdd::/48
  if (h[0] === 0x2002) return dotted(h[1] ?? 0, h[2] ?? 0);
  return undefined;
}

/** A connection refused because the address it would reach is not public. */
export class AddressNotAllowedError extends Error {
  constructor(
    readonly address: string,
    readonly reason: Exclude<AddressClass, 'public'>,
  ) {
    super(`address ${address} is not allowed (${reason})`);
    this.name = 'AddressNotAllowedError';
  }
}

/** Throws {@link AddressNotAllowedError} unless `address` is public. */
export function assertPublicAddress(address: string): void {
  const verdict = classifyAddress(address);
  if (verdict !== 'public') throw new AddressNotAllowedError(address, verdict);
}

/**
 * The IP address a URL names literally (`http://10.0.0.1/`, `http://[::1]/`), or undefined
 * for a host name. A connection to a literal address involves no name lookup, so it is
 * checked before the request.
 */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : undefined;
}

/**
 * A `lookup` for sockets (`net.connect`, `http.request`) that resolves like `dns.lookup`
 * and fails with {@link AddressNotAllowedError} when any address of the name is not public,
 * so the socket connects only to addresses that were checked.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    for (const { address } of addresses) {
      const verdict = classifyAddress(address);
      if (verdict !== 'public') {
        callback(new AddressNotAllowedError(address, verdict), '', 0);
        return;
      }
    }
    const [first] = addresses;
    if (options.all) callback(null, addresses);
    else if (first) callback(null, first.address, first.family);
    else
      callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
        '',
        0,
      );
  });
};
