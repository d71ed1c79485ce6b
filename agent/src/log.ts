/**
 * A small leveled logger writing one line per event to stderr (journald adds the timestamp and unit
 * when run under systemd). Never pass keys or tokens in `fields`: nothing here redacts them.
 */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
}

function format(fields: LogFields | undefined): string {
  if (!fields) return '';
  let out = '';
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    const text = String(v);
    out += ` ${k}=${/[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text}`;
  }
  return out;
}

/** A logger that prints events at `level` and above to `write` (stderr by default). */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const at =
    (lvl: LogLevel) =>
    (msg: string, fields?: LogFields): void => {
      if (LOG_LEVELS.indexOf(lvl) > threshold) return;
      write(`${new Date().toISOString()} ${lvl.toUpperCase()} ${msg}${format(fields)}`);
    };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/** The message of an unknown thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
