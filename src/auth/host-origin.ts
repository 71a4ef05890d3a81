// decisions §5: a credential is only valid from loopback clients. The Host header must name the
// bridge exactly (DNS-rebinding defence), and an Origin, when present, must be a loopback origin.

export function createHostCheck(port: () => number): (host: string | undefined) => boolean {
  let hosts: { port: number; numeric: string; named: string } | null = null;
  return function hostAllowed(host) {
    if (host === undefined) return false;
    const current = port();
    // Stryker disable next-line ConditionalExpression: rebuilding the two names on every request gives the same names
    if (hosts === null || hosts.port !== current) hosts = { port: current, numeric: `127.0.0.1:${current}`, named: `localhost:${current}` };
    // Compared as text, not looked up in a set, which would hash the header's fresh string first.
    const lower = host.toLowerCase();
    return lower === hosts.numeric || lower === hosts.named;
  };
}

const LOOPBACK_ORIGIN = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/i;

export function originAllowed(origin: string | undefined): boolean {
  return origin === undefined || LOOPBACK_ORIGIN.test(origin);
}
