// Every socket a process and its descendants listen on, read from /proc (Linux): the listening TCP sockets
// and the bound UDP ones, with their local address. A test asserts on all of them, so a listener added later
// is covered without anyone naming it.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Listener {
  protocol: 'tcp' | 'udp';
  address: string;
  port: number;
  loopback: boolean;
}

/** `pid` and every process below it. */
function processTree(pid: number): Set<number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* exited meanwhile */ }
  }
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parentOf) if (tree.has(parent) && !tree.has(child)) { tree.add(child); grew = true; }
  }
  return tree;
}

function socketInodes(pids: Set<number>): Set<string> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[];
    try { fds = readdirSync(`/proc/${pid}/fd`); } catch { continue; }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch { /* closed meanwhile */ }
    }
  }
  return inodes;
}

/** /proc/net's hex address: IPv4 as one little-endian word, IPv6 as four. */
function decode(hex: string): { address: string; loopback: boolean } {
  const bytes = Buffer.from(hex, 'hex');
  for (let i = 0; i < bytes.length; i += 4) bytes.subarray(i, i + 4).reverse();
  if (bytes.length === 4) return { address: [...bytes].join('.'), loopback: bytes[0] === 127 };
  const mapped = bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return { address: `::ffff:${[...bytes.subarray(12)].join('.')}`, loopback: bytes[12] === 127 };
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  const address = new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
  return { address, loopback: address === '::1' };
}

export function listenersOf(pid: number): Listener[] {
  const inodes = socketInodes(processTree(pid));
  const out: Listener[] = [];
  for (const [file, protocol] of [['tcp', 'tcp'], ['tcp6', 'tcp'], ['udp', 'udp'], ['udp6', 'udp']] as const) {
    let lines: string[];
    try { lines = readFileSync(`/proc/net/${file}`, 'utf8').trim().split('\n').slice(1); } catch { continue; }
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      const [localHex, localPort] = f[1]!.split(':');
      const state = f[3]!, inode = f[9]!;
      // TCP: LISTEN (0A). UDP: every bound socket receives, connected or not.
      if (!inodes.has(inode) || (protocol === 'tcp' && state !== '0A')) continue;
      out.push({ protocol, port: parseInt(localPort!, 16), ...decode(localHex!) });
    }
  }
  return out.sort((a, b) => a.port - b.port);
}
