import type { FastifyPluginAsync } from 'fastify';
import { AGENT_FILE_PATH, AGENT_INSTALL_PATH, AGENT_MIN_NODE, agentMsg } from '@vpn/contracts';
import type { AppContext } from '../context.ts';
import { HttpError, unauthorized } from '../lib/errors.ts';
import { bearerToken } from '../plugins/auth.ts';
import { installScript } from '../services/fleet/agentInstallScript.ts';
import { findServerByAgentToken } from '../services/fleet/servers.ts';
import { originOf } from './origin.ts';

/**
 * What VPN servers download from the panel (services/fleet/agentRelease.ts):
 * - `GET /api/agent/install.sh`: the install script, with this panel's URL, the agent's version and
 *   SHA-256 written in (public: it holds no secret; the token comes from the operator's line);
 * - `GET /api/agent/vpn-agent.mjs`: the agent file itself, for a server's agent token only (the
 *   install script and the agents' upgrades send it);
 * - `GET /api/agent/release`: version, SHA-256, size and the oldest Node it runs on.
 */
export const agentReleaseRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const release = () => {
      const current = ctx.agentRelease.current();
      if (!current) throw new HttpError(503, agentMsg.fileMissing, 'agent_file_missing');
      return current;
    };

    app.get(AGENT_INSTALL_PATH, { schema: { hide: true } }, async (request, reply) => {
      const { version, sha256 } = release();
      // The script goes back to whoever asked: a forged Host only misleads the forger (origin.ts).
      return reply
        .type('text/x-shellscript; charset=utf-8')
        .send(installScript({ panelUrl: originOf(request, ctx), version, sha256 }));
    });

    app.get('/api/agent/release', { schema: { hide: true } }, async () => {
      const { version, sha256, size } = release();
      return { version, sha256, size, min_node: AGENT_MIN_NODE };
    });

    app.get(AGENT_FILE_PATH, { schema: { hide: true } }, async (request, reply) => {
      const token = bearerToken(request);
      if (!token || !(await findServerByAgentToken(ctx.db, token))) throw unauthorized();
      const { version, sha256, bytes } = release();
      return reply
        .type('text/javascript; charset=utf-8')
        .header('x-agent-version', version)
        .header('x-agent-sha256', sha256)
        .send(bytes);
    });
  };
