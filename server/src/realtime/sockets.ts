import type { WebSocket } from 'ws';
import type { PushMessage } from '@vpn/contracts';
import type { Bus, BusEvent } from './bus.ts';

type Key = `${'customer' | 'manager'}:${number}`;

/** The browsers' sockets on this instance, by owner; bus events for a user reach only that user's sockets. */
export class SocketRegistry {
  private readonly sockets = new Map<Key, Set<WebSocket>>();
  private readonly unsubscribe: () => void;

  constructor(bus: Bus) {
    this.unsubscribe = bus.subscribe((e) => this.deliver(e));
  }

  add(realm: 'customer' | 'manager', userId: number, socket: WebSocket): void {
    const key: Key = `${realm}:${userId}`;
    const set = this.sockets.get(key) ?? new Set();
    set.add(socket);
    this.sockets.set(key, set);
    socket.on('close', () => {
      set.delete(socket);
      if (set.size === 0) this.sockets.delete(key);
    });
  }

  private deliver(e: BusEvent): void {
    if (e.kind !== 'user') return;
    const set = this.sockets.get(`${e.realm}:${e.userId}`);
    if (!set) return;
    const text = JSON.stringify(e.message satisfies PushMessage);
    for (const s of set) if (s.readyState === s.OPEN) s.send(text);
  }

  count(): number {
    let n = 0;
    for (const set of this.sockets.values()) n += set.size;
    return n;
  }

  close(): void {
    this.unsubscribe();
    for (const set of this.sockets.values()) for (const s of set) s.close(1001, 'shutdown');
  }
}
