// GET / and /view/* (decisions §9): the live viewer. The page holds no data and needs no
// credential: every data call it makes goes through the ordinary API with the token the user pastes,
// so it sees what that token may see and nothing more. The Host and Origin rules still apply.
import { createHash } from 'node:crypto';
import { Hono, type Context, type Next } from 'hono';
import { createHostCheck, originAllowed } from '../auth/host-origin.ts';
import type { AppEntry } from '../http/app.ts';
import type { Env } from '../http/context.ts';
import { loadAssets, type Asset } from './assets-table.ts';

const IMPORT_MAP = /<script type="importmap">([\s\S]*?)<\/script>/;

/**
 * The page's policy: its own scripts and the one inline import map (by hash), no other origin, no
 * framing (a token form must not be overlaid), no form posts anywhere.
 */
function contentSecurityPolicy(page: Buffer): string {
  const map = IMPORT_MAP.exec(page.toString('utf8'))?.[1] ?? '';
  const hash = createHash('sha256').update(map).digest('base64');
  return [
    "default-src 'none'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function viewRoutes(port: () => number): Hono<Env> {
  const hostAllowed = createHostCheck(port);
  let assets: Map<string, Asset> | null = null;
  let policy = '';
  const serve = (path: string, host: string | undefined, origin: string | undefined): Response | null => {
    if (assets === null) {
      assets = loadAssets();
      policy = contentSecurityPolicy(assets.get('/')!.body);
    }
    const asset = assets.get(path);
    if (asset === undefined) return null;
    if (!hostAllowed(host) || !originAllowed(origin)) {
      return new Response('the viewer answers only at http://127.0.0.1:PORT/ or http://localhost:PORT/\n', {
        status: 401,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
      });
    }
    return new Response(asset.body, {
      status: 200,
      headers: {
        'content-type': asset.type,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-cache',
        'content-security-policy': policy,
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      },
    });
  };
  // Only `/` and `/view/*` reach this (so GET /health pays nothing for it); a path not in the table
  // falls through to the authenticated routes (and their 401 or 404).
  const handle = (c: Context<Env>, next: Next) => serve(c.req.path, c.req.header('host'), c.req.header('origin')) ?? next();
  return new Hono<Env>().get('/', handle).get('/view/*', handle);
}

/** The viewer as createApp takes it: open routes, answered before the credential check (the page holds no data). */
export function viewEntry(port: () => number): AppEntry {
  return { openRoutes: viewRoutes(port) };
}
