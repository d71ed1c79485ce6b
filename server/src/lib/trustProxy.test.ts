import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { fastifyTrustProxy } from './trustProxy.ts';

const load = (TRUST_PROXY: string) =>
  loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'vpn-config-')), TRUST_PROXY });

describe('TRUST_PROXY', () => {
  it('takes false, true (tests only), a number of hops or a list of proxy addresses and CIDRs', () => {
    expect(load('false').trustProxy).toBe(false);
    expect(load('true').trustProxy).toBe(true);
    expect(load('2').trustProxy).toBe(2);
    expect(load('127.0.0.1, 172.16.0.0/12,::1').trustProxy).toBe('127.0.0.1,172.16.0.0/12,::1');
    expect(load('10.128.0.0/9,10.0.0.0/10').trustProxy).toBe('10.128.0.0/9,10.0.0.0/10');
    expect(() => load('10.0.0.0/33')).toThrow(ConfigError);
    expect(() => load('proxy.example')).toThrow(/TRUST_PROXY=.*lista de direcciones/);
  });

  it('refuses proxies inside the tunnel pool (10.64.0.0/10): a customer in a tunnel could choose their address', () => {
    // On one box the customers' tunnels reach the panel from 10.64.x.y: trusting that range lets
    // any of them send X-Forwarded-For and pick the address every per-address limit counts.
    for (const value of [
      '127.0.0.1,10.0.0.0/8',
      '10.64.3.4',
      '10.0.0.0/9',
      '10.127.255.255/32',
      '0.0.0.0/0',
      '::ffff:10.64.0.9',
      '::ffff:0:0/96',
      '::/0',
    ])
      expect(() => load(value), value).toThrow(/TRUST_PROXY=.*10\.64\.0\.0\/10.*túnel/);
  });

  const clientIp = async (env: Record<string, string>, forwarded: string) => {
    const app = Fastify({ trustProxy: fastifyTrustProxy(load(env.TRUST_PROXY!).trustProxy) });
    app.get('/quien', async (request) => ({ ip: request.ip }));
    const res = await app.inject({
      method: 'GET',
      url: '/quien',
      remoteAddress: '172.16.2.3',
      headers: { 'x-forwarded-for': forwarded },
    });
    await app.close();
    return res.json<{ ip: string }>().ip;
  };

  it('with a list, a client cannot choose its address: only the hop the trusted proxy saw counts', async () => {
    // The client forged "1.1.1.1"; our proxy (172.16.2.3) appended the address it really saw.
    expect(await clientIp({ TRUST_PROXY: '172.16.0.0/12' }, '1.1.1.1, 203.0.113.7')).toBe('203.0.113.7');
  });

  it('with one hop, the same forgery is ignored', async () => {
    expect(await clientIp({ TRUST_PROXY: '1' }, '1.1.1.1, 203.0.113.7')).toBe('203.0.113.7');
  });

  it('with true (unsafe), the forged left-most address wins — why production must not use it', async () => {
    expect(await clientIp({ TRUST_PROXY: 'true' }, '1.1.1.1, 203.0.113.7')).toBe('1.1.1.1');
  });
});
