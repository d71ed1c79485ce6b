/**
 * `GET /api/agent/install.sh`: the script behind the one line "Nuevo servidor" shows,
 *
 *   { echo AGENT_TOKEN='…'; curl -fsSL 'https://PANEL/api/agent/install.sh'; } | sudo bash
 *
 * It installs the distribution's `wireguard-tools`, `nftables` and `nodejs` (and `wireguard-go`
 * only without the kernel module) when missing, downloads the panel's agent file with the token
 * and checks its SHA-256 and that it starts, writes `/etc/vpn-agent/{token,agent.env}` (mode 600),
 * installs and starts the systemd unit, and says how it went in Spanish. Run again, it upgrades the
 * agent in place and keeps the saved token and any setting added to agent.env.
 *
 * The token is in no process's arguments (issue 31; `ps` shows every local user those): the line's
 * `echo` is the operator's shell's builtin (no process is started for it), and it writes
 * `AGENT_TOKEN=…` as the first line bash reads on its stdin, before the script, so the token is a
 * shell variable of that bash — not in sudo's arguments (where `sudo AGENT_TOKEN=… bash` put it),
 * nor in anyone's environment. The script reaches curl with it on stdin and saves it only to the
 * token file. The panel's URL, the agent's version and SHA-256 are written into the script when it
 * is served.
 *
 * Switches (environment): `AGENT_CA_FILE` — a CA certificate that signs the panel's (a private CA;
 * curl and the agent trust it); `VPN_AGENT_NO_SYSTEMD=1` — no systemd here: start the agent in the
 * background (pid in /run/vpn-agent.pid, log in /var/log/vpn-agent.log); `VPN_AGENT_ROOT` — a prefix
 * for every path it writes (tests).
 */

/** Single-quotes a value for bash. */
const shq = (v: string) => `'${v.replaceAll("'", `'\\''`)}'`;

/** The line "Nuevo servidor" and "Rotar token" show (the token in no process's arguments). */
export function installCommand(panelUrl: string, token: string): string {
  const script = shq(`${panelUrl.replace(/\/+$/, '')}/api/agent/install.sh`);
  return `{ echo AGENT_TOKEN=${shq(token)}; curl -fsSL ${script}; } | sudo bash`;
}

export function installScript(o: { panelUrl: string; version: string; sha256: string }): string {
  const panel = o.panelUrl.replace(/\/+$/, '');
  return `#!/bin/bash
# Instalador del agente de nodo VPN (vpn-agent ${o.version}), servido por ${panel}/api/agent/install.sh
#
#   { echo AGENT_TOKEN='…'; curl -fsSL '${panel}/api/agent/install.sh'; } | sudo bash
#
# (El token llega como primera línea de la entrada de bash: no queda en los argumentos de ningún proceso.)
# Volver a ejecutarlo actualiza el agente en su sitio (conserva el token guardado y agent.env).
# Opcional: AGENT_CA_FILE=/ruta/ca.pem (CA privada del certificado del panel),
# VPN_AGENT_NO_SYSTEMD=1 (sin systemd: el agente arranca en segundo plano).
set -euo pipefail
umask 077

# Everything runs from main, called on the last line: bash has read the whole script before any
# command runs, so nothing the script starts can swallow the rest of it from curl's pipe.
main() {
PANEL_URL=${shq(panel)}
AGENT_VERSION=${shq(o.version)}
AGENT_SHA256=${shq(o.sha256)}

ROOT="\${VPN_AGENT_ROOT:-}"
ETC="$ROOT/etc/vpn-agent"
OPT="$ROOT/opt/vpn-agent"
STATE="$ROOT/var/lib/vpn-agent"
UNIT="$ROOT/etc/systemd/system/vpn-agent.service"
LOG="$ROOT/var/log/vpn-agent.log"
PIDFILE="$ROOT/run/vpn-agent.pid"
AGENT="$OPT/vpn-agent.mjs"

[ "$(id -u)" = 0 ] || fail 'ejecute el instalador como root (sudo).'

# The token: from AGENT_TOKEN, else the one an earlier install saved (an upgrade in place).
token="\${AGENT_TOKEN:-}"
unset AGENT_TOKEN
if [ -z "$token" ] && [ -s "$ETC/token" ]; then token="$(head -n 1 "$ETC/token")"; fi
[ -n "$token" ] || fail 'falta el token del agente: pegue la línea completa que muestra el panel (AGENT_TOKEN=…).'
case "$token" in *[!A-Za-z0-9_-]*) fail 'el token del agente no es válido: copie la línea completa del panel.' ;; esac

# A private CA for the panel's certificate: AGENT_CA_FILE (or NODE_EXTRA_CA_CERTS, as node reads it),
# else the one an earlier install saved. Without one, the agent trusts what this system trusts.
ca="\${AGENT_CA_FILE:-\${NODE_EXTRA_CA_CERTS:-}}"
if [ -n "$ca" ]; then
  [ -r "$ca" ] || fail "no se puede leer el certificado de la CA ($ca)."
