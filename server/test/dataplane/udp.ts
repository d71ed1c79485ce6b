/**
 * A tiny UDP receiver and sender run inside a namespace (`ip netns exec NS node -e …`), for the
 * discovery relay's data-plane test: what a LAN game does (a broadcast or multicast datagram from a
 * fixed source port) and what the other player's game sees (each datagram's source address and port).
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Datagram {
  /** The port it arrived on. */
  port: number;
  from: string;
  fromPort: number;
  text: string;
  /** Milliseconds since the receiver started. */
  at: number;
}

const RECEIVER = `
const dgram = require('node:dgram');
const t0 = Date.now();
const [bind, ...ports] = process.argv.slice(1);
for (const port of ports.map(Number)) {
  // The largest buffer the kernel grants (net.core.rmem_max, doubled): a receiver starved of CPU
  // on a loaded machine keeps what arrives meanwhile instead of dropping it.
  const s = dgram.createSocket({ type: 'udp4', reuseAddr: true, recvBufferSize: 1 << 24 });
  s.on('message', (msg, r) => process.stdout.write(JSON.stringify({ port, from: r.address, fromPort: r.port, text: msg.toString().slice(0, 64), at: Date.now() - t0 }) + '\\n'));
  s.bind(port, bind, () => { if (port === Number(ports.at(-1))) process.stdout.write('{"ready":true}\\n'); });
}
`;

/**
 * Listens on `ports` in `ns` until stopped; collects every datagram. On every address by default
 * (broadcasts, and the host's own limited broadcasts, which Linux always loops back to its
 * sockets), or only on `bind`: a room mate's tunnel address gets the relay's copies, which are
 * unicast to it, and not the mate's own flood looped back, which would fill the socket's buffer.
 */
export class Receiver {
  readonly got: Datagram[] = [];
  private readonly child: ChildProcess;
  readonly ready: Promise<void>;

  constructor(ns: string, ports: number[], bind = '0.0.0.0') {
    this.child = spawn(
      'ip',
      ['netns', 'exec', ns, process.execPath, '-e', RECEIVER, bind, ...ports.map(String)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let buf = '';
    let ready: () => void;
    this.ready = new Promise((r) => (ready = r));
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = JSON.parse(buf.slice(0, nl)) as Datagram | { ready: true };
        buf = buf.slice(nl + 1);
        if ('ready' in line) ready();
        else this.got.push(line);
      }
    });
  }

  /** Datagrams whose text starts with `tag`. */
  tagged(tag: string): Datagram[] {
    return this.got.filter((d) => d.text.startsWith(tag));
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}

const SENDER = `
const dgram = require('node:dgram');
const [bindAddr, sport, dest, dport, count, perSecond, tag, gated] = process.argv.slice(1);
const s = dgram.createSocket({ type: 'udp4', reuseAddr: true });
s.bind(Number(sport), bindAddr, () => {
  s.setBroadcast(true);
  if (dest.startsWith('22') || dest.startsWith('23')) s.setMulticastInterface(bindAddr);
  if (gated !== '1') return start();
  process.stdin.once('data', start);
  process.stdout.write('ready\\n');
});
function start() {
  const n = Number(count);
  const gap = 1000 / Number(perSecond);
  const t0 = Date.now();
  let i = 0;
  const next = () => {
    while (i < n && Date.now() - t0 >= i * gap) {
      s.send(tag + ' ' + i, Number(dport), dest);
      i++;
    }
    if (i < n) setTimeout(next, 1);
    else setTimeout(() => { s.close(); if (gated === '1') process.stdin.destroy(); }, 200);
  };
  next();
}
`;

/** `count` datagrams from `bind`:`sport` to `dest`:`dport` at `perSecond`, texts `<tag> <i>`. */
export interface UdpSend {
  bind: string;
  sport: number;
  dest: string;
  dport: number;
  count: number;
  perSecond: number;
  tag: string;
}

