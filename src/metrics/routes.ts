import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import { PERMISSIONS } from '../auth/permissions.ts';
import { permissionDeniedFailure } from '../errors/failures.ts';
import type { Env } from '../http/context.ts';
import { fail } from '../http/respond.ts';

/**
 * decisions §9: GET /metrics after the shared authentication (Host, Origin, credential). It needs
 * read_all and takes no admission slot, so it answers while the bridge is saturated; the kill
 * switch does not stop it (as GET /health).
 */
export function metricsRoutes(registry: Registry): Hono<Env> {
  return new Hono<Env>().get('/metrics', async (c) => {
    const caller = c.get('caller');
    if ((caller.permissions & PERMISSIONS.read_all) === 0) {
      return fail(c, permissionDeniedFailure(`agent '${caller.agentId}' (role ${caller.role}) lacks the read_all permission that GET /metrics needs`), '', {});
    }
    const text = await registry.metrics();
    c.get('line').status = 200;
    return new Response(text, {
      status: 200,
      headers: {
        'content-type': registry.contentType,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
        'x-request-id': c.get('line').rid,
      },
    });
  });
}
