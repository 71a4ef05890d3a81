// Security: the bridge refuses to bind anything but loopback, and a running bridge answers on
// 127.0.0.1 alone (not 127.0.0.2, not ::1, not another interface). bridge.toml is 0600 from its
// creation: the token is written into a file that is already 0600, whatever the umask.
import fs, { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { connect, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startBridge } from '../../src/bridge.ts';
import { loadConfig } from '../../src/config/load.ts';
import { startTestBridge, TINY_GAME, tempDir } from '../helpers/bridge.ts';

t.setTimeout(90_000);

const quiet = { write: () => true } as never;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** 'open' when a TCP connection to host:port succeeds, else the error code. */
function probe(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => (socket.destroy(), resolve('timeout')), 3000);
    socket.once('connect', () => (clearTimeout(timer), socket.destroy(), resolve('open')));
    socket.once('error', (err: NodeJS.ErrnoException) => (clearTimeout(timer), resolve(err.code ?? 'error')));
  });
}

t.test('a config that asks for anything but loopback is refused before listening', async (t) => {
  for (const host of [
    '0.0.0.0',
    '::',
    '::1',
    '[::]',
    '127.0.0.2',
    '127.1',
    '192.168.1.10',
    '10.0.0.1',
    'example.com',
    'localhost.evil.example',
    '',
    ' 127.0.0.1',
    '*',
  ]) {
    const dir = tempDir();
    const port = await freePort();
    writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\nhost = ${JSON.stringify(host)}\nport = ${port}\ntoken = "${'k'.repeat(48)}"\n`);
    await t.rejects(
      startBridge({ configDir: dir, game: TINY_GAME, logDestination: quiet }),
      { name: 'ConfigError', message: /\[Bridge\] host/ },
      `host ${JSON.stringify(host)} refused`,
    );
    t.equal(await probe('127.0.0.1', port), 'ECONNREFUSED', 'and nothing listens on its port');
  }
});

t.test('a running bridge (host "localhost" or default) answers on 127.0.0.1 only', async (t) => {
  for (const host of ['localhost', null]) {
    const dir = tempDir();
    writeFileSync(join(dir, 'bridge.toml'), `[Bridge]\n${host ? `host = "${host}"\n` : ''}token = "${'k'.repeat(48)}"\n`);
    const b = await startTestBridge(t, { configDir: dir });
    t.match(b.bridge.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const port = b.bridge.port;
    t.equal(await probe('127.0.0.1', port), 'open', '127.0.0.1 answers');
    // On Linux all of 127/8 is loopback: a socket bound to 0.0.0.0 would accept on 127.0.0.2 too.
    t.equal(await probe('127.0.0.2', port), 'ECONNREFUSED', 'not 127.0.0.2');
    const v6 = await probe('::1', port);
    t.ok(v6 === 'ECONNREFUSED' || v6 === 'EADDRNOTAVAIL' || v6 === 'ENETUNREACH', `not ::1 (${v6})`);
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === 'IPv4');
    if (external) t.equal(await probe(external.address, port), 'ECONNREFUSED', `not ${external.address}`);
    else t.comment('no non-loopback IPv4 interface on this machine to probe');
    await b.bridge.close();
  }
});

t.test('bridge.toml is 0600 from creation, whatever the umask', async (t) => {
  const previous = process.umask(0o000);
  t.teardown(() => void process.umask(previous));
  // Watch every way the file could get its bytes: the token must land in a file already 0600.
  const seen: Array<{ call: string; mode: number | null }> = [];
  const original = { writeSync: fs.writeSync, writeFileSync: fs.writeFileSync, chmodSync: fs.chmodSync };
  const modeOf = (fd: number) => fs.fstatSync(fd).mode & 0o777;
  (fs as { writeSync: unknown }).writeSync = (fd: number, ...rest: unknown[]) => {
    seen.push({ call: 'writeSync', mode: modeOf(fd) });
    return (original.writeSync as (...a: unknown[]) => number)(fd, ...rest);
  };
  (fs as { writeFileSync: unknown }).writeFileSync = (path: unknown, ...rest: unknown[]) => {
    if (String(path).endsWith('bridge.toml')) seen.push({ call: 'writeFileSync', mode: null });
    return (original.writeFileSync as (...a: unknown[]) => void)(path, ...rest);
  };
  (fs as { chmodSync: unknown }).chmodSync = (path: unknown, ...rest: unknown[]) => {
    seen.push({ call: 'chmodSync', mode: null });
    return (original.chmodSync as (...a: unknown[]) => void)(path, ...rest);
  };
  syncBuiltinESMExports();
  const parent = tempDir();
  const dir = join(parent, 'fresh', 'config');
  let created: ReturnType<typeof loadConfig>;
  try {
    created = loadConfig(dir);
  } finally {
    Object.assign(fs, original);
    syncBuiltinESMExports();
  }
  t.equal(created.created, true, 'first launch');
  t.same(seen, [{ call: 'writeSync', mode: 0o600 }], 'the token was written into a file that was already 0600, with no chmod afterwards');
  t.equal(statSync(join(dir, 'bridge.toml')).mode & 0o777, 0o600, 'and it stays 0600');
  t.equal(statSync(dir).mode & 0o777, 0o700, 'the config dir it created is 0700');

  // The real startup path, under the same umask.
  const viaBridge = join(parent, 'second');
  mkdirSync(viaBridge);
  const bridge = await startBridge({ configDir: viaBridge, game: TINY_GAME, port: 0, logDestination: quiet });
  t.teardown(() => bridge.close());
  t.equal(statSync(join(viaBridge, 'bridge.toml')).mode & 0o777, 0o600, 'startBridge on a fresh dir: 0600');
});
