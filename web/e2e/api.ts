/**
 * The control plane's HTTP API as the browser journeys use it to set the stage: the manager API
 * (servers, granted peers, site settings) and a customer registered through the public API, its
 * ALTCHA proof of work solved here (the register form itself is covered by `journeys.e2e.test.ts`).
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { Advertisement, ClientVersion, Peer, SiteSettings } from '@vpn/contracts';

const JSON_HEADERS = { 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' };

async function call<T>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  headers: Record<string, string> = {},
): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...JSON_HEADERS, ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

export interface CreatedServer {
  server: { id: number; name: string; endpoint: string; ubication: string };
  agent_token: string;
}

/** A manager session on the control plane. */
export class ManagerApi {
  private constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  static async login(baseUrl: string, username: string, password: string): Promise<ManagerApi> {
    const pair = await call<{ access: string }>(baseUrl, 'POST', '/api/admin/login', {
      username,
      password,
      remember: false,
    });
    return new ManagerApi(baseUrl, pair.access);
  }

  request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return call<T>(this.baseUrl, method, path, body, this.token, this.headers);
  }

  /**
   * This session with a fresh confirmation of the password (`X-Reauth`, five minutes), which every
   * change of who can sign in needs (creating, editing, disabling or deleting a manager), and
   * adding a server (issue 31).
   */
  async confirmed(password: string): Promise<ManagerApi> {
    const proof = await this.request<{ token: string }>('POST', '/api/admin/me/reauth', { password });
    return new ManagerApi(this.baseUrl, this.token, { 'X-Reauth': proof.token });
  }

  /** Adds a server: on a session from confirmed() (X-Reauth). */
  createServer(body: { name: string; endpoint: string; ubication: string; allow_partys?: boolean }) {
    return this.request<CreatedServer>('POST', '/api/admin/servers', body);
  }

  /** Grants a customer a peer with a plan (manual payment), as a manager does before purchases exist. */
  grantPeer(body: { username: string; plan: number; name: string; server?: number }) {
    return this.request<Peer>('POST', '/api/admin/peers', body);
  }

  updatePeer(id: number, body: { active?: boolean; expires_at?: string | null }) {
    return this.request<Peer>('PATCH', `/api/admin/peers/${id}`, body);
  }

  settings(body: Partial<SiteSettings>) {
    return this.request<SiteSettings>('PATCH', '/api/admin/settings', body);
  }

  /** Publishes an announcement on every customer's dashboard home. */
  publishAnnouncement(body: { name: string; message: string }) {
    return this.request<Advertisement>('POST', '/api/admin/advertisements', body);
  }

  /** Publishes a client-app release (the home's 'Descargar' banner): on a session from confirmed() (X-Reauth). */
  publishClientVersion(body: { version: string; url: string }) {
    return this.request<ClientVersion>('POST', '/api/admin/agent', body);
  }
}

/** The first plan on sale (the e2e server starts with the demo plans). */
export async function firstPlan(baseUrl: string): Promise<{ id: number; name: string; price: number }> {
  const plans = await call<{ id: number; name: string; price: number }[]>(
    baseUrl,
    'GET',
    '/api/client/plans',
  );
  if (!plans[0]) throw new Error('no plans: the e2e server is started with SEED_DEMO=true');
  return plans[0];
}

export async function firstPlanId(baseUrl: string): Promise<number> {
  return (await firstPlan(baseUrl)).id;
}

/**
 * A client address of its own for each stage-setting registration (198.18.0.0/15, the benchmarking
 * range), sent as `X-Forwarded-For` to the e2e server, which runs as if behind a proxy
 * (`TRUST_PROXY`): registration allows 10 per hour per address, and the journeys register more
 * customers than that from one machine. Browser requests send no such header and keep 127.0.0.1.
 */
function stageAddress(): string {
  return `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
}

/**
 * Registers a customer through `PUT /api/client/register`, solving the server's ALTCHA challenge.
 * With `email` (the site must allow e-mail) the server mails a verification link.
 */
export async function registerCustomer(
  baseUrl: string,
  username: string,
  password: string,
  email?: string,
): Promise<void> {
  const challenge = await call<{
    algorithm: string;
    challenge: string;
    salt: string;
    signature: string;
    maxnumber: number;
  }>(baseUrl, 'GET', '/api/client/captcha');
  const number = solveAltcha(challenge);
  const captcha_token = Buffer.from(
    JSON.stringify({
      algorithm: challenge.algorithm,
      challenge: challenge.challenge,
      number,
      salt: challenge.salt,
      signature: challenge.signature,
    }),
  ).toString('base64');
  await call(
    baseUrl,
    'PUT',
    '/api/client/register',
    { username, password, captcha_token, ...(email ? { email } : {}) },
    undefined,
    { 'X-Forwarded-For': stageAddress() },
  );
}

/** ALTCHA's proof of work: the number whose SHA-256 with the salt is the challenge. */
function solveAltcha({
  algorithm,
  challenge,
  salt,
  maxnumber,
}: {
  algorithm: string;
  challenge: string;
  salt: string;
  maxnumber: number;
}): number {
  const hash = algorithm.toLowerCase().replace('-', '');
  for (let n = 0; n <= maxnumber; n++) {
    if (
      createHash(hash)
        .update(salt + n)
        .digest('hex') === challenge
    )
      return n;
  }
  throw new Error('captcha sin resolver');
}

export const uniqueName = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;

/** What the journeys use of the server tests' protocol-level agent (`server/test/protocolAgent.ts`). */
export interface AgentHandle {
  close(): Promise<void>;
}

/**
 * Connects a stand-in node agent for `token` (the real agent protocol over the agent websocket),
 * so its server counts as online — which selling a new peer needs — and acks every change.
 * Imported at run time by absolute path: the file belongs to the server's tests and is not part of
 * the web package's TypeScript project. `T`: what more of the agent a journey uses.
 */
export async function connectAgent<T extends AgentHandle = AgentHandle>(
  baseUrl: string,
  token: string,
): Promise<T> {
  const file = resolve(import.meta.dirname, '../../server/test/protocolAgent.ts');
  const mod = (await import(/* @vite-ignore */ file)) as {
    ProtocolAgent: { connect(baseUrl: string, token: string): Promise<T> };
  };
  return mod.ProtocolAgent.connect(baseUrl, token);
}
