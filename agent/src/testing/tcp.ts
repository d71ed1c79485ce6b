/**
 * Tiny TCP helpers for tunnel tests (no ping needed): a server that answers every connection with
 * the address it came from, and a client that prints what it got, both run inside a namespace.
 */
import { execFile } from 'node:child_process';

/** Answers every connection with the address it came from, then closes. Prints once listening. */
export const ECHO_ADDRESS_SERVER = `const net=require('node:net');net.createServer(s=>s.end(s.remoteAddress)).listen(+process.argv[1],process.argv[2]||'0.0.0.0',()=>console.log('ready'))`;
/** Connects and prints what the server said; exits 2 on timeout. */
const CLIENT = `const net=require('node:net');const s=net.connect(+process.argv[2],process.argv[1]);let d='';s.on('data',c=>d+=c);s.on('end',()=>{console.log(d);process.exit(0)});s.on('error',e=>{console.error(e.message);process.exit(1)});setTimeout(()=>process.exit(2),+process.argv[3])`;

/** What the server at host:port answered from namespace `ns`, or null (refused, dropped, timed out). */
export function tcpGet(ns: string, host: string, port: number, timeoutMs = 3000): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      'ip',
      ['netns', 'exec', ns, process.execPath, '-e', CLIENT, host, String(port), String(timeoutMs)],
      (err, stdout) => resolve(err ? null : stdout.trim()),
    );
  });
}

/** A TCP exchange through a fresh tunnel may need a handshake first: retry a few times. */
export async function tcpGetRetry(ns: string, host: string, port: number, tries = 5): Promise<string | null> {
  for (let i = 0; i < tries; i++) {
    const r = await tcpGet(ns, host, port, 2000);
    if (r !== null) return r;
  }
  return null;
}
