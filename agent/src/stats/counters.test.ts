import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyFromHex } from '../keys.ts';
import { FakeDevice, startFakeUapiServer } from '../testing/fakeWg.ts';
import { UapiClient, UapiError } from '../uapi.ts';
import { CAPTURE_BLOCK, CounterCapture, StatsStreamParser, type PeerCountersVisitor } from './counters.ts';
import { collectGarbage } from './heap.ts';

const PEERS = 20_000;

/** A device of `n` peers with counters past 2^32 and endpoints, like a busy server's. */
function busyDevice(n: number): FakeDevice {
  const device = new FakeDevice();
  for (let i = 0; i < n; i++)
    device.peers.set(randomBytes(32).toString('hex'), {
      psk: randomBytes(32).toString('hex'),
      allowedIps: [`10.${64 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}/32`],
      rx: 5_000_000_000 + i,
      tx: 7_000_000_000 + 3 * i,
      handshake: 1_790_000_000 + i,
      endpoint: `198.51.${(i >> 8) & 255}.${i & 255}:${20_000 + (i % 40_000)}`,
      keepalive: 0,
    });
  return device;
}

describe('the stats pass memory (issue 33: the agent RSS tail at 50,000 peers)', () => {
  it('holds ~80 bytes a peer while it reads, and allocates nothing more on the next pass', async () => {
    // The bytes of ArrayBuffers and Buffers alive while a pass visits its first peer, over those
    // alive before the pass (after a full collection). Copying the raw answer (~360 bytes a peer
    // here, ~300 from wireguard-go) held all of it at that point, in blocks allocated anew every
    // pass that only a full collection gave back: 11–28 MB between passes at 50,000 peers.
    const dir = mkdtempSync(join(tmpdir(), 'stats-mem-'));
    const path = join(dir, 'wgmem0.sock');
    const device = busyDevice(PEERS);
    const srv = await startFakeUapiServer(path, device, { chunkSize: 16 * 1024 });
    const client = new UapiClient(path);
    try {
      const pass = async () => {
        collectGarbage();
        const before = process.memoryUsage().arrayBuffers;
        let held = -1;
        let peers = 0;
        let last: Parameters<PeerCountersVisitor> | null = null;
        await client.readStats((...reading) => {
          if (held < 0) held = process.memoryUsage().arrayBuffers - before;
          peers++;
          last = reading;
        });
        return { held, peers, last };
      };
      const first = await pass();
      expect(first.peers).toBe(PEERS);
      const [hex, p] = [...device.peers].at(-1)!;
      expect(first.last).toEqual([keyFromHex(hex), p.rx, p.tx, p.handshake, p.endpoint]);
      // The first pass sizes the capture (and the connection's 64 KiB read buffer).
      expect(first.held / PEERS).toBeLessThan(100);
      expect(client.statsCapacity).toBeLessThanOrEqual(80 * PEERS + CAPTURE_BLOCK);
      const second = await pass();
      expect(second.peers).toBe(PEERS);
      // The next pass writes into the same blocks: at most what the server's own writes still hold.
      expect(second.held / PEERS).toBeLessThan(4);
      // A device that shrank gives its blocks back.
      for (const key of [...device.peers.keys()].slice(0, PEERS - 1_000)) device.peers.delete(key);
      expect((await pass()).peers).toBe(1_000);
      expect(client.statsCapacity).toBeLessThanOrEqual(80 * 1_000 + CAPTURE_BLOCK);
    } finally {
      client.close();
      await srv.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('CounterCapture', () => {
  const hexKey = 'ab'.repeat(32);

  it('reads counters split anywhere, reports an over-long endpoint as none, and checks the errno', () => {
    const text =
      `private_key=${'11'.repeat(32)}\nlisten_port=51820\n` +
      `public_key=${hexKey}\npreshared_key=${'00'.repeat(32)}\nprotocol_version=1\n` +
      `endpoint=[2001:db8::1]:51820\nlast_handshake_time_sec=1790000000\nlast_handshake_time_nsec=5\n` +
      `tx_bytes=9007199254740000\nrx_bytes=12\npersistent_keepalive_interval=0\nallowed_ip=10.64.0.2/32\n` +
      `public_key=${'CD'.repeat(32)}\nendpoint=${'x'.repeat(65)}\nrx_bytes=1\n` +
      `public_key=${'ef'.repeat(32)}\nerrno=0\n\n`;
    const seen: unknown[][] = [];
    const parser = new StatsStreamParser((...r) => seen.push(r));
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i++) parser.push(bytes.subarray(i, i + 1));
    parser.end();
    expect(seen).toEqual([
      [keyFromHex(hexKey), 12, 9007199254740000, 1790000000, '[2001:db8::1]:51820'],
      [keyFromHex('cd'.repeat(32)), 1, 0, 0, null],
      [keyFromHex('ef'.repeat(32)), 0, 0, 0, null],
    ]);

    const failed = new CounterCapture();
    failed.begin();
    failed.push(Buffer.from(`public_key=${hexKey}\nerrno=22\n\n`));
    expect(() => failed.end()).toThrow(UapiError);
    const cut = new CounterCapture();
    cut.begin();
    cut.push(Buffer.from(`public_key=${hexKey}\nrx_bytes=1`));
    expect(() => cut.end()).toThrow(/sin errno/);
    const bad = new CounterCapture();
    bad.begin();
    expect(() => bad.push(Buffer.from(`public_key=${'zz'.repeat(32)}\n`))).toThrow(/clave WireGuard/);
  });
});