function senderArgs(ns: string, o: UdpSend, gated: boolean): string[] {
  const args = [o.bind, o.sport, o.dest, o.dport, o.count, o.perSecond, o.tag, gated ? 1 : 0].map(String);
  return ['netns', 'exec', ns, process.execPath, '-e', SENDER, ...args];
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`emisor UDP terminó con ${code}`)),
    ),
  );
}

/**
 * Sends the datagrams from inside `ns` (broadcast allowed; multicast out of the tunnel address's
 * interface).
 */
export function sendUdp(ns: string, o: UdpSend): Promise<void> {
  return exited(spawn('ip', senderArgs(ns, o, false), { stdio: ['ignore', 'inherit', 'inherit'] }));
}

/**
 * Several senders that start at one instant: each is spawned and binds, and only when all are ready
 * are they told to go. `started` is taken just before that, so nothing they send is older than it:
 * a bound on the time a limit had to let datagrams through, however long spawning took on a
 * loaded machine. `done` settles when every sender has sent all and exited.
 */
export async function sendTogether(
  senders: (UdpSend & { ns: string })[],
): Promise<{ started: number; done: Promise<void> }> {
  const children = senders.map((o) =>
    spawn('ip', senderArgs(o.ns, o, true), { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const done = Promise.all(children.map(exited)).then(() => undefined);
  await Promise.race([
    done,
    Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            let out = '';
            child.stdout!.on('data', (chunk: Buffer) => {
              out += chunk.toString();
              if (out.includes('ready\n')) resolve();
            });
          }),
      ),
    ),
  ]);
  const started = Date.now();
  for (const child of children) child.stdin!.write('go\n');
  return { started, done };
}

/**
 * What a member's own machine can put in its tunnel that no socket API sends (issue 31): IPv4
 * packets written whole through a raw socket (Debian's perl-base, no Python or raw sockets in
 * Node), out of `iface`. Each packet: its fragment field (flags and offset, as on the wire) and its
 * body after the IP header, which the caller writes (a UDP header with any length field, a tail).
 */
const RAW_SENDER = `
use strict; use Socket;
my ($iface, $src, $dst, @packets) = @ARGV;
socket(my $s, PF_INET, SOCK_RAW, 255) or die "socket: $!";
setsockopt($s, SOL_SOCKET, 25, $iface) or die "SO_BINDTODEVICE: $!";
setsockopt($s, SOL_SOCKET, SO_BROADCAST, 1) or die "SO_BROADCAST: $!";
my $id = 4242;
for my $p (@packets) {
  my ($frag, $hex) = split /,/, $p;
  my $body = pack('H*', $hex);
  my $ip = pack('CCnnnCCna4a4', 0x45, 0, 20 + length($body), $id++, $frag, 64, 17, 0, inet_aton($src), inet_aton($dst));
  send($s, $ip . $body, 0, pack_sockaddr_in(0, inet_aton($dst))) or die "send: $!";
}
`;

export interface RawPacket {
  /** The IP header's flags and fragment offset field: 0x2000 = more fragments, low 13 bits = offset / 8. */
  frag: number;
  body: Buffer;
}

/** A UDP header (checksum 0: none, as IPv4 allows) with the given length field, then `payload`. */
export function udpBody(sport: number, dport: number, lengthField: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt16BE(sport, 0);
  header.writeUInt16BE(dport, 2);
  header.writeUInt16BE(lengthField, 4);
  return Buffer.concat([header, payload]);
}

/** Sends raw IPv4/UDP packets from `src` to `dst` out of `iface`, inside `ns`. */
export function sendRawIp(
  ns: string,
  iface: string,
  src: string,
  dst: string,
  packets: RawPacket[],
): Promise<void> {
  const args = [iface, src, dst, ...packets.map((p) => `${p.frag},${p.body.toString('hex')}`)];
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', ns, '/usr/bin/perl', '-e', RAW_SENDER, ...args], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`emisor IP terminó con ${code}`))));
  });
}
