import type { WebSocket } from 'ws';
import { can, type AdminPush, type PushMessage } from '@vpn/contracts';
import type { Bus, BusEvent } from './bus.ts';

type Key = `${'customer' | 'manager'}:${number}`;

/** What a socket is admitted for (services/identity/sessions.ts' Principal has these fields). */
export interface SocketPrincipal {
  realm: 'customer' | 'manager';
  id: number;
  role?: string;
  session?: string;
  /** When the access token expires (ms since the epoch): the socket closes then. */
  expiresAt?: number;
}

/** A socket is admitted with a token and lives no longer than it: until it expires or is revoked. */
const CLOSE_TOKEN_OVER = 4401;
/** How long a revocation is remembered for sockets whose token check was still running (≫ a DB read). */
const REVOCATION_MEMORY_MS = 60_000;

/** The browsers' sockets on this instance, by owner; bus events for a user reach only that user's sockets. */
export class SocketRegistry {
  private readonly sockets = new Map<Key, Set<WebSocket>>();
  /** Managers' sockets with their role, for console broadcasts filtered by permission. */
  private readonly managerRoles = new Map<WebSocket, string>();
  /** The session each socket's token belongs to (logout closes only that session's sockets). */
  private readonly sessions = new Map<WebSocket, string>();
  /** The token each socket was admitted with, checked again when revocations may have been missed. */
  private readonly tokens = new Map<WebSocket, { realm: SocketPrincipal['realm']; token: string }>();
  /**
   * Revocations of the last minute, by user: a socket's token is checked (a database read) before
   * it is registered, and a revocation delivered during that read would otherwise miss the socket.
   */
  private readonly recentRevocations = new Map<Key, { at: number; session?: string }[]>();
  private readonly unsubscribe: () => void;

  constructor(
    bus: Bus,
    /** Whether a token still opens a session (SessionService.verifyAccess). */
    private readonly stillValid: (
      token: string,
      realm: SocketPrincipal['realm'],
    ) => Promise<boolean> = async () => true,
  ) {
    this.unsubscribe = bus.subscribe((e) => this.deliver(e));
  }

  /**
   * Registers a socket admitted with `principal`'s token. It is closed (4401, as a refused token)
   * when that token expires, and by a `revoked` event for its user or its session, including one
   * delivered since `checkedAt`, when its token began to be checked: then the socket is not
   * registered and `false` is returned (the caller refuses it like an invalid token).
   */
  add(principal: SocketPrincipal, socket: WebSocket, token: string, checkedAt = Date.now()): boolean {
    const { realm, id } = principal;
    const key: Key = `${realm}:${id}`;
    const missed = this.recentRevocations
      .get(key)
      ?.some((r) => r.at >= checkedAt && (!r.session || r.session === principal.session));
    if (missed) return false;
    const set = this.sockets.get(key) ?? new Set();
    set.add(socket);
    this.sockets.set(key, set);
    if (realm === 'manager') this.managerRoles.set(socket, principal.role ?? '');
    if (principal.session) this.sessions.set(socket, principal.session);
    this.tokens.set(socket, { realm, token });
    const expiry =
      principal.expiresAt === undefined
        ? undefined
        : setTimeout(
            () => socket.close(CLOSE_TOKEN_OVER, 'expired'),
            Math.max(0, principal.expiresAt - Date.now()),
          );
    expiry?.unref();
    socket.on('close', () => {
      clearTimeout(expiry);
      set.delete(socket);
      this.managerRoles.delete(socket);
      this.sessions.delete(socket);
      this.tokens.delete(socket);
      if (set.size === 0) this.sockets.delete(key);
    });
    return true;
  }

  private deliver(e: BusEvent): void {
    if (e.kind === 'managers') {
      const text = JSON.stringify(e.message satisfies AdminPush);
      for (const [s, role] of this.managerRoles)
        if (s.readyState === s.OPEN && can(role, e.permission)) s.send(text);
      return;
    }
    if (e.kind === 'reconnected') {
      // `revoked` events may have been lost meanwhile: every socket's token is checked again.
      for (const [s, { realm, token }] of this.tokens)
        void this.stillValid(token, realm).then((ok) => {
          if (!ok) s.close(CLOSE_TOKEN_OVER, 'revoked');
        });
      return;
    }
    if (e.kind === 'revoked') {
      const key: Key = `${e.realm}:${e.userId}`;
      this.remember(key, e.session);
      // 4401 like a refused token: the SPA's socket sees its session is over.
      for (const s of this.sockets.get(key) ?? [])
        if (!e.session || this.sessions.get(s) === e.session) s.close(CLOSE_TOKEN_OVER, 'revoked');
      return;
    }
    if (e.kind === 'users') {
      for (const p of e.pushes) this.sendTo(p.realm, p.userId, p.message);
      return;
    }
    if (e.kind === 'user') this.sendTo(e.realm, e.userId, e.message);
  }

  /** A message to every open socket of one user on this instance. */
  private sendTo(realm: 'customer' | 'manager', userId: number, message: PushMessage): void {
    const set = this.sockets.get(`${realm}:${userId}`);
    if (!set) return;
    const text = JSON.stringify(message satisfies PushMessage);
    for (const s of set) if (s.readyState === s.OPEN) s.send(text);
  }

  private remember(key: Key, session?: string): void {
    const now = Date.now();
    for (const [k, list] of this.recentRevocations) {
      const kept = list.filter((r) => now - r.at < REVOCATION_MEMORY_MS);
      if (kept.length) this.recentRevocations.set(k, kept);
      else this.recentRevocations.delete(k);
    }
    this.recentRevocations.set(key, [...(this.recentRevocations.get(key) ?? []), { at: now, session }]);
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
