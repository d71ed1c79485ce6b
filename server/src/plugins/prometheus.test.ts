/**
 * `/metrics` as an operator's Prometheus sees it: hidden without METRICS_TOKEN (even where the SPA
 * answers every other path), refused with a wrong token, and with the right one the fleet, the
 * sockets, invoices, the scheduler, mail and HTTP traffic, moving as things happen.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msg } from '@vpn/contracts';
import { invoices, plans } from '../db/schema.ts';
import { invalidatePlans } from '../services/billing/plans.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  listen,
  login,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';
import { ProtocolAgent, PushClient } from '../../test/protocolAgent.ts';
import { TestSmtp } from '../../test/smtp.ts';

const TOKEN = 'metrics-token-0123456789abcdef';
let dist: string;

beforeAll(() => {
  // An installed SPA: unknown paths get its HTML, which /metrics must never be.
  dist = mkdtempSync(join(tmpdir(), 'vpn-metrics-web-'));
  writeFileSync(
    join(dist, 'index.html'),
    '<!doctype html><html><head><title>SPA</title></head><body></body></html>',
  );
});
afterAll(() => rmSync(dist, { recursive: true, force: true }));

/** One sample's value from the exposition text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('without METRICS_TOKEN', () => {
  it('answers 404 in JSON, not the SPA page, with or without a token', async () => {
    const t = await createTestApp({ env: { WEB_DIST: dist } });
    try {
      expect((await t.app.inject({ url: '/some/page' })).headers['content-type']).toMatch(/text\/html/);
      for (const headers of [{}, bearer(TOKEN)]) {
        const res = await t.app.inject({ url: '/metrics', headers });
        expect(res.statusCode).toBe(404);
        expect(res.headers['content-type']).toMatch(/application\/json/);
        expect(res.json()).toEqual({ message: msg.notFound, code: 'not_found' });
      }
    } finally {
      await t.close();
    }
  });
});

describe('with METRICS_TOKEN', () => {
  let t: TestApp;
  let base: string;
  let smtp: TestSmtp;
  let agent: ProtocolAgent;
  let push: PushClient;
  let owner: string;
  let planId: number;

  beforeAll(async () => {
    smtp = await TestSmtp.start();
    t = await createTestApp({
      env: {
        WEB_DIST: dist,
        METRICS_TOKEN: TOKEN,
        // Every scrape counts peers again: this file checks counts right after changing them.
        METRICS_PEER_COUNTS_SECONDS: '0',
        PUBLIC_URL: 'https://panel.example',
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      },
    });
    base = await listen(t);
    owner = await managerToken(t);
    const [plan] = await t.ctx.db
      .insert(plans)
      .values({ name: 'Mensual', description: 'x', price: '3.50', validity: '30 days' })
      .returning();
    planId = plan!.id;
    invalidatePlans(t.ctx.db);
  });
  afterAll(async () => {
    push?.close();
    await agent?.close();
    await t.close();
    await smtp.close();
  });

  const scrape = async () => {
    const res = await t.app.inject({ url: '/metrics', headers: bearer(TOKEN) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return res.body;
  };

  it('refuses a missing or wrong token with 401', async () => {
    for (const headers of [{}, bearer('metrics-token-0123456789abcdeX'), { authorization: TOKEN }]) {
      const res = await t.app.inject({ url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.body).not.toContain('vpn_');
    }
  });

  it('reports the fleet, sockets, invoices, scheduler, mail and HTTP traffic, and follows them', async () => {
    const before = await scrape();
    expect(sample(before, 'vpn_agents_connected')).toBe(0);
    expect(sample(before, 'vpn_websocket_connections', { kind: 'browser' })).toBe(0);
    expect(sample(before, 'vpn_scheduler_runs_total')).toBeGreaterThanOrEqual(1);
    expect(sample(before, 'vpn_scheduler_failures_total')).toBe(0);
    expect(sample(before, 'vpn_mails_sent_total')).toBe(0);
    expect(sample(before, 'vpn_process_resident_memory_bytes')).toBeGreaterThan(0);

    // A server whose agent connects but does not apply what it is sent yet.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: await confirmed(t, owner),
      payload: { name: 'Uno', endpoint: 'uno.vpn.example:51820', ubication: 'La Habana' },
    });
    const serverId = String(created.json().server.id);
    agent = await ProtocolAgent.connect(base, created.json().agent_token);
    agent.autoAck = false;
    const customer = await createCustomer(t);
    const peer = await t.app.inject({
      method: 'POST',
      url: '/api/admin/peers',
      headers: bearer(owner),
      payload: { username: customer.username, plan: planId, name: 'Móvil', server: Number(serverId) },
    });
    expect(peer.statusCode).toBe(201);
    await agent.until(() => agent.peers.size === 1);
    const { access } = await login(t, customer.username, customer.password);
    push = await PushClient.connect(base, access);
    await t.ctx.db.insert(invoices).values([
      {
        customerId: customer.id,
        operation: 'new_peer',
        planId,
        planName: 'Mensual',
        amount: '3.50',
        gateway: 'qvapay',
      },
      {
        customerId: customer.id,
        operation: 'new_peer',
        planId,
        planName: 'Mensual',
        amount: '3.50',
        gateway: 'qvapay',
        status: 'paid',
      },
      {
        customerId: customer.id,
        operation: 'add_plan',
        planId,
        planName: 'Mensual',
        amount: '3.50',
        gateway: 'qvapay',
        status: 'paid',
      },
    ]);
    expect(await t.ctx.mailer.send({ to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' })).toBe(
      true,
    );
    const mirrorToken = 'secretmirrortoken0123456789';
    expect((await t.app.inject({ url: `/api/mirror/${mirrorToken}` })).statusCode).toBe(404);

    let text = await scrape();
    const server = { server_id: serverId, server: 'Uno' };
    expect(sample(text, 'vpn_agents_connected')).toBe(1);
    // Nothing waits to be stored on an idle instance (the gauge bench:fleet follows under load).
    expect(sample(text, 'vpn_agent_stats_queued_reports')).toBe(0);
    // The delta that brought the agent its peer was built and timed.
    expect(sample(text, 'vpn_agent_update_build_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vpn_server_agent_connected', server)).toBe(1);
    expect(sample(text, 'vpn_websocket_connections', { kind: 'agent' })).toBe(1);
    expect(sample(text, 'vpn_websocket_connections', { kind: 'browser' })).toBe(1);
    expect(sample(text, 'vpn_server_peers', { ...server, state: 'active' })).toBe(1);
    const revision = sample(text, 'vpn_server_revision', server)!;
    expect(revision).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vpn_server_revision_lag', server)).toBe(
      revision - sample(text, 'vpn_server_applied_revision', server)!,
    );
    expect(sample(text, 'vpn_server_revision_lag', server)).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'vpn_invoices', { gateway: 'qvapay', state: 'paid' })).toBe(2);
    expect(sample(text, 'vpn_invoices', { gateway: 'qvapay', state: 'pending' })).toBe(1);
    expect(sample(text, 'vpn_mails_sent_total')).toBe(1);
    expect(
      sample(text, 'vpn_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/admin/peers',
        status_code: '201',
      }),
    ).toBe(1);
    expect(
      sample(text, 'vpn_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/mirror/:token',
        status_code: '404',
      }),
    ).toBe(1);
    // Route patterns only: a URL's token never becomes a label.
    expect(text).not.toContain(mirrorToken);

    // The agent catches up, disconnects; the browser leaves; a mail fails.
    agent.ack();
    await agent.until(() => true);
    await smtp.close();
    expect(await t.ctx.mailer.send({ to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' })).toBe(
      false,
    );
    await agent.close();
    push.close();
    await push.waitClosed();
    for (let i = 0; i < 100 && sample(text, 'vpn_server_revision_lag', server) !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      text = await scrape();
    }
    expect(sample(text, 'vpn_server_revision_lag', server)).toBe(0);
    expect(sample(text, 'vpn_server_applied_revision', server)).toBe(revision);
    expect(sample(text, 'vpn_mails_failed_total')).toBe(1);
    for (let i = 0; i < 100 && sample(text, 'vpn_agents_connected') !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      text = await scrape();
    }
    expect(sample(text, 'vpn_agents_connected')).toBe(0);
    expect(sample(text, 'vpn_server_agent_connected', server)).toBe(0);
    expect(sample(text, 'vpn_websocket_connections', { kind: 'browser' })).toBe(0);
  });
});
