import { Ajv2020 } from 'ajv/dist/2020.js';

// One Ajv (draft 2020-12) for the bridge's own schemas: command args and the config files.
// strict: false so that a keyword Ajv does not know (TypeBox passes options through) never stops the bridge.
export function createAjv(options: { useDefaults?: boolean } = {}): Ajv2020 {
  return new Ajv2020({
    allErrors: false,
    strict: false,
    useDefaults: options.useDefaults ?? true,
    coerceTypes: false,
  });
}
