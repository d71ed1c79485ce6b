/**
 * A fake of the browser's WebSocket for component tests: every socket the app opens is recorded,
 * and the test plays the server (accept, push a message, drop the connection).
 */
import { act } from '@testing-library/react';
import type { PushMessage } from '@vpn/contracts';

export class FakeWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static instances: FakeWebSocket[] = [];

  readyState = FakeWebSocket.CONNECTING;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  /** Set when the page closed it. */
  closedByClient = false;

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
  }

  /** The access token the socket was opened with. */
  get token(): string | null {
    return new URL(this.url).searchParams.get('token');
  }

  get isOpen(): boolean {
    return this.readyState === FakeWebSocket.OPEN;
  }

  close(): void {
    this.closedByClient = true;
    this.readyState = FakeWebSocket.CLOSED;
  }

  send(): void {
    /* the page never sends */
  }

  // --- the server's side -------------------------------------------------------------------

  /** Opens the socket and answers `auth` ok, as the control plane does for a valid token. */
  accept(): void {
    act(() => {
      this.readyState = FakeWebSocket.OPEN;
      this.onopen?.(new Event('open'));
      this.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ type: 'auth', status: 'ok' }) }));
    });
  }

  /** Opens the socket, then refuses the token and closes (4401), as the control plane does. */
  refuse(): void {
    act(() => {
      this.readyState = FakeWebSocket.OPEN;
      this.onopen?.(new Event('open'));
      this.onmessage?.(
        new MessageEvent('message', {
          data: JSON.stringify({ type: 'auth', status: 'error', message: 'No autorizado' }),
        }),
      );
    });
    this.drop(4401);
  }

  /** Sends a message (a PushMessage, or anything else to test what the page ignores). */
  push(message: PushMessage | string | { type: string; [key: string]: unknown }): void {
    const data = typeof message === 'string' ? message : JSON.stringify(message);
    act(() => this.onmessage?.(new MessageEvent('message', { data })));
  }

  /** The connection ends from the server's side (or the network's). */
  drop(code = 1006): void {
    act(() => {
      this.readyState = FakeWebSocket.CLOSED;
      this.onclose?.(new CloseEvent('close', { code }));
    });
  }

  /** The open sockets (the page should never hold more than one). */
  static open(): FakeWebSocket[] {
    return FakeWebSocket.instances.filter((s) => !s.closedByClient && s.readyState !== FakeWebSocket.CLOSED);
  }

  static latest(): FakeWebSocket | undefined {
    return FakeWebSocket.instances[FakeWebSocket.instances.length - 1];
  }
}
