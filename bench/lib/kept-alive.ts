// One agent's POST /cmd on one kept-alive connection, one request at a time, as an agent's loop
// runs (node:http: the least client CPU, so the figures are the bridge's).
import { Agent, request } from 'node:http';

export interface Answer {
  status: number;
  body: any;
  ms: number;
}

export interface KeptAliveClient {
  /** POST /cmd `{ name, args }` (args left out when undefined): the status, parsed body and round trip in ms. */
  post(name: string, args?: unknown): Promise<Answer>;
  close(): void;
}

export function keptAliveClient(url: string, token: string): KeptAliveClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const port = Number(new URL(url).port);
  return {
    post: (name, args) =>
      new Promise<Answer>((resolve, reject) => {
        const body = JSON.stringify(args === undefined ? { name } : { name, args });
        const t0 = performance.now();
        const req = request(
          {
            host: '127.0.0.1',
            port,
            agent,
            method: 'POST',
            path: '/cmd',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (chunk: Buffer) => parts.push(chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString()), ms: performance.now() - t0 }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

/** The p-th percentile of `values` (nearest rank), NaN when there are none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
