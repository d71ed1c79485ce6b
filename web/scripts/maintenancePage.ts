/**
 * `OUT/maintenance.html`: what Caddy serves (deploy/Caddyfile, `handle_errors`) when no panel
 * instance answers (an upgrade, a crash). Static and self-contained: inline CSS, no script, no
 * request back to the panel. The company name is the installation's, unknown to the build, so the
 * title is the page's own.
 */
import { es } from '../src/i18n/es';

const escape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function maintenancePage(): string {
  const { title, text, back } = es.maintenance;
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escape(title)}</title>
<style>
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#020617;color:#e2e8f0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:28rem;margin:1rem;padding:2rem;border:1px solid #1e293b;border-radius:1rem;background:#0f172a;text-align:center}
h1{margin:0 0 1rem;font-size:1.5rem;color:#fcd34d}
p{margin:0 0 1.5rem;line-height:1.5}
a{display:inline-block;padding:.6rem 1.2rem;border:1px solid #334155;border-radius:.6rem;color:#e2e8f0;text-decoration:none}
a:hover,a:focus{background:#1e293b}
</style>
</head>
<body>
<main>
<h1>${escape(title)}</h1>
<p>${escape(text)}</p>
<a href="/">${escape(back)}</a>
</main>
</body>
</html>
`;
}
