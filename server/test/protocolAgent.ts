/**
 * A protocol-level stand-in for a node agent, for API tests that are about the control plane
 * (acks, busy states, push messages). It keeps the desired peers in a map instead of a WireGuard
 * interface; the real agent is tested on real wireguard-go in agent/ and in the data-plane tests.
 */
import WebSocket from 'ws';
import { AGENT_PROTOCOL_VERSION, ServerToAgent, type AgentPeer, type AgentRelayRoom } from '@vpn/contracts';

/** A test agent's `hello` as sent on its socket (fields of `extra` added or replaced). */
export function helloFrame(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'hello',
    protocol: AGENT_PROTOCOL_VERSION,
    agent_version: 'test',
    hostname: 'test',
    revision: 0,
    backend: 'wireguard-go',
    ...extra,
  });
}

export class ProtocolAgent {
  readonly peers = new Map<string, AgentPeer>();
  /** Room pairs as `source>destination`, from snapshots and (hello `room_deltas`) deltas. */
  readonly roomPairs = new Set<string>();
  /** The relay's rooms by id, likewise. */
  readonly relayRooms = new Map<number, AgentRelayRoom>();
  readonly received: ServerToAgent[] = [];
  revision = 0;
  autoAck = true;
  private socket!: WebSocket;
  private waiters: (() => void)[] = [];
  /** The close code once the socket closes. */
  closedWith!: Promise<number>;

  static async connect(
    baseUrl: string,
    token: string,
    options: {
      snapshotParts?: boolean;
      hello?: Record<string, unknown>;
      autoAck?: boolean;
      /** Off: no heartbeats (a test counting the statements of one change). */
      heartbeats?: boolean;
      /**
       * A reconnection of this agent, still holding its state (hello's `resume`): its peers, room
       * pairs and revision carry over, and connecting ends at the welcome (a resumed agent may be
       * sent nothing).
       */
      resumeFrom?: ProtocolAgent;
    } = {},
  ): Promise<ProtocolAgent> {
    const agent = new ProtocolAgent();
    const from = options.resumeFrom;
    if (from) {
      for (const [k, p] of from.peers) agent.peers.set(k, p);
      for (const pair of from.roomPairs) agent.roomPairs.add(pair);
      for (const [id, r] of from.relayRooms) agent.relayRooms.set(id, r);
      agent.revision = from.revision;
    }
    // Off: not even the first snapshot is acknowledged until the test says so.
    agent.autoAck = options.autoAck ?? true;
    await agent.open(
      baseUrl,
      token,
      options.snapshotParts === true,
      from ? { revision: from.revision, resume: true, ...options.hello } : (options.hello ?? {}),
      options.heartbeats ?? true,
    );
    return agent;
  }

  private open(
    baseUrl: string,
    token: string,
    snapshotParts: boolean,
    hello: Record<string, unknown>,
    heartbeats: boolean,
  ): Promise<void> {
    let parts = 1;
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/agent/ws`, {
        headers: { authorization: `Bearer ${token}` },
      });
      this.socket = ws;
      this.closedWith = new Promise((r) => ws.once('close', (code) => r(code)));
      ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.on('error', reject);
      ws.on('open', () => {
        ws.send(helloFrame({ ...(snapshotParts ? { snapshot_parts: true } : {}), ...hello }));
        // Heartbeats like the real agent's (every 15 s there): a long test file must not see the
        // server counted offline (agentOnline's 45 s window) while this agent is connected.
        if (!heartbeats) return;
        const beat = setInterval(() => {
          if (ws.readyState === WebSocket.OPEN)
            ws.send(JSON.stringify({ type: 'heartbeat', at: Date.now() }));
        }, 10_000);
        beat.unref();
        ws.once('close', () => clearInterval(beat));
      });
      ws.on('message', (data) => {
        const msg = ServerToAgent.parse(JSON.parse(data.toString()));
        this.received.push(msg);
        if (msg.type === 'welcome' && hello.resume === true) return resolve();
        if (msg.type === 'snapshot') {
          this.peers.clear();
          for (const p of msg.peers) this.peers.set(p.public_key, p);
          this.roomPairs.clear();
          for (const [a, b] of msg.room_pairs ?? []) this.roomPairs.add(`${a}>${b}`);
          this.relayRooms.clear();
          for (const r of msg.relay?.rooms ?? []) this.relayRooms.set(r.id, r);
          this.revision = msg.revision;
          parts = msg.parts ?? 1;
          if (parts > 1) return;
          resolve();
        } else if (msg.type === 'snapshot_peers') {
          for (const p of msg.peers) this.peers.set(p.public_key, p);
          if (msg.part < parts) return;
          resolve();
        } else if (msg.type === 'delta') {
          for (const k of msg.remove) this.peers.delete(k);
          for (const p of msg.upsert) this.peers.set(p.public_key, p);
          for (const [a, b] of msg.room_pairs_remove ?? []) this.roomPairs.delete(`${a}>${b}`);
          for (const [a, b] of msg.room_pairs_add ?? []) this.roomPairs.add(`${a}>${b}`);
          for (const id of msg.relay_rooms_remove ?? []) this.relayRooms.delete(id);
          for (const r of msg.relay_rooms ?? []) this.relayRooms.set(r.id, r);
          this.revision = msg.revision;
        } else return;
        if (this.autoAck) this.ack();
        for (const w of this.waiters.splice(0)) w();
      });
    });
  }

  ack(revision = this.revision): void {
    this.socket.send(JSON.stringify({ type: 'ack', revision }));
  }

  send(raw: unknown): void {
    this.socket.send(typeof raw === 'string' ? raw : JSON.stringify(raw));
  }

  /**
   * Resolves when `check` holds, re-checked after every snapshot or delta. The generous default is
   * for a loaded CI machine (a change reaches the agent through the bus and the hub's queue); a
   * passing check returns as soon as it holds.
   */
  async until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('agent state not reached');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  /** Stops reading from the socket, like an agent behind a dead link (it will not answer a close). */
  stall(): void {
    this.socket.pause();
  }

  /** Drops the TCP connection without a closing handshake (the control plane sees it close). */
  terminate(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.terminate();
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}

/** A browser's `/ws` connection collecting push messages. */
export class PushClient {
  readonly messages: { type: string; [k: string]: unknown }[] = [];
  /** The close code once the server (or this client) closed the socket. */
  closeCode: number | null = null;
  private socket!: WebSocket;

  static async connect(baseUrl: string, token: string): Promise<PushClient> {
    const c = new PushClient();
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(token)}`);
      c.socket = ws;
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as { type: string };
        c.messages.push(m);
        if (m.type === 'auth') resolve();
      });
      ws.on('error', reject);
      ws.on('close', (code) => {
        c.closeCode = code;
      });
    });
    return c;
  }

  /** Waits until the socket is closed and returns the close code. */
  async waitClosed(timeoutMs = 5000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === null) {
      if (Date.now() > deadline) throw new Error('the socket was not closed');
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.closeCode;
  }

  async waitFor(
    type: string,
    pred: (m: { type: string; [k: string]: unknown }) => boolean = () => true,
    timeoutMs = 5000,
  ) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((m) => m.type === type && pred(m));
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no ${type} message; got ${JSON.stringify(this.messages.map((m) => m.type))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Sends a raw frame (browsers only listen; tests probe the limits). */
  send(data: string): void {
    this.socket.send(data);
  }

  close(): void {
    this.socket.close();
  }
}
