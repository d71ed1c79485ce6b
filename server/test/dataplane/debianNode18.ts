/**
 * Debian 12's own Node.js 18 (18.20.4), the oldest `nodejs` the bundled agent must run on, without
 * installing it: its packages are fetched with `apt-get download` once (cached under the temp
 * directory) and unpacked with `dpkg -x` into one folder. Debian's node loads some of its builtins
 * (cjs-module-lexer, undici, acorn) from the fixed path /usr/share/nodejs, so the `node` wrapper made
 * here runs it in a private mount namespace where that folder's usr/share is overlaid on /usr/share;
 * nothing is written to the machine's /usr. Its libraries come through LD_LIBRARY_PATH.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DEBIAN_NODE_VERSION = '18.20.4';
const PACKAGES = [
  'nodejs=18.20.4+dfsg-1~deb12u3',
  'libnode108',
  'libc-ares2',
  'libuv1',
  'libbrotli1',
  'libicu72',
  'libnghttp2-14',
  'libssl3',
  'zlib1g',
  // The builtins Debian's node loads from /usr/share/nodejs.
  'node-cjs-module-lexer',
  'node-undici',
  'node-acorn',
];

const CACHE = join(tmpdir(), `vpn-debian-node-${DEBIAN_NODE_VERSION}`);

/**
 * A folder whose `node` is Debian 12's Node 18 (and whose `sudo` runs its arguments as they are,
 * the test being root already), or a reason why it cannot be had here.
 */
export function debianNode18(): { bin: string } | { skip: string } {
  const root = join(CACHE, 'root');
  const bin = join(CACHE, 'bin');
  if (!existsSync(join(root, 'usr/bin/node'))) {
    if (spawnSync('sh', ['-c', 'command -v apt-get && command -v dpkg'], { stdio: 'ignore' }).status !== 0)
      return { skip: 'sin apt-get/dpkg para descargar el nodejs de Debian 12' };
    // Per process, renamed into place at the end: two test files preparing it at once cannot mix.
    const debs = join(CACHE, `debs.${process.pid}`);
    rmSync(debs, { recursive: true, force: true });
    mkdirSync(debs, { recursive: true });
    const got = spawnSync('apt-get', ['download', ...PACKAGES], { cwd: debs, encoding: 'utf8' });
    if (got.status !== 0) return { skip: `apt-get download falló: ${got.stderr.trim().split('\n').at(-1)}` };
    const unpacked = join(CACHE, `root.${process.pid}`);
    rmSync(unpacked, { recursive: true, force: true });
    for (const deb of readdirSync(debs).filter((f) => f.endsWith('.deb')))
      execFileSync('dpkg', ['-x', join(debs, deb), unpacked]);
    rmSync(debs, { recursive: true, force: true });
    try {
      renameSync(unpacked, root);
    } catch {
      // Another process got there first: its copy is the same.
      rmSync(unpacked, { recursive: true, force: true });
    }
  }
  mkdirSync(bin, { recursive: true });
  // Written to a temporary name and renamed, for the same reason.
  const lib = `${root}/usr/lib/x86_64-linux-gnu:${root}/lib/x86_64-linux-gnu`;
  const tmpNode = join(bin, `node.${process.pid}`);
  writeFileSync(
    tmpNode,
    `#!/bin/sh
# Debian 12's node ${DEBIAN_NODE_VERSION}, unpacked in ${root} (see server/test/dataplane/debianNode18.ts).
exec unshare --mount --propagation private /bin/sh -c 'mount -t overlay overlay -o lowerdir=${root}/usr/share:/usr/share /usr/share && LD_LIBRARY_PATH=${lib} exec ${root}/usr/bin/node "$@"' node "$@"
`,
  );
  // The install line says "sudo …"; the test runs as root on a machine without sudo.
  const tmpSudo = join(bin, `sudo.${process.pid}`);
  writeFileSync(tmpSudo, '#!/bin/sh\nexec env "$@"\n');
  chmodSync(tmpNode, 0o755);
  chmodSync(tmpSudo, 0o755);
  renameSync(tmpNode, join(bin, 'node'));
  renameSync(tmpSudo, join(bin, 'sudo'));
  const v = spawnSync(join(bin, 'node'), ['-e', 'console.log(process.versions.node)'], { encoding: 'utf8' });
  if (v.status !== 0 || v.stdout.trim() !== DEBIAN_NODE_VERSION)
    return { skip: `el node de Debian no arranca aquí: ${(v.stderr || v.stdout).trim().slice(0, 200)}` };
  return { bin };
}