elif [ -s "$ETC/ca.pem" ]; then
  ca="$ETC/ca.pem"
fi

use_systemd=1
if [ "\${VPN_AGENT_NO_SYSTEMD:-}" = 1 ]; then
  use_systemd=0
elif [ ! -d /run/systemd/system ]; then
  fail 'este sistema no funciona con systemd: vuelva a ejecutar con VPN_AGENT_NO_SYSTEMD=1 (el agente arrancará en segundo plano, sin reinicio automático).'
fi

# 1. Packages, only those missing. wireguard-go only when the kernel cannot make a WireGuard link.
node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 18 || (a === 18 && b >= 19) ? 0 : 1)' 2>/dev/null
}
kernel_wg() {
  local probe="wgprobe$$"
  ip link add "$probe" type wireguard 2>/dev/null && ip link del "$probe" 2>/dev/null
}
need=()
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v wg >/dev/null 2>&1 || need+=(wireguard-tools)
command -v nft >/dev/null 2>&1 || need+=(nftables)
node_ok || need+=(nodejs)
if [ \${#need[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || fail "faltan \${need[*]} y este sistema no tiene apt-get: instálelos y vuelva a ejecutar."
  say "Instalando paquetes de la distribución: \${need[*]}…"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq </dev/null >/dev/null && apt-get install -y -qq "\${need[@]}" </dev/null >/dev/null ||
    fail "no se pudieron instalar \${need[*]} con apt-get."
fi
if ! kernel_wg && ! command -v wireguard-go >/dev/null 2>&1; then
  say 'El kernel no tiene el módulo de WireGuard: se instala wireguard-go…'
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq wireguard-go </dev/null >/dev/null || fail 'no se pudo instalar wireguard-go con apt-get.'
fi
node_ok || fail "el agente necesita Node.js 18.19 o posterior y este sistema tiene $(node -v 2>/dev/null || echo 'ninguno')."
NODE="$(command -v node)"

# 2. The agent file: downloaded with the token (on curl's stdin, not its arguments), hash checked,
#    tried on this Node, then renamed into place (a running agent keeps its old file until restarted).
mkdir -p "$OPT" "$ETC" "$STATE" "$(dirname "$LOG")" "$(dirname "$PIDFILE")"
chmod 755 "$OPT"
chmod 700 "$ETC" "$STATE"
# .mjs: node runs the file as the ES module it is only under that extension.
tmp="$(mktemp --suffix=.mjs "$OPT/.vpn-agent.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
curl_ca=()
[ -n "$ca" ] && curl_ca=(--cacert "$ca")
status="$(curl -sS --retry 3 "\${curl_ca[@]}" --config - -o "$tmp" -w '%{http_code}' "$PANEL_URL/api/agent/vpn-agent.mjs" <<<"header = \\"Authorization: Bearer $token\\"")" ||
  fail "no se pudo descargar el agente de $PANEL_URL."
case "$status" in
  200) ;;
  401) fail 'el panel rechazó el token: copie de nuevo la línea del panel (o rote el token del servidor).' ;;
  *) fail "el panel respondió HTTP $status al descargar el agente." ;;
esac
sum="$(sha256sum "$tmp" | cut -d ' ' -f 1)"
[ "$sum" = "$AGENT_SHA256" ] ||
  fail "el archivo descargado no coincide con su SHA-256 (esperado $AGENT_SHA256, recibido $sum): vuelva a ejecutar la línea."
said="$("$NODE" "$tmp" --version 2>&1)" || fail "el agente no arranca con Node $("$NODE" -v): $said"
[ "$said" = "$AGENT_VERSION" ] || fail "el archivo descargado dice ser la versión $said y se esperaba $AGENT_VERSION."
previous=""
[ -f "$AGENT" ] && previous="$("$NODE" "$AGENT" --version 2>/dev/null || true)"
chmod 644 "$tmp"
# The file that was installed stays as vpn-agent.mjs.previous (a rollback by hand).
if [ -f "$AGENT" ]; then ln -f "$AGENT" "$AGENT.previous"; fi
mv -f "$tmp" "$AGENT"

# 3. Token and settings (mode 600). Lines the operator added to agent.env are kept.
printf '%s\\n' "$token" >"$ETC/token.new"
chmod 600 "$ETC/token.new"
mv -f "$ETC/token.new" "$ETC/token"
if [ -n "$ca" ] && [ "$ca" != "$ETC/ca.pem" ]; then
  install -m 600 "$ca" "$ETC/ca.pem"
