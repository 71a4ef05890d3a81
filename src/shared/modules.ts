// The bridge runs from TypeScript sources (tsx: tests, development) or from compiled JavaScript
// (dist/: npm start). Module URLs built at run time must follow whichever is running, and a .ts
// module (a game written in TypeScript) can still be loaded by the compiled bridge.

/** True when this code runs from .ts sources, under tsx. */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** `new URL(path, base)`, with a `.ts` path pointing at `.js` when running compiled. */
export function moduleUrl(path: string, base: string): URL {
  return new URL(FROM_SOURCE ? path : path.replace(/\.ts$/, '.js'), base);
}

let tsxRegistered = FROM_SOURCE;

/**
 * import() that can load a .ts module from compiled code: tsx is registered in this thread the first
 * time one is asked for (from sources it already is).
 */
export async function importModule(url: string): Promise<Record<string, unknown>> {
  if (!tsxRegistered && new URL(url).pathname.endsWith('.ts')) {
    const { register } = await import('tsx/esm/api');
    register();
    tsxRegistered = true;
  }
  return (await import(url)) as Record<string, unknown>;
}
