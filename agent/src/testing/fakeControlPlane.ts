/**
 * A fake control plane for tests and the benchmark: a `ws` server on 127.0.0.1 that accepts the
 * agent at `/api/agent/ws` with one bearer token, records what it sends and lets the test answer.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { AGENT_MAX_MESSAGE_BYTES, AgentToServer } from '@vpn/contracts/agent';

export interface ReceivedMessage {
  at: number;
  /** Which connection it came on (1, 2, …). */
  conn: number;
  message: AgentToServer;
  /** Size of the websocket message as received. */
  bytes: number;
}

export interface FakeControlPlane {
  url: string;
  received: ReceivedMessage[];
  /** Connection attempts that passed authentication, with their times. */
  connections: { at: number; conn: number }[];
  /** Close codes of finished connections (1000 = the agent closed cleanly). */
  closes: { conn: number; code: number }[];
  /** Upgrade attempts refused for a bad token. */
  rejected: number;
  /** Sends a message (object or raw text) to the latest connection. */
  send(msg: object | string): void;
  /** Resolves the first message (after index `from`) that matches. */
  waitFor(
    pred: (m: AgentToServer) => boolean,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<ReceivedMessage>;
  /** Closes every agent connection abruptly (the agent must reconnect). */
  dropAll(): void;
  close(): Promise<void>;
}

export async function startFakeControlPlane(options: {
  token: string;
  /** Called when an agent connects (after auth); send welcome/snapshot from here. */
  onConnect?: (send: (msg: object) => void, conn: number) => void;
  /** Answer each heartbeat with one, as the real hub does (default off: tests of the idle timeout). */
  answerHeartbeats?: boolean;
}): Promise<FakeControlPlane> {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    path: '/api/agent/ws',
    // The real control plane's limit: a bigger message closes the connection there too.
    maxPayload: AGENT_MAX_MESSAGE_BYTES,
    verifyClient: (info, cb) => {
      const ok = info.req.headers.authorization === `Bearer ${options.token}`;
      if (!ok) fake.rejected++;
      cb(ok, 401);
    },
  });
  await once(wss, 'listening');
  const port = (wss.address() as AddressInfo).port;
  let latest: WebSocket | null = null;
  let count = 0;
  const waiters: {
    pred: (m: AgentToServer) => boolean;
    from: number;
    resolve: (m: ReceivedMessage) => void;
  }[] = [];

  const fake: FakeControlPlane = {
    url: `http://127.0.0.1:${port}`,
    received: [],
    connections: [],
    closes: [],
    rejected: 0,
    send(msg) {
      latest?.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
    },
    waitFor(pred, { from = 0, timeoutMs = 10_000 } = {}) {
      const found = fake.received.slice(from).find((r) => pred(r.message));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error('el agente no envió el mensaje esperado')),
          timeoutMs,
        );
        waiters.push({
          pred,
          from,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      });
    },
    dropAll() {
      for (const c of wss.clients) c.terminate();
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };

  wss.on('connection', (ws) => {
    const conn = ++count;
    latest = ws;
    fake.connections.push({ at: Date.now(), conn });
    ws.on('close', (code) => fake.closes.push({ conn, code }));
    ws.on('message', (data) => {
      const parsed = AgentToServer.safeParse(JSON.parse(String(data)));
      if (!parsed.success) throw new Error(`el agente envió un mensaje fuera del protocolo: ${String(data)}`);
      const rec = { at: Date.now(), conn, message: parsed.data, bytes: (data as Buffer).length };
      fake.received.push(rec);
      if (options.answerHeartbeats && parsed.data.type === 'heartbeat')
        ws.send(JSON.stringify({ type: 'heartbeat', at: Date.now() }));
      const index = fake.received.length - 1;
      for (const w of [...waiters]) {
        if (index >= w.from && w.pred(rec.message)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(rec);
        }
      }
    });
    options.onConnect?.((msg) => ws.send(JSON.stringify(msg)), conn);
  });
  return fake;
}
