import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyFromHex, keyToHex, ZERO_KEY_HEX } from './keys.ts';
import { FakeDevice, startFakeUapiServer } from './testing/fakeWg.ts';
import { randomKey } from './testing/keys.ts';
import {
  StatsStreamParser,
  UapiClient,
  UapiError,
  UapiUnavailableError,
  parseGet,
  serializeSet,
  setRequestParts,
  setRequestText,
  uapiSocketPath,
} from './uapi.ts';

describe('keys base64 ↔ hex', () => {
  it('round-trips a key and matches the UAPI hex form', () => {
    const b64 = 'AHcXb4K1MjzOHAa3huBxgCmNxERre0zWy8BQUwO3pFg=';
    const hex = keyToHex(b64);
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(hex.slice(0, 8)).toBe('0077176f');
    expect(keyFromHex(hex)).toBe(b64);
    expect(keyFromHex(hex.toUpperCase())).toBe(b64);
  });

  it('refuses malformed keys without echoing them', () => {
    const secret = 'c2VjcmV0LXRoYXQtaXMtbm90LWEta2V5';
    expect(() => keyToHex(secret)).toThrow(/clave WireGuard no válida/);
    try {
      keyToHex(secret);
    } catch (err) {
      expect(String(err)).not.toContain(secret);
    }
    expect(() => keyFromHex('abc')).toThrow();
  });
});

