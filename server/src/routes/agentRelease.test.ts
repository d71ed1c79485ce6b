/**
 * The agent file, its install script and "Actualizar agente" at the protocol level (the real agent
 * replacing itself under traffic is server/test/dataplane/agentInstall.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, servers } from '../db/schema.ts';
import { bearer, confirmed, createTestApp, listen, managerToken, type TestApp } from '../../test/helpers.ts';
import { ProtocolAgent } from '../../test/protocolAgent.ts';

const dir = mkdtempSync(join(tmpdir(), 'vpn-agent-release-'));
const file = join(dir, 'vpn-agent.mjs');
// A stand-in agent file: what matters here is its banner (the version) and its exact bytes.
const contents = '#!/usr/bin/env node\n// vpn-agent 9.8.7: test file\nconsole.log("9.8.7");\n';
const sha256 = createHash('sha256').update(contents).digest('hex');

const METRICS = 'metricas-de-prueba-123';

let t: TestApp;
let base: string;
let owner: string;
const agents: ProtocolAgent[] = [];

beforeAll(async () => {
  writeFileSync(file, contents);
  t = await createTestApp({
    scheduler: false,
    agentFile: file,
    env: { PUBLIC_URL: 'https://panel.example.com', METRICS_TOKEN: METRICS },
  });
  base = await listen(t);
  owner = await managerToken(t);
});

afterAll(async () => {
  for (const a of agents) await a.terminate();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function newServer(name: string): Promise<{ id: number; token: string; command: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, owner),
    payload: { name, endpoint: `${name.toLowerCase()}.vpn.example:51820`, ubication: 'Lab' },
  });
  expect(res.statusCode).toBe(201);
  const body = res.json<{ server: { id: number }; agent_token: string; install_command: string }>();
  return { id: body.server.id, token: body.agent_token, command: body.install_command };
}

const detail = async (id: number) =>
  (await t.app.inject({ method: 'GET', url: `/api/admin/servers/${id}`, headers: bearer(owner) })).json<{
    agent_version: string | null;
    agent_node_version: string | null;
    agent_outdated: boolean;
    agent_latest_version: string | null;
    agent_upgrade: { status: string; version: string | null; error: string | null } | null;
  }>();

const upgrade = (id: number, token = owner) =>
  t.app.inject({ method: 'POST', url: `/api/admin/servers/${id}/agent-upgrade`, headers: bearer(token) });

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`no se cumplió: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the agent file and its install script', () => {
  it('serves the install script with this panel, the version and the SHA-256 of the file', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/agent/install.sh' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/x-shellscript');
    // PUBLIC_URL of the test configuration; the hash computed here from the bytes written above.
    expect(res.body).toContain("PANEL_URL='https://panel.example.com'");
    expect(res.body).toContain("AGENT_VERSION='9.8.7'");
    expect(res.body).toContain(`AGENT_SHA256='${sha256}'`);
    const syntax = spawnSync('bash', ['-n'], { input: res.body, encoding: 'utf8' });
    expect(syntax.stderr).toBe('');
    expect(syntax.status).toBe(0);
  });

  it('says version and hash, and gives the file only for a server agent token', async () => {
    const release = await t.app.inject({ method: 'GET', url: '/api/agent/release' });
    expect(release.json()).toEqual({ version: '9.8.7', sha256, size: contents.length, min_node: '18.19.0' });
    const s = await newServer('Archivo');
    expect((await t.app.inject({ method: 'GET', url: '/api/agent/vpn-agent.mjs' })).statusCode).toBe(401);
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/api/agent/vpn-agent.mjs',
      headers: bearer('x'.repeat(43)),
    });
    expect(wrong.statusCode).toBe(401);
    // A manager's session is not an agent token either.
    const manager = await t.app.inject({
      method: 'GET',
      url: '/api/agent/vpn-agent.mjs',
      headers: bearer(owner),
    });
    expect(manager.statusCode).toBe(401);
    const ok = await t.app.inject({
      method: 'GET',
      url: '/api/agent/vpn-agent.mjs',
      headers: bearer(s.token),
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe(contents);
    expect(ok.headers['x-agent-sha256']).toBe(sha256);
  });

  it('follows a rebuilt file, and answers 503 in Spanish while there is none', async () => {
    const newer = contents.replaceAll('9.8.7', '9.8.8');
    writeFileSync(file, newer);
    const res = await t.app.inject({ method: 'GET', url: '/api/agent/release' });
    expect(res.json()).toMatchObject({
      version: '9.8.8',
      sha256: createHash('sha256').update(newer).digest('hex'),
    });
    rmSync(file);
    const missing = await t.app.inject({ method: 'GET', url: '/api/agent/install.sh' });
    expect(missing.statusCode).toBe(503);
    expect(missing.json().message).toContain('El archivo del agente no está compilado');
    writeFileSync(file, contents);
  });
});

describe('agent versions and "Actualizar agente"', () => {
  it('records version and Node of the hello, marks older agents, and upgrades a connected one', async () => {
    const s = await newServer('Versiones');
    const agent = await ProtocolAgent.connect(base, s.token, {
      hello: { agent_version: '9.8.6', node_version: '18.19.1', upgrade: true },
    });
    agents.push(agent);
    await eventually(async () => (await detail(s.id)).agent_version === '9.8.6', 'versión registrada');
    let d = await detail(s.id);
    expect(d).toMatchObject({
      agent_node_version: '18.19.1',
      agent_outdated: true,
      agent_latest_version: '9.8.7',
      agent_upgrade: null,
    });
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/admin/servers?q=Versiones',
      headers: bearer(owner),
    });
    expect(list.json().results[0]).toMatchObject({ agent_version: '9.8.6', agent_outdated: true });
    // Prometheus: the versions as labels, and whether the agent is older than the panel's file.
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS) });
    expect(metrics.body).toContain(
      `vpn_server_agent_info{server_id="${s.id}",server="Versiones",version="9.8.6",node_version="18.19.1",outdated="true"} 1`,
    );

    const res = await upgrade(s.id);
    expect(res.statusCode).toBe(202);
    expect(res.json().agent_upgrade).toMatchObject({ status: 'pending', version: '9.8.7' });
    await eventually(() => agent.received.some((m) => m.type === 'upgrade'), 'upgrade recibido');
    expect(agent.received.find((m) => m.type === 'upgrade')).toEqual({
      type: 'upgrade',
      version: '9.8.7',
      sha256,
    });
    const [audit] = await t.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'server.agent_upgrade'));
    expect(audit).toBeDefined();

    // The agent could not: the console shows its sentence and the old version keeps running.
    agent.send({
      type: 'upgrade_result',
      version: '9.8.7',
      status: 'failed',
      message: 'EROFS: sistema de archivos de solo lectura',
    });
    await eventually(async () => (await detail(s.id)).agent_upgrade?.status === 'failed', 'fallo registrado');
    d = await detail(s.id);
    expect(d.agent_upgrade?.error).toBe('EROFS: sistema de archivos de solo lectura');
    expect(d.agent_version).toBe('9.8.6');

    // Asked again, it restarts and comes back with the new version: the upgrade is done.
    expect((await upgrade(s.id)).statusCode).toBe(202);
    await eventually(
      () => agent.received.filter((m) => m.type === 'upgrade').length === 2,
      'segundo upgrade',
    );
    agent.send({ type: 'upgrade_result', version: '9.8.7', status: 'restarting' });
    await eventually(async () => (await detail(s.id)).agent_upgrade?.status === 'restarting', 'reiniciando');
    await agent.terminate();
    const upgraded = await ProtocolAgent.connect(base, s.token, {
      hello: { agent_version: '9.8.7', node_version: '18.19.1', upgrade: true },
    });
    agents.push(upgraded);
    await eventually(async () => (await detail(s.id)).agent_upgrade === null, 'actualización terminada');
    d = await detail(s.id);
    expect(d).toMatchObject({ agent_version: '9.8.7', agent_outdated: false });
  });

  it('shows, in Spanish, an upgrade the agent rolled back by itself after the new file crashed', async () => {
    const s = await newServer('Revertido');
    const agent = await ProtocolAgent.connect(base, s.token, {
      hello: { agent_version: '9.8.6', node_version: '18.19.1', upgrade: true },
    });
    agents.push(agent);
    await eventually(async () => (await detail(s.id)).agent_version === '9.8.6', 'versión registrada');
    expect((await upgrade(s.id)).statusCode).toBe(202);
    await eventually(() => agent.received.some((m) => m.type === 'upgrade'), 'upgrade recibido');
    agent.send({ type: 'upgrade_result', version: '9.8.7', status: 'restarting' });
    await eventually(async () => (await detail(s.id)).agent_upgrade?.status === 'restarting', 'reiniciando');
    await agent.terminate();
    // The new file died in its first minute; the previous one is back and says so in its hello.
    const back = await ProtocolAgent.connect(base, s.token, {
      hello: {
        agent_version: '9.8.6',
        node_version: '18.19.1',
        upgrade: true,
        rolled_back: { from: '9.8.7', reason: 'TypeError: peers is not iterable' },
      },
    });
    agents.push(back);
    await eventually(async () => (await detail(s.id)).agent_upgrade?.status === 'failed', 'vuelta atrás');
    expect((await detail(s.id)).agent_upgrade).toMatchObject({
      status: 'failed',
      version: '9.8.7',
      error:
        'El agente 9.8.7 se cerró con un error en su primer minuto (TypeError: peers is not iterable) y volvió solo al archivo anterior, la versión 9.8.6.',
    });
    expect((await detail(s.id)).agent_version).toBe('9.8.6');
  });

  it('says why an agent that predates self-upgrade cannot, and refuses an offline one', async () => {
    const s = await newServer('Antiguo');
    expect((await upgrade(s.id)).statusCode).toBe(409);
    expect((await upgrade(s.id)).json().message).toBe(
      'El agente de este servidor no está conectado: no se le puede pedir que se actualice.',
    );
    // An agent from before this protocol addition: no node_version, no upgrade in its hello.
    const old = await ProtocolAgent.connect(base, s.token, { hello: { agent_version: '0.1.0' } });
    agents.push(old);
    await eventually(async () => (await detail(s.id)).agent_version === '0.1.0', 'hello antiguo');
    expect((await detail(s.id)).agent_node_version).toBeNull();
    expect((await upgrade(s.id)).statusCode).toBe(202);
    await eventually(async () => (await detail(s.id)).agent_upgrade?.status === 'failed', 'fallo');
    expect((await detail(s.id)).agent_upgrade?.error).toContain(
      'vuelva a ejecutar en el servidor la línea de instalación',
    );
    expect(old.received.some((m) => m.type === 'upgrade')).toBe(false);
  });

  it('shows an upgrade nobody answered for minutes as failed, saying so', async () => {
    const s = await newServer('Callado');
    await t.ctx.db
      .update(servers)
      .set({
        agentUpgradeStatus: 'pending',
        agentUpgradeVersion: '9.8.7',
        agentUpgradeAt: new Date(Date.now() - 6 * 60_000),
      })
      .where(eq(servers.id, s.id));
    expect((await detail(s.id)).agent_upgrade).toMatchObject({
      status: 'failed',
      error: 'El agente se desconectó antes de responder. Vuelva a pedir la actualización.',
    });
    await t.ctx.db.update(servers).set({ agentUpgradeAt: new Date() }).where(eq(servers.id, s.id));
    expect((await detail(s.id)).agent_upgrade).toMatchObject({ status: 'pending', error: null });
  });

  it('lets operations upgrade agents and not support', async () => {
    const s = await newServer('Permisos');
    expect((await upgrade(s.id, await managerToken(t, 'support'))).statusCode).toBe(403);
    // Admitted (409: its agent is not connected).
    expect((await upgrade(s.id, await managerToken(t, 'operations'))).statusCode).toBe(409);
    const [row] = await t.ctx.db.select().from(servers).where(eq(servers.id, s.id));
    expect(row!.agentUpgradeStatus).toBeNull();
  });
});
