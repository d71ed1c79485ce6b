/**
 * Does permessage-deflate pay off on the push websocket? (issue 8, docs/performance.md)
 *
 * Measures, on the messages a customer's socket carries in a typical session (auth, a peer changed
 * by a regenerate, a server move and a plan purchase, their success toasts, a room update), the bytes
 * on the wire with deflate per message (no context takeover), with a shared window (context
 * takeover), and without compression; and the memory a compressing socket keeps (measured: the
 * process's growth over DEFLATE_BENCH_SOCKETS open deflate streams, default 500). Run:
 * `npx tsx server/bench/ws-deflate.bench.ts`.
 */
import { constants, createDeflateRaw, deflateRawSync } from 'node:zlib';

const peer = (id: number, processing: string | null) => ({
  id,
  name: `Móvil de Ana ${id}`,
  active: true,
  expiration_date: '2027-01-15T00:00:00.000Z',
  created: '2026-10-02T18:22:11.000Z',
  address: `10.64.0.${id + 1}`,
  plans_history: [{ plan: 'Mensual', date: '2026-10-02T18:22:11.000Z', price: 5 }],
  server: { id: 1, name: 'La Habana 1', ubication: 'Cuba', endpoint: 'vpn1.example.com:51820' },
  mirror_link: `https://vpn.example.com/api/mirror/${'x'.repeat(43)}`,
  party: null,
  manual_payment: false,
  processing,
});
const session: unknown[] = [
  { type: 'auth', status: 'ok' },
  { type: 'updated_peer', peer: peer(7, 'regenerate') },
  { type: 'updated_peer', peer: peer(7, null) },
  { type: 'success', message: 'Peer regenerado correctamente', peer_id: 7 },
  { type: 'updated_peer', peer: peer(7, 'change_server') },
  { type: 'updated_peer', peer: peer(7, null) },
  { type: 'success', message: 'Servidor cambiado correctamente', peer_id: 7 },
  { type: 'created_peer', peer: peer(8, null) },
  { type: 'success', message: 'Pago recibido: plan Mensual añadido', peer_id: 8 },
  { type: 'new_party_operation', party_id: 3 },
  { type: 'stop_party_operation', party_id: 3 },
];
const frames = session.map((m) => Buffer.from(JSON.stringify(m)));
const header = (n: number) => (n < 126 ? 2 : n < 65536 ? 4 : 10); // server→client frames are unmasked

const plain = frames.reduce((sum, f) => sum + header(f.length) + f.length, 0);
const perMessage = frames.reduce((sum, f) => {
  const z = deflateRawSync(f, { level: 6 }).subarray(0, -4); // ws strips the 00 00 ff ff tail
  return sum + header(z.length) + z.length;
}, 0);

async function withTakeover(): Promise<number> {
  const deflate = createDeflateRaw({ level: 6 });
  let total = 0;
  for (const f of frames) {
    const chunks: Buffer[] = [];
    const onData = (c: Buffer) => chunks.push(c);
    deflate.on('data', onData);
    deflate.write(f);
    await new Promise<void>((r) => deflate.flush(constants.Z_SYNC_FLUSH, () => r()));
    deflate.off('data', onData);
    const z = Buffer.concat(chunks).subarray(0, -4);
    total += header(z.length) + z.length;
  }
  deflate.close();
  return total;
}

const shared = await withTakeover();
const pct = (n: number) => `${Math.round((100 * n) / plain)} %`;
console.log(`${frames.length} mensajes de una sesión típica:`);
console.log(`  sin compresión                  ${plain} B`);
console.log(`  deflate por mensaje             ${perMessage} B (${pct(perMessage)})`);
console.log(`  deflate con ventana compartida  ${shared} B (${pct(shared)})`);

/**
 * The memory a compressing socket keeps: SOCKETS deflate streams with ws's defaults (windowBits 15,
 * memLevel 8, context takeover), each having sent the session's messages and kept open as a
 * socket's would, measured as the growth of the process's RSS divided by their number (zlib's own
 * buffers are malloc'd outside the V8 heap; Node's `external` counts only a small part of them).
 */
async function memoryPerSocket(sockets: number): Promise<number> {
  globalThis.gc?.();
  const before = process.memoryUsage();
  const open: ReturnType<typeof createDeflateRaw>[] = [];
  for (let i = 0; i < sockets; i++) {
    const d = createDeflateRaw({ level: 6, windowBits: 15, memLevel: 8 });
    d.on('data', () => {});
    for (const f of frames) d.write(f);
    await new Promise<void>((r) => d.flush(constants.Z_SYNC_FLUSH, () => r()));
    open.push(d);
  }
  globalThis.gc?.();
  const after = process.memoryUsage();
  for (const d of open) d.close();
  return (after.rss - before.rss) / sockets;
}
const SOCKETS = Number(process.env.DEFLATE_BENCH_SOCKETS ?? 500);
const perSocket = await memoryPerSocket(SOCKETS);
const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
console.log(
  `  memoria por socket con ventana compartida (windowBits 15, memLevel 8; medida con ${SOCKETS} sockets): ` +
    `${kib(perSocket)} de RSS`,
);
