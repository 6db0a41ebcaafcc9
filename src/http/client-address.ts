/**
 * The client's address as the rate limits should count it. Behind a reverse proxy every
 * request comes from the proxy's address, so a deployment names the header its proxy sets
 * (`TRUSTED_PROXY_HEADER`, such as `x-forwarded-for` or `x-real-ip`); its last entry is
 * the address the nearest proxy saw. Without that setting, or without the header on a
 * request, the socket's peer address is used: a header a client sends itself is never
 * trusted unless the deployment says a proxy sets it.
 *
 * @example
 * clientAddress({ headers: { 'x-forwarded-for': '203.0.113.7, 10.0.0.2' }, remoteAddress: '10.0.0.9' }, 'x-forwarded-for');
 * // '10.0.0.2'
 */
export function clientAddress(
  request: { readonly headers: Readonly<Record<string, string>>; readonly remoteAddress: string },
  trustedHeader: string | undefined,
): string {
  if (!trustedHeader) return request.remoteAddress;
  const value = request.headers[trustedHeader.toLowerCase()];
  const last = value
    ?.split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .at(-1);
  return last ?? request.remoteAddress;
}
