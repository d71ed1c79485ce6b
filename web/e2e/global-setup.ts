/**
 * Builds the SPA, starts the real control plane on a free port with a throw-away PGlite database and
 * hands its URL to the journeys (`inject('baseUrl')`). The server is stopped by its pid afterwards.
 *
 * Mail: a real SMTP server on loopback (the server tests' `TestSmtp`) receives what the control
 * plane sends (`SMTP_URL`), and `PUBLIC_URL` is the journeys' base URL so mailed links open here.
 * The journeys run in worker processes, so this process lends them its mailbox over a small
 * loopback HTTP endpoint (`inject('mailboxUrl')`, see `mail.ts`).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ADMIN_PASSWORD } from './browser';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    mailboxUrl: string;
    /** The build the server serves (the budget test reads its files). */
    distDir: string;
    /**
     * Where the control plane reaches Telegram's Bot API (`TELEGRAM_API_URL`): a loopback port on
     * which the Telegram journey starts the server tests' stand-in (`telegram.e2e.test.ts`). No bot
     * token is configured, so nothing calls it until that journey saves one in Ajustes.
     */
    telegramApiUrl: string;
  }
}

/** What the setup uses of the server tests' SMTP server (`server/test/smtp.ts`). */
export interface ReceivedMail {
  to: string[];
  raw: string;
  text: string;
}
interface TestSmtp {
  readonly mails: ReceivedMail[];
  readonly url: string;
  waitFor(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * Starts `TestSmtp`. Imported at run time by absolute path: the file belongs to the server's tests
 * and is not part of the web package's TypeScript project.
 */
async function startSmtp(): Promise<TestSmtp> {
  const file = resolve(serverDir, 'test/smtp.ts');
  const mod = (await import(/* @vite-ignore */ file)) as { TestSmtp: { start(): Promise<TestSmtp> } };
  return mod.TestSmtp.start();
}

/**
 * The mailbox over HTTP: `GET /mails` → every mail so far; `GET /wait?to=ADDR` → the first mail to
 * ADDR, waiting up to 15 s (`TestSmtp.waitFor`), or 404.
 */
function serveMailbox(smtp: TestSmtp): Promise<{ server: Server; url: string }> {
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mailbox');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/mails') return send(200, smtp.mails);
    const to = url.searchParams.get('to');
    if (url.pathname === '/wait' && to) {
      smtp.waitFor(to, 15_000).then(
        (mail) => send(200, mail),
        (error: unknown) => send(404, { message: String(error) }),
      );
      return;
    }
    send(400, { message: 'GET /mails o GET /wait?to=…' });
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      ok({ server, url: `http://127.0.0.1:${port}` });
    }),
  );
}

const webDir = resolve(import.meta.dirname, '..');
const serverDir = resolve(webDir, '../server');

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => ok(port));
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess, log: () => string): Promise<void> {
  // A bound for a server that will never answer, not a wait: migrating and seeding a new PGlite took
  // 35 s at load ~33 on 2 cores.
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`El servidor terminó (código ${child.exitCode}):\n${log()}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`El servidor no respondió a tiempo:\n${log()}`);
}

export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), 'vpn-web-e2e-'));
  // The production build (client, SSR bundle, pre-rendered pages) that `npm run build` made, made
  // here only if its sources changed since (`scripts/build.mjs --if-stale server web`, in production mode:
  // vitest's NODE_ENV=test would otherwise give React's development bundles), then copied into this
  // run's own directory: `web/dist` is shared, and another run (or a developer's build) emptying it
  // while this server serves from it would leave the journeys' pages blank.
  const distDir = join(dataDir, 'dist');
  const built = spawnSync(
    process.execPath,
    [resolve(webDir, '../scripts/build.mjs'), '--if-stale', 'server', 'web'],
    {
      cwd: resolve(webDir, '..'),
      env: { ...process.env, NODE_ENV: 'production' },
      encoding: 'utf8',
    },
  );
  if (built.status !== 0) {
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`la compilación falló:\n${built.stdout}${built.stderr}`);
  }
  cpSync(join(webDir, 'dist'), distDir, { recursive: true });

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const telegramApiUrl = `http://127.0.0.1:${await freePort()}`;
  const smtp = await startSmtp();
  const mailbox = await serveMailbox(smtp);
  const stopMail = async () => {
    await new Promise((r) => mailbox.server.close(r));
    await smtp.close();
  };
  const apkFile = join(dataDir, 'wireguard-android.apk');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(apkFile, Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(9_800_000 - 4)]));
  let output = '';
  // The compiled server (`server/dist`, built above only if its sources changed), as CI and production
  // run it: through tsx it compiled every module at start, 47 s against 35 s to /healthz at load ~33,
  // and a loaded CI run's e2e lane passed the deadline below before the server answered.
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: serverDir,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      WEB_DIST: distDir,
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD,
      SUPPORT_URL: 'https://soporte.example.com/chat',
      // An APK the panel serves to Android customers (help.e2e.test.ts: "APK, 9,8 MB").
      ANDROID_APK_FILE: apkFile,
      PUBLIC_URL: baseUrl,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'VPN Service <no-reply@vpn.example.com>',
      TELEGRAM_API_URL: telegramApiUrl,
      TELEGRAM_BOT_TOKEN: '',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'true',
      PAYMENTS_SANDBOX: 'true', // purchase.e2e.test.ts pays through the built-in sandbox gateway
      // Lets stage-setting API calls present their own client address (see `api.ts`).
      TRUST_PROXY: 'true',
      // Every journey signs the same managers in through the API: manager logins count every
      // attempt (managers are few), so the shared test server allows the whole suite's.
      RATE_LIMIT_MANAGER_LOGIN_PER_IP: '1000/60',
      RATE_LIMIT_MANAGER_LOGIN_PER_USERNAME: '1000/300',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  try {
    await waitForHealth(baseUrl, child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    await stopMail();
    throw error;
  }
  project.provide('baseUrl', baseUrl);
  project.provide('mailboxUrl', mailbox.url);
  project.provide('distDir', distDir);
  project.provide('telegramApiUrl', telegramApiUrl);

  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    await stopMail();
  };
}
