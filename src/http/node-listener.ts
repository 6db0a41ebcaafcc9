import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A small internal node:http listener once bound (probes, metrics). */
export interface NodeListener {
  readonly host: string;
  readonly port: number;
  /** Stops listening and ends open connections (a scraper's keep-alive among them). */
  close(): Promise<void>;
}

/**
 * Binds `handler` on `host:port` (port 0: any free port) for the internal listeners that
 * serve a route or two beside the public API; rejects when the address is taken.
 */
export async function listenNode(
  handler: RequestListener,
  options: { host: string; port: number },
): Promise<NodeListener> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    host: options.host,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
