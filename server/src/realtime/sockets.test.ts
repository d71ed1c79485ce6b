/**
 * A push socket lives no longer than the token that opened it: it closes when that token expires,
 * when its session logs out and when the user's sessions are revoked (password change, reset,
 * disable). Pushes carry mirror links, so a socket outliving its session leaks them.
 * (The same across two instances: test/realtimeMultiInstance.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createCustomer,
  createTestApp,
  listen,
  login,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';
import { PushClient } from '../../test/protocolAgent.ts';

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  base = await listen(t);
});
afterAll(async () => {
  await t.close();
});

const changePassword = (access: string, from: string, to: string) =>
  t.app.inject({
    method: 'PATCH',
    url: '/api/client/settings',
    headers: bearer(access),
    payload: { old_password: from, new_password: to },
  });

/** Whether the socket is still open after a round trip through the bus (a push of our own). */
async function stillOpen(push: PushClient, customerId: number): Promise<boolean> {
  const marker = `marca-${Math.random()}`;
  await t.ctx.bus.publish({
    kind: 'user',
    realm: 'customer',
    userId: customerId,
    message: { type: 'info', message: marker },
  });
  await push.waitFor('info', (m) => m.message === marker).catch(() => null);
  return push.closeCode === null;
}

describe('push sockets end with their session', () => {
  it('closes every socket of a customer who changes the password, and the old token opens none', async () => {
    const c = await createCustomer(t);
    const phone = await login(t, c.username, c.password);
    const laptop = await login(t, c.username, c.password);
    const phoneSocket = await PushClient.connect(base, phone.access);
    const laptopSocket = await PushClient.connect(base, laptop.access);

    const res = await changePassword(laptop.access, c.password, 'otra-contraseña-segura');
    expect(res.statusCode).toBe(200);
    expect(await phoneSocket.waitClosed()).toBe(4401);
    expect(await laptopSocket.waitClosed()).toBe(4401);

    const again = await PushClient.connect(base, phone.access);
    expect(await again.waitClosed()).toBe(4401);
    expect(again.messages[0]).toMatchObject({ type: 'auth', status: 'error' });
    // The laptop's fresh tokens open a socket that stays.
    const fresh = await PushClient.connect(base, res.json<{ access: string }>().access);
    expect(await stillOpen(fresh, c.id)).toBe(true);
    fresh.close();
  });

  it('closes the sockets of the session that logs out, not those of the other devices', async () => {
    const c = await createCustomer(t);
    const phone = await login(t, c.username, c.password);
    const laptop = await login(t, c.username, c.password);
    const phoneSocket = await PushClient.connect(base, phone.access);
    const laptopSocket = await PushClient.connect(base, laptop.access);

    await t.app.inject({ method: 'POST', url: '/api/logout', payload: { refresh: phone.refresh } });
    expect(await phoneSocket.waitClosed()).toBe(4401);
    expect(await stillOpen(laptopSocket, c.id)).toBe(true);
    // The logged-out session's access token no longer opens a socket (nor the API).
    const again = await PushClient.connect(base, phone.access);
    expect(await again.waitClosed()).toBe(4401);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/client/accounts/peers',
      headers: bearer(phone.access),
    });
    expect(me.statusCode).toBe(401);
    laptopSocket.close();
  });

  it('closes a socket when the token that opened it expires', async () => {
    const c = await createCustomer(t);
    const { refresh } = await login(t, c.username, c.password);
    expect(refresh).toBeTruthy();
    const shortLived = await t.ctx.sessions.signAccess({ realm: 'customer', id: c.id }, 2);
    const push = await PushClient.connect(base, shortLived);
    expect(await push.waitClosed(10_000)).toBe(4401);
  });

  it("closes a disabled customer's sockets", async () => {
    const c = await createCustomer(t);
    const tokens = await login(t, c.username, c.password);
    const push = await PushClient.connect(base, tokens.access);
    const admin = await managerToken(t);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/customers/${c.id}`,
      headers: bearer(admin),
      payload: { disabled: true, reason: 'Prueba' },
    });
    expect(res.statusCode).toBe(200);
    expect(await push.waitClosed()).toBe(4401);
  });

  it('closes a socket whose token was still being checked when the sessions were revoked', async () => {
    const c = await createCustomer(t);
    const tokens = await login(t, c.username, c.password);
    const sessions = t.ctx.sessions;
    const original = sessions.verifyAccess.bind(sessions);
    let raced = false;
    // The socket's check reads the database first; the password change (and its revocation event)
    // lands after that read and before the socket is registered.
    sessions.verifyAccess = async (token, realm) => {
      const principal = await original(token, realm);
      if (!raced && token === tokens.access) {
        raced = true;
        expect((await changePassword(tokens.access, c.password, 'otra-clave-de-carrera')).statusCode).toBe(
          200,
        );
        await new Promise((r) => setTimeout(r, 50));
      }
      return principal;
    };
    try {
      const push = await PushClient.connect(base, tokens.access);
      expect(raced).toBe(true);
      expect(await push.waitClosed()).toBe(4401);
    } finally {
      sessions.verifyAccess = original;
    }
  });
});
