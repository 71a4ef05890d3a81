// Apart from registry.ts, so a command module that names args problems (batch) loads no ajv on the
// game thread and the pool, which import every command module.
import type { ValidateFunction } from 'ajv';

/** The BAD_ARGS message for args that `validate` just refused, naming the field (`args.x must be integer`). */
export function argsProblem(validate: ValidateFunction, prefix = 'args'): string {
  const error = validate.errors?.[0];
  const where = error?.instancePath ? `${prefix}${error.instancePath.replaceAll('/', '.')}` : prefix;
  const detail =
    error?.keyword === 'additionalProperties' ? `has unknown property '${String(error.params.additionalProperty)}'` : (error?.message ?? 'is invalid');
  return `${where} ${detail} (GET /capabilities has the schema)`;
}
