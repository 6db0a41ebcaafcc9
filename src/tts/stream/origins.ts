/**
 * The operator's Origin allowlist for browser connections that use a stream token.
 * Entries: `*` (any origin), an origin without a port (`http://localhost`, any port),
 * an exact origin (`https://app.example.com:8443`), or a subdomain pattern
 * (`https://*.example.com`, any subdomain, not the bare domain).
 */
export class OriginAllowlist {
  readonly #entries: readonly string[];

  constructor(entries: readonly string[]) {
    this.#entries = entries.map((entry) => entry.toLowerCase().replace(/\/+$/, ''));
  }

  allows(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    const scheme = url.protocol.slice(0, -1);
    const host = url.hostname.toLowerCase();
    const port = url.port;
    return this.#entries.some((entry) => {
      if (entry === '*') return true;
      const match = /^([a-z][a-z0-9+.-]*):\/\/(\*\.)?([^/:]+)(?::(\d+))?$/.exec(entry);
      if (!match) return false;
      const [, entryScheme, wildcard, entryHost, entryPort] = match;
      if (entryScheme !== scheme) return false;
      if (entryPort !== undefined && entryPort !== port) return false;
      if (wildcard) return host.endsWith(`.${entryHost}`);
      return host === entryHost;
    });
  }
}