describe('UAPI text', () => {
  const pub = randomKey();
  const psk = randomKey();
  const priv = randomKey();

  it('serialises a transaction with hex keys, replace_allowed_ips and removals, never replace_peers', () => {
    const gone = randomKey();
    const text = setRequestText({
      privateKey: priv,
      listenPort: 51820,
      peers: [
        { publicKey: gone, remove: true },
        {
          publicKey: pub,
          presharedKey: psk,
          replaceAllowedIps: true,
          allowedIps: ['10.64.0.2/32', 'fd00::2/128'],
        },
      ],
    });
    expect(text).toBe(
      [
        'set=1',
        `private_key=${keyToHex(priv)}`,
        'listen_port=51820',
        `public_key=${keyToHex(gone)}`,
        'remove=true',
        `public_key=${keyToHex(pub)}`,
        `preshared_key=${keyToHex(psk)}`,
        'replace_allowed_ips=true',
        'allowed_ip=10.64.0.2/32',
        'allowed_ip=fd00::2/128',
        '',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('replace_peers');
  });

  it('serialises a mesh link: endpoint (canonical address) and keepalive, before the allowed IPs', () => {
    expect(
      serializeSet({
        peers: [
          {
            publicKey: pub,
            presharedKey: psk,
            endpoint: '[2001:db8:0::7]:51820',
            persistentKeepalive: 25,
            replaceAllowedIps: true,
            allowedIps: ['10.64.1.2/32'],
          },
          { publicKey: psk, endpoint: '192.0.2.2:51821', persistentKeepalive: 0 },
        ],
      }),
    ).toBe(
      [
        `public_key=${keyToHex(pub)}`,
        `preshared_key=${keyToHex(psk)}`,
        'endpoint=[2001:db8::7]:51820',
        'persistent_keepalive_interval=25',
        'replace_allowed_ips=true',
        'allowed_ip=10.64.1.2/32',
        `public_key=${keyToHex(psk)}`,
        'endpoint=192.0.2.2:51821',
        'persistent_keepalive_interval=0',
        '',
      ].join('\n'),
    );
    const dev = new FakeDevice();
    expect(
      dev.applySet(
        serializeSet({ peers: [{ publicKey: pub, endpoint: '192.0.2.2:51821', persistentKeepalive: 25 }] }),
      ),
    ).toBe(0);
    expect(parseGet(dev.getText()).peers[0]).toMatchObject({
      endpoint: '192.0.2.2:51821',
      persistentKeepalive: 25,
    });
  });

  it('refuses an endpoint that is not an address (unresolved names, injected lines) and a bad keepalive', () => {
    for (const endpoint of ['vpn2.example.com:51820', '192.0.2.2:51821\nremove=true', '2001:db8::1:51820'])
      expect(() => serializeSet({ peers: [{ publicKey: pub, endpoint }] }), endpoint).toThrow(
        /endpoint no válido/,
      );
    for (const persistentKeepalive of [-1, 65536, 2.5])
      expect(() => serializeSet({ peers: [{ publicKey: pub, persistentKeepalive }] })).toThrow(/keepalive/);
  });

  it('refuses an allowed IP that would inject another UAPI line', () => {
    expect(() =>
      serializeSet({ peers: [{ publicKey: pub, allowedIps: ['10.0.0.1/32\nprivate_key=00'] }] }),
    ).toThrow(/allowed IP no válida/);
  });

  it('parses a get answer into base64 keys, counters and endpoints', () => {
    const text = [
      `private_key=${keyToHex(priv)}`,
      'listen_port=51820',
      `public_key=${keyToHex(pub)}`,
      `preshared_key=${keyToHex(psk)}`,
      'protocol_version=1',
      'endpoint=198.51.100.2:40000',
      'last_handshake_time_sec=1700000000',
      'last_handshake_time_nsec=5',
      'tx_bytes=1234',
      'rx_bytes=5678',
      'persistent_keepalive_interval=25',
      'allowed_ip=10.64.0.2/32',
      `public_key=${keyToHex(psk)}`,
      `preshared_key=${ZERO_KEY_HEX}`,
      'errno=0',
      '',
      '',
    ].join('\n');
    expect(parseGet(text)).toEqual({
      privateKey: priv,
      listenPort: 51820,
      fwmark: 0,
      peers: [
        {
          publicKey: pub,
          presharedKey: psk,
          allowedIps: ['10.64.0.2/32'],
          endpoint: '198.51.100.2:40000',
          lastHandshakeSec: 1700000000,
          rxBytes: 5678,
          txBytes: 1234,
          persistentKeepalive: 25,
        },
        {
          publicKey: psk,
          presharedKey: null,
          allowedIps: [],
          endpoint: null,
          lastHandshakeSec: 0,
          rxBytes: 0,
          txBytes: 0,
          persistentKeepalive: 0,
        },
      ],
    });
  });

  it('round-trips: what set writes is what get reads back', () => {
    const dev = new FakeDevice();
    const peers = Array.from({ length: 5 }, (_, i) => ({
      publicKey: randomKey(),
      presharedKey: randomKey(),
      replaceAllowedIps: true,
      allowedIps: [`10.64.0.${i + 2}/32`],
    }));
    expect(dev.applySet(serializeSet({ privateKey: priv, listenPort: 4242, peers }))).toBe(0);
    const back = parseGet(dev.getText());
    expect(back.privateKey).toBe(priv);
    expect(back.listenPort).toBe(4242);
    expect(back.peers.map((p) => [p.publicKey, p.presharedKey, p.allowedIps])).toEqual(
      peers.map((p) => [p.publicKey, p.presharedKey, p.allowedIps]),
    );
  });

  it('writes a large transaction in parts of about 64 KiB, checked whole before the first part', () => {
    const peers = Array.from({ length: 3000 }, (_, i) => ({
      publicKey: randomKey(),
      presharedKey: randomKey(),
      replaceAllowedIps: true,
      allowedIps: [`10.64.${i >> 8}.${i & 255}/32`],
    }));
    const parts = [...setRequestParts({ listenPort: 51820, peers })];
    expect(parts.length).toBeGreaterThan(5);
    expect(parts.slice(0, -1).every((p) => p.length >= 64 * 1024 && p.length < 65 * 1024)).toBe(true);
    expect(parts.join('')).toBe(setRequestText({ listenPort: 51820, peers }));
    expect(parts[0]!.startsWith('set=1\nlisten_port=51820\npublic_key=')).toBe(true);
    expect(parts.at(-1)!.endsWith('allowed_ip=10.64.11.183/32\n\n')).toBe(true);
    // A bad value at the end refuses the whole request before any part exists to be sent.
    const bad = [...peers, { publicKey: randomKey(), allowedIps: ['10.0.0.1/32\nremove=true'] }];
    expect(() => setRequestParts({ peers: bad })).toThrow(/allowed IP no válida/);
    expect(() => setRequestParts({ peers: [...peers, { publicKey: 'no-es-una-clave' }] })).toThrow(
      /clave WireGuard no válida/,
    );
  });

  it('reports a non-zero errno as UapiError', () => {
    expect(() => parseGet('errno=22\n\n')).toThrow(UapiError);
    expect(() => parseGet('listen_port=1\n\n')).toThrow(/sin errno/);
  });
});

describe('StatsStreamParser (the stats pass reads get=1 as it streams in)', () => {
  const priv = randomKey();
  const pub = randomKey();
  const device = () => {
    const dev = new FakeDevice();
    const keys = Array.from({ length: 6 }, () => randomKey());
    dev.applySet(
      serializeSet({
        privateKey: priv,
        listenPort: 51820,
        peers: keys.map((k, i) => ({
          publicKey: k,
          presharedKey: i % 2 ? randomKey() : null,
          replaceAllowedIps: true,
          allowedIps: [`10.64.0.${i + 2}/32`, `fd00::${i + 2}/128`],
        })),
      }),
    );
    keys.forEach((k, i) => {
      if (i === 5) return; // never connected: zeros and no endpoint
      Object.assign(dev.peer(k)!, {
        rx: 1_000_000_007 * (i + 1),
        tx: 31 * i,
        handshake: 1_700_000_000 + i,
        endpoint: i === 3 ? '[2001:db8::7]:51820' : `198.51.100.${i}:${40000 + i}`,
      });
    });
    return dev.getText();
  };
  const visits = (text: string, chunk: number) => {
    const seen: unknown[] = [];
    const parser = new StatsStreamParser((key, rx, tx, handshake, endpoint) =>
      seen.push({ key, rx, tx, handshake, endpoint }),
    );
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += chunk) parser.push(bytes.subarray(i, i + chunk));
    parser.end();
    return seen;
  };

  it('reports every peer as parseGet reads it, however the answer is split into chunks', () => {
    const text = device();
    const expected = parseGet(text).peers.map((p) => ({
      key: p.publicKey,
      rx: p.rxBytes,
      tx: p.txBytes,
      handshake: p.lastHandshakeSec,
      endpoint: p.endpoint,
    }));
    expect(expected).toHaveLength(6);
    expect(expected[1]).toMatchObject({ rx: 2_000_000_014, tx: 31, endpoint: '198.51.100.1:40001' });
    expect(expected[5]).toMatchObject({ rx: 0, handshake: 0, endpoint: null });
    for (const size of [1, 2, 3, 7, 64, 65, 4096, text.length]) expect(visits(text, size)).toEqual(expected);
  });

  it('refuses an answer with a non-zero errno or none at all', () => {
    expect(() => visits('errno=22\n\n', 3)).toThrow(UapiError);
    expect(() => visits(`public_key=${keyToHex(pub)}\nrx_bytes=1\n\n`, 4)).toThrow(/sin errno/);
    expect(() => visits(`public_key=${keyToHex(pub).slice(2)}zz\nerrno=0\n\n`, 5)).toThrow(/clave WireGuard/);
    // Upper-case hex reads as the same key.
    expect(visits(`public_key=${keyToHex(pub).toUpperCase()}\nerrno=0\n\n`, 9)).toEqual([
      { key: pub, rx: 0, tx: 0, handshake: 0, endpoint: null },
    ]);
  });
});

describe('UapiClient over a unix socket', () => {
  const priv = randomKey();
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'uapi-'));
    path = join(dir, 'wgtest.sock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the global socket of an interface', () => {
    expect(uapiSocketPath('wg0')).toBe('/var/run/wireguard/wg0.sock');
  });

  it('reuses one connection for many requests and reads answers split into tiny chunks', async () => {
    const dev = new FakeDevice();
    const srv = await startFakeUapiServer(path, dev, { chunkSize: 3 });
    const client = new UapiClient(path);
    try {
      for (let i = 0; i < 20; i++)
        await client.set({
          peers: [{ publicKey: randomKey(), replaceAllowedIps: true, allowedIps: [`10.64.1.${i}/32`] }],
        });
      const state = await client.get();
      expect(state.peers).toHaveLength(20);
      expect(srv.connections()).toBe(1);
    } finally {
      client.close();
      await srv.close();
    }
  });

  it('streams the stats pass: the same counters as get, over the kept connection', async () => {
    const dev = new FakeDevice();
    const srv = await startFakeUapiServer(path, dev, { chunkSize: 5 });
    const client = new UapiClient(path);
    try {
      const keys = Array.from({ length: 30 }, () => randomKey());
      await client.set({
        peers: keys.map((k, i) => ({
          publicKey: k,
          replaceAllowedIps: true,
          allowedIps: [`10.64.2.${i}/32`],
        })),
      });
      keys.forEach((k, i) =>
        Object.assign(dev.peer(k)!, { rx: i * 1000, tx: i, handshake: 1_700_000_000 + i }),
      );
      const streamed: [string, number, number, number][] = [];
      await client.readStats((key, rx, tx, handshake) => streamed.push([key, rx, tx, handshake]));
      expect(streamed).toEqual(keys.map((k, i) => [k, i * 1000, i, 1_700_000_000 + i]));
      // The connection is still good for the next request.
      expect((await client.get()).peers).toHaveLength(30);
      expect(srv.connections()).toBe(1);
    } finally {
      client.close();
      await srv.close();
    }
  });

  it('sends a 5,000-peer set as one transaction in parts, and scans the device peer by peer', async () => {
    const dev = new FakeDevice();
    const srv = await startFakeUapiServer(path, dev);
    const client = new UapiClient(path);
    try {
      const keys = Array.from({ length: 5000 }, () => randomKey());
      await client.set({
        privateKey: priv,
        listenPort: 51999,
        peers: keys.map((k, i) => ({
          publicKey: k,
          replaceAllowedIps: true,
          allowedIps: [`10.65.${i >> 8}.${i & 255}/32`],
        })),
      });
      const seen: string[] = [];
      const header = await client.scan((p) => seen.push(`${p.publicKey} ${p.allowedIps.join()}`));
      expect(header).toEqual({ privateKey: priv, listenPort: 51999, fwmark: 0 });
      expect(seen).toEqual(keys.map((k, i) => `${k} 10.65.${i >> 8}.${i & 255}/32`));
      expect(srv.connections()).toBe(1);
    } finally {
      client.close();
      await srv.close();
    }
  });

  it('opens a fresh connection per request when keepAlive is off', async () => {
    const srv = await startFakeUapiServer(path, new FakeDevice());
    const client = new UapiClient(path, { keepAlive: false });
    try {
      await client.get();
      await client.get();
      expect(srv.connections()).toBe(2);
    } finally {
      await srv.close();
    }
  });

  it('runs concurrent requests one at a time, in order', async () => {
    const dev = new FakeDevice();
    const srv = await startFakeUapiServer(path, dev);
    const client = new UapiClient(path);
    const key = randomKey();
    try {
      await Promise.all([
        client.set({ peers: [{ publicKey: key, replaceAllowedIps: true, allowedIps: ['10.64.0.2/32'] }] }),
        client.set({ peers: [{ publicKey: key, remove: true }] }),
        client.set({ peers: [{ publicKey: key, replaceAllowedIps: true, allowedIps: ['10.64.0.3/32'] }] }),
      ]);
      expect((await client.get()).peers.map((p) => p.allowedIps)).toEqual([['10.64.0.3/32']]);
    } finally {
      client.close();
      await srv.close();
    }
  });

  it('reconnects when the daemon closed the kept connection', async () => {
    const srv = await startFakeUapiServer(path, new FakeDevice());
    const client = new UapiClient(path);
    try {
      await client.get();
      for (const s of srv.sockets) s.destroy();
      await new Promise((r) => setTimeout(r, 20));
      await client.get();
      expect(srv.connections()).toBe(2);
    } finally {
      client.close();
      await srv.close();
    }
  });

  it('rejects errno≠0 and a missing daemon with typed errors', async () => {
    const srv = await startFakeUapiServer(path, new FakeDevice());
    const client = new UapiClient(path);
    try {
      await expect(client.request('set=1\nbogus_key=1\n\n').then((a) => parseGet(a))).rejects.toThrow(
        UapiError,
      );
    } finally {
      client.close();
      await srv.close();
    }
    await expect(new UapiClient(join(dir, 'missing.sock')).get()).rejects.toBeInstanceOf(
      UapiUnavailableError,
    );
  });
});
