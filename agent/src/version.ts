/**
 * The agent's version and how it runs. The bundled build (scripts/build.mjs → `vpn-agent.mjs`)
 * writes both in as constants; from the sources (tests, `npm run agent`) the version is
 * agent/package.json's and the agent is not a single file it could replace.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

declare const __VPN_AGENT_VERSION__: string | undefined;
declare const __VPN_AGENT_BUNDLE__: boolean | undefined;

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export const AGENT_VERSION: string =
  typeof __VPN_AGENT_VERSION__ === 'string' ? __VPN_AGENT_VERSION__ : packageVersion();

/** The single file this agent runs from (what an upgrade replaces), or null when run from sources. */
export const AGENT_FILE: string | null =
  typeof __VPN_AGENT_BUNDLE__ === 'boolean' && __VPN_AGENT_BUNDLE__ ? fileURLToPath(import.meta.url) : null;
