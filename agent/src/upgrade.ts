/**
 * Self-upgrade (the control plane's `upgrade` message): download the panel's current agent file
 * with this agent's token, check its SHA-256, check that it starts on this Node and says the
 * announced version, then rename it over the running file (atomic on one filesystem). Any failure
 * leaves the running file untouched and says why in one Spanish sentence, which the control plane
 * shows in the console. Restarting is the caller's job (main.ts): the WireGuard interface stays up.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename, dirname, join } from 'node:path';
import { AGENT_FILE_PATH, type ServerUpgrade } from '@vpn/contracts/agent';
import { errorMessage } from './log.ts';

/** A bundled agent is ~1 MB; anything much bigger is not one. */
const MAX_BYTES = 32 * 1024 * 1024;
const TIMEOUT_MS = 60_000;

export interface UpgradeOptions {
  /** Control-plane base URL (as configured: http(s)://…, ws(s)://…). */
  url: string;
  token: string;
  /** The file this agent runs from, or null when it runs from the sources (cannot self-upgrade). */
  file: string | null;
  /** The node binary that runs the agent (the new file is tried with it). */
  nodePath?: string;
}

export type UpgradeOutcome = { ok: true } | { ok: false; message: string };

/** `wss://panel/base` → `https://panel/base/api/agent/vpn-agent.mjs`. */
export function agentFileUrl(base: string): URL {
  const u = new URL(base);
  u.protocol = u.protocol === 'wss:' ? 'https:' : u.protocol === 'ws:' ? 'http:' : u.protocol;
  u.pathname = `${u.pathname.replace(/\/+$/, '')}${AGENT_FILE_PATH}`;
  u.search = '';
  u.hash = '';
  return u;
}

function download(url: URL, token: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, { headers: { Authorization: `Bearer ${token}` }, timeout: TIMEOUT_MS });
    req.on('timeout', () => req.destroy(new Error('el panel no respondió a tiempo')));
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(
          new Error(
            res.statusCode === 401
              ? 'el panel rechazó el token del agente al descargar el archivo'
              : `el panel respondió HTTP ${res.statusCode} al descargar el archivo`,
          ),
        );
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) req.destroy(new Error('el archivo descargado es demasiado grande'));
        else chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => resolve(Buffer.concat(chunks)));
    });
    req.end();
  });
}

/** Runs `node FILE --version`: what the new file says it is (it must at least start on this Node). */
function versionOf(nodePath: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(nodePath, [file, '--version'], { timeout: 30_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const why = (stderr || err.message).trim().split('\n').slice(-3).join(' ').slice(0, 300);
        return reject(new Error(`el archivo nuevo no arranca con Node ${process.versions.node}: ${why}`));
      }
      resolve(stdout.trim());
    });
  });
}

export async function performUpgrade(msg: ServerUpgrade, opts: UpgradeOptions): Promise<UpgradeOutcome> {
  if (!opts.file)
    return {
      ok: false,
      message:
        'este agente se ejecuta desde el repositorio, no desde el archivo único vpn-agent.mjs: ' +
        'actualícelo como se instaló o vuelva a ejecutar la línea de instalación',
    };
  const file = opts.file;
  // Ends in .mjs like the agent file: node runs it as an ES module only under that extension.
  const temp = join(dirname(file), `.${basename(file, '.mjs')}.${process.pid}.new.mjs`);
  // What was being done, for the message when it fails with a system error (EACCES, ENOSPC…).
  let stage = 'descargar el archivo del panel';
  try {
    const bytes = await download(agentFileUrl(opts.url), opts.token);
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (hash !== msg.sha256)
      return {
        ok: false,
        message: `el archivo descargado no coincide con su SHA-256 (esperado ${msg.sha256.slice(0, 12)}…, recibido ${hash.slice(0, 12)}…)`,
      };
    // Same directory, so the rename below is atomic; flushed before it replaces the running file.
    stage = `escribir ${temp}`;
    const fd = openSync(temp, 'w', 0o644);
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    stage = 'probar el archivo nuevo';
    const said = await versionOf(opts.nodePath ?? process.execPath, temp);
    if (said !== msg.version)
      return {
        ok: false,
        message: `el archivo nuevo dice ser la versión ${said.slice(0, 64) || '(nada)'} y se esperaba ${msg.version}`,
      };
    stage = `reemplazar ${file}`;
    // The running file stays as FILE.previous (a hard link: no copy), for a rollback by hand.
    try {
      rmSync(`${file}.previous`, { force: true });
      linkSync(file, `${file}.previous`);
    } catch {
      // Best effort: a filesystem without hard links still gets the upgrade.
    }
    renameSync(temp, file);
    return { ok: true };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, message: code ? `no se pudo ${stage}: ${errorMessage(err)}` : errorMessage(err) };
  } finally {
    rmSync(temp, { force: true });
  }
}
