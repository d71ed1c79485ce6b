/**
 * A body over the limit is answered 413 without closing the connection: a reverse proxy (Caddy in
 * deploy/) still sending that body must get the answer, not a reset it turns into 502. Checked on a
 * raw socket with HTTP/1.1 keep-alive: the same socket then serves the next request. And what the
 * router refuses before any handler runs (a too long path segment, a broken %-escape) is answered in
 * Spanish, not with Fastify's English.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msg } from '@vpn/contracts';
import { createTestApp, listen, type TestApp } from '../../test/helpers.ts';

/** Reads one HTTP/1.1 response (headers and a Content-Length body) from the socket. */
function readResponse(socket: Socket): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffer.subarray(0, end).toString();
      const length = Number(/^content-length: (\d+)$/im.exec(head)?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve({ head, body: buffer.subarray(end + 4, end + 4 + length).toString() });
    };
    const onClose = () => reject(new Error(`socket closed; received: ${buffer.toString().slice(0, 200)}`));
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

describe('body over the limit', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ scheduler: false });
    port = Number(new URL(await listen(t)).port);
  });
  afterAll(() => t.close());

  it('answers 413 JSON and keeps the connection for the next request', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    try {
      const body = Buffer.alloc(512 * 1024, 'a');
      socket.write(
        'POST /api/client/login HTTP/1.1\r\nHost: panel\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body);
      const refused = await readResponse(socket);
      expect(refused.head).toMatch(/^HTTP\/1\.1 413 /);
      expect(refused.head).not.toMatch(/^connection: close$/im);
      expect(JSON.parse(refused.body)).toEqual({
        message: 'La solicitud es demasiado grande',
        code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      });
      socket.write('GET /healthz HTTP/1.1\r\nHost: panel\r\n\r\n');
      const next = await readResponse(socket);
      expect(next.head).toMatch(/^HTTP\/1\.1 200 /);
      expect(JSON.parse(next.body)).toEqual({ ok: true });
    } finally {
      socket.destroy();
    }
  });
});

describe('body over the limit, sent slowly or without end', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ scheduler: false });
    port = Number(new URL(await listen(t)).port);
  });
  afterAll(() => t.close());

  async function open() {
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    return socket;
  }

  it('answers only once the whole refused body has arrived, so a proxy never answers mid-upload', async () => {
    // The server's own signal that the refusal was decided: either it starts reading the rest of
    // the body to throw it away, or (before the fix) its answer is finished at once.
    let response: ServerResponse | null = null;
    const decided = new Promise<'discarding' | 'answered'>((resolve) => {
      const onRequest = (req: IncomingMessage, res: ServerResponse) => {
        if (req.method !== 'POST') return;
        t.app.server.off('request', onRequest);
        response = res;
        req.on('newListener', (event) => event === 'data' && resolve('discarding'));
        res.once('finish', () => resolve('answered'));
      };
      t.app.server.on('request', onRequest);
    });
    const socket = await open();
    try {
      const half = Buffer.alloc(256 * 1024, 'a');
      let answered = false;
      socket.once('data', () => (answered = true));
      socket.write(
        'POST /api/client/login HTTP/1.1\r\nHost: panel\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${half.length * 2}\r\n\r\n`,
      );
      socket.write(half);
      // Half the body is there and the refusal decided; before the fix the 413 was already sent.
      expect(await decided).toBe('discarding');
      expect(response!.headersSent).toBe(false);
      expect(answered).toBe(false);
      socket.removeAllListeners('data');
      const refused = readResponse(socket);
      socket.write(half);
      const res = await refused;
      expect(res.head).toMatch(/^HTTP\/1\.1 413 /);
      expect(res.head).not.toMatch(/^connection: close$/im);
    } finally {
      socket.destroy();
    }
  });

  it('past 16 MiB stops reading, answers 413 and closes the connection', async () => {
    const socket = await open();
    try {
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      socket.write(
        'POST /api/client/login HTTP/1.1\r\nHost: panel\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${64 * chunk.length}\r\n\r\n`,
      );
      const refused = readResponse(socket);
      for (let i = 0; i < 17; i++) socket.write(chunk);
      const res = await refused;
      expect(res.head).toMatch(/^HTTP\/1\.1 413 /);
      expect(res.head).toMatch(/^connection: close$/im);
      expect(JSON.parse(res.body)).toEqual({
        message: 'La solicitud es demasiado grande',
        code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      });
    } finally {
      socket.destroy();
    }
  });
});

describe("the router's own refusals", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ scheduler: false });
  });
  afterAll(() => t.close());

  it('a path segment past the router’s limit and a broken %-escape answer in Spanish', async () => {
    const long = await t.app.inject({ method: 'GET', url: `/api/admin/plans/${'a'.repeat(500)}` });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({ message: msg.urlTooLong, code: 'bad_url' });
    const broken = await t.app.inject({ method: 'GET', url: '/api/admin/plans/%E0%A4%A' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toEqual({ message: msg.invalidRequest, code: 'bad_url' });
  });
});