fi
{
  say "# Escrito por install.sh (vpn-agent $AGENT_VERSION). Opciones: $NODE $AGENT --help"
  say "AGENT_URL=$PANEL_URL"
  say "AGENT_TOKEN_FILE=$ETC/token"
  if [ -s "$ETC/ca.pem" ]; then
    say "NODE_EXTRA_CA_CERTS=$ETC/ca.pem"
  elif [ -s /etc/ssl/certs/ca-certificates.crt ]; then
    # The system's CAs too (curl's), not only those built into node.
    say "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt"
  fi
  if [ -f "$ETC/agent.env" ]; then
    grep -vE '^(# Escrito por install\\.sh|AGENT_URL=|AGENT_TOKEN_FILE=|NODE_EXTRA_CA_CERTS=)' "$ETC/agent.env" || true
  fi
} >"$ETC/agent.env.new"
chmod 600 "$ETC/agent.env.new"
mv -f "$ETC/agent.env.new" "$ETC/agent.env"

# 4. Start (or restart into the new file). The WireGuard interface is left up across restarts.
started="$(date '+%Y-%m-%d %H:%M:%S')"
if [ "$use_systemd" = 1 ]; then
  cat >"$UNIT" <<UNIT
# vpn-agent: agente de nodo VPN. Escrito por $PANEL_URL/api/agent/install.sh
[Unit]
Description=VPN node agent (WireGuard desired-state reconciler)
Wants=network-online.target
After=network-online.target nftables.service

[Service]
Type=simple
User=root
EnvironmentFile=$ETC/agent.env
# Memory at 50,000 peers: glibc gives large blocks their own mappings (docs/reliability.md).
Environment=MALLOC_MMAP_THRESHOLD_=131072
ExecStart=$NODE --max-semi-space-size=1 $AGENT --state-dir $STATE
# An upgrade from the panel replaces $AGENT and exits: Restart= starts the new file (and, if that
# file dies in its first minute, the previous one it put back: docs/deploy.md).
Restart=always
RestartSec=2
# 2: bad configuration, 3: a non-WireGuard link holds the interface's name (see the journal).
RestartPreventExitStatus=2 3
# Only the agent is stopped: wireguard-go keeps the tunnels up and the next agent adopts it.
KillMode=process
KillSignal=SIGTERM
TimeoutStopSec=10
StateDirectory=vpn-agent
StateDirectoryMode=0700
NoNewPrivileges=yes
ProtectSystem=full
ProtectHome=yes
PrivateTmp=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK

[Install]
WantedBy=multi-user.target
UNIT
  systemctl daemon-reload
  systemctl enable vpn-agent >/dev/null 2>&1
  systemctl restart vpn-agent
  logs() { journalctl -u vpn-agent --since "$started" -o cat --no-pager 2>/dev/null || true; }
  follow='journalctl -u vpn-agent -f'
else
  if [ -s "$PIDFILE" ]; then
    old="$(head -n 1 "$PIDFILE")"
    if [ -n "$old" ] && kill -0 "$old" 2>/dev/null; then
      kill -TERM "$old"
      for _ in $(seq 1 100); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
    fi
  fi
  : >>"$LOG"
  mark="$(wc -c <"$LOG")"
  (
    set -a
    . "$ETC/agent.env"
    set +a
    export MALLOC_MMAP_THRESHOLD_=131072
    exec setsid "$NODE" --max-semi-space-size=1 "$AGENT" --state-dir "$STATE" --pid-file "$PIDFILE" </dev/null >>"$LOG" 2>&1
  ) &
  logs() { tail -c "+$((mark + 1))" "$LOG" 2>/dev/null || true; }
  follow="tail -f $LOG"
fi

# 5. The result, once the agent has talked to the panel (or after 30 s).
result=waiting
for _ in $(seq 1 150); do
  out="$(logs)"
  case "$out" in
    *'bienvenida del plano de control'*) result=ok; break ;;
    *'rechazó el token del agente'*) result=token; break ;;
  esac
  if [ "$use_systemd" = 1 ]; then
    systemctl is-failed --quiet vpn-agent && { result=dead; break; }
  fi
  sleep 0.2
done
if [ -n "$previous" ] && [ "$previous" != "$AGENT_VERSION" ]; then
  what="actualizado de la versión $previous a la $AGENT_VERSION"
elif [ -n "$previous" ]; then
  what="reinstalado (versión $AGENT_VERSION)"
else
  what="instalado (versión $AGENT_VERSION, Node $("$NODE" -v))"
fi
case "$result" in
  ok) say "Listo: agente VPN $what y conectado al panel $PANEL_URL." ;;
  token) fail "agente $what, pero el panel rechazó su token: rote el token del servidor en el panel y pegue la línea nueva." ;;
  dead) fail "agente $what, pero no arrancó. Revise: $follow" ;;
  *) say "Agente VPN $what; aún no se ha conectado al panel $PANEL_URL. Revise: $follow" ;;
esac
}

say() { printf '%s\\n' "$*"; }
fail() { printf 'ERROR: %s\\n' "$*" >&2; exit 1; }

main "$@"
`;
}
