/**
 * The agent file the panel hands to VPN servers: `agent/dist/vpn-agent.mjs`, built by
 * `scripts/build.mjs agent` (part of `npm start` and `npm run build`). Its version is the one its
 * second line names (written by the build from agent/package.json); its SHA-256 is computed here
 * from the very bytes served. Re-read when the file changes on disk (a rebuild while running), so
 * version, hash and bytes always belong together.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** server/src/services and server/dist/services are at the same depth below the repository. */
export const DEFAULT_AGENT_FILE = fileURLToPath(
  new URL('../../../../agent/dist/vpn-agent.mjs', import.meta.url),
);

export interface AgentReleaseFile {
  version: string;
  sha256: string;
  size: number;
  bytes: Buffer;
}

const BANNER = /^\/\/ vpn-agent (\S+):/m;

export class AgentRelease {
  private cached: { key: string; release: AgentReleaseFile } | null = null;

  constructor(readonly file: string = DEFAULT_AGENT_FILE) {}

  /** The current file, or null when it was never built (or does not name its version). */
  current(): AgentReleaseFile | null {
    let key: string;
    try {
      const st = statSync(this.file);
      key = `${st.size}:${st.mtimeMs}:${st.ino}`;
    } catch {
      this.cached = null;
      return null;
    }
    if (this.cached?.key === key) return this.cached.release;
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.file);
    } catch {
      return null;
    }
    const version = BANNER.exec(bytes.subarray(0, 512).toString('utf8'))?.[1];
    if (!version) return null;
    const release = {
      version,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
      bytes,
    };
    this.cached = { key, release };
    return release;
  }
}
