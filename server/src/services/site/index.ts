import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import { Mailer } from './mailer.ts';
import { Telemetry } from './telemetry.ts';

/**
 * The site domain's entry point: what every other domain uses (mail, the process's metrics).
 * Settings, audit, content, backups and the seed are plain functions over the database: imported
 * where used, nothing to build.
 */
export interface SiteDeps {
  config: Pick<Config, 'mail' | 'metricsPeerCountsMs' | 'metricsToken'>;
  log: FastifyBaseLogger;
  /** Tests hand in a mailer that records instead of sending. */
  mailer?: Mailer;
}

export interface Site {
  telemetry: Telemetry;
  mailer: Mailer;
}

export function createSite(deps: SiteDeps): Site {
  const telemetry = new Telemetry({
    peerCountsMaxAgeMs: deps.config.metricsPeerCountsMs,
    // Without METRICS_TOKEN nobody scrapes: the scheduler counts nothing.
    sharedPeerCounts: Boolean(deps.config.metricsToken),
  });
  const mailer = deps.mailer ?? new Mailer(deps.config.mail, deps.log);
  mailer.onResult = (sent) => (sent ? telemetry.mailsSent : telemetry.mailsFailed).inc();
  return { telemetry, mailer };
}
